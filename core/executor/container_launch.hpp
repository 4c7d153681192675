// Starting one container instance of a pod: its env (env_resolver.hpp), mounts (volumes.hpp),
// command, cgroup (resource_limits.hpp) and log file (pod_logs.hpp) become a ContainerSpec
// (container_spec.hpp) that a container init runs in new namespaces (process_launcher.hpp).
#pragma once

#include "core/executor/container_spec.hpp"
#include "core/executor/kubelet_context.hpp"
#include "core/executor/pod_sandbox.hpp"
#include "core/executor/pod_status.hpp"
#include "core/executor/process_launcher.hpp"
#include "core/executor/start_problem.hpp"

#include <optional>
#include <string>

namespace trainer::core::executor {

struct LaunchOutcome {
    std::optional<ContainerProcess> process;
    std::optional<StartProblem> problem;
    bool retry = false;  // a waiting problem (CreateContainerConfigError): try again later
    std::string cgroup;
    std::string resultFile;
};

LaunchOutcome launchContainer(const KubeletContext& ctx, const json::object& pod, const json::object& container,
                              const PodSandbox& sandbox, int restartCount);

// How an instance ended: its terminated state from the init's exit code and result file.
TerminatedState terminationOf(int exitCode, const std::string& resultFile);

}  // namespace trainer::core::executor
