// What the local kubelet knows about one pod, and the Pod `status` it writes from it, in the
// shape the kubelet writes (pkg/kubelet/status/generate.go, kubelet_pods.go convertToAPIContainerStatuses):
// phase, the five pod conditions, containerStatuses/initContainerStatuses, podIP(s), hostIP(s), startTime.
#pragma once

#include <boost/json.hpp>

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace trainer::core::executor {

namespace json = boost::json;

struct TerminatedState {
    int exitCode = 0;
    std::string reason;  // Completed, Error, StartError
    std::string message;
    std::string startedAt, finishedAt;
    std::string containerId;
};

struct ContainerRecord {
    enum class State { Waiting, Running, Terminated };
    std::string name, image;
    State state = State::Waiting;
    std::string waitingReason = "ContainerCreating", waitingMessage;
    std::string startedAt;  // running
    std::string containerId;
    TerminatedState terminated;                // state Terminated
    std::optional<TerminatedState> lastState;  // the previous instance
    int restartCount = 0;
    bool ready = false;
};

struct PodRecord {
    std::string phase = "Pending";
    std::string reason, message;
    std::string podIP, hostIP, startTime;
    bool initialized = false;
    bool sandboxReady = false;
    bool disrupted = false;  // DisruptionTarget (the node restarted under it)
    std::vector<ContainerRecord> initContainers, containers;
};

// The status object. `times` keeps each condition's lastTransitionTime across calls (by type and
// status); `now` stamps conditions that change.
json::object renderPodStatus(const PodRecord& pod, std::map<std::string, std::pair<bool, std::string>>& times,
                             const std::string& now);

// The records for a pod spec's init containers and containers (waiting, ContainerCreating).
PodRecord initialRecord(const json::object& pod);

}  // namespace trainer::core::executor
