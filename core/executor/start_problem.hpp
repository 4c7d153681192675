// Why a container cannot start, as the kubelet reports it: in the container's state
// (waiting.reason/message, e.g. CreateContainerConfigError; terminated with reason StartError)
// or, for volumes, in a FailedMount event while the container waits in ContainerCreating.
#pragma once

#include <string>
#include <string_view>

namespace trainer::core::executor {

struct StartProblem {
    std::string reason;
    std::string message;
};

// The container's configuration cannot be built (env, mounts): waiting.reason, as
// pkg/kubelet/kuberuntime/kuberuntime_container.go reports ErrCreateContainerConfig.
inline constexpr std::string_view kCreateContainerConfigError = "CreateContainerConfigError";
// The container's process cannot be started: terminated.reason (the runtime's StartError).
inline constexpr std::string_view kStartError = "StartError";
// A pod volume cannot be set up: the kubelet's event reason (pkg/kubelet/volumemanager); the
// message reads `MountVolume.SetUp failed for volume "<name>" : <cause>`.
inline constexpr std::string_view kFailedMount = "FailedMount";

inline StartProblem configProblem(std::string message) {
    return {std::string(kCreateContainerConfigError), std::move(message)};
}

}  // namespace trainer::core::executor
