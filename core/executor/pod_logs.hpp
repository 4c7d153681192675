// Where the local executor keeps a container's output and which file a log request means.
// The layout is the kubelet's /var/log/pods one
// (https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/kubelet/kuberuntime/helpers.go,
// BuildContainerLogsDirectory): `<stateDir>/pods/<ns>_<pod>_<uid>/<container>/<restartCount>.log`,
// each file the raw bytes of one container instance's stdout and stderr, interleaved.
// The container choice and its errors are the API server's and the kubelet's:
// ValidateContainer in https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/registry/core/pod/strategy.go
// and validateContainerLogStatus in .../pkg/kubelet/kubelet_pods.go.
#pragma once

#include "core/api/object_set.hpp"

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace trainer::core::executor {

// `<storePath>.local`: the executor's state (pod directories, logs) next to the store file.
std::filesystem::path executorStateDir(const std::string& storePath);

// `<stateDir>/pods/<ns>_<pod>_<uid>`.
std::filesystem::path podLogDirectory(const std::filesystem::path& stateDir, const std::string& ns,
                                      const std::string& pod, const std::string& uid);

// `<podLogDirectory>/<container>/<restartCount>.log`.
std::filesystem::path containerLogPath(const std::filesystem::path& stateDir, const std::string& ns,
                                       const std::string& pod, const std::string& uid, const std::string& container,
                                       int64_t restartCount);

// Why a log cannot be served. PodNotFound is a 404 from the API server; BadRequest and
// NotStarted are 400s (NotStarted: "container "c" in pod "p" is waiting to start: <reason>").
// ReadFailed: the store could not be read (the pod may well exist); an internal error (500).
enum class LogErrorKind { None, PodNotFound, BadRequest, NotStarted, ReadFailed };

struct LogError {
    LogErrorKind kind = LogErrorKind::None;
    std::string message;
    bool failed() const { return kind != LogErrorKind::None; }
};

// The container names of a pod in the API server's order: init containers, then containers.
std::vector<std::string> podContainerNames(const json::object& pod);
// The names of spec.containers only.
std::vector<std::string> podMainContainerNames(const json::object& pod);

// The container a request means: `requested` when the pod has it (init containers included),
// else the pod's only container; otherwise a BadRequest with the API server's message
// (`a container name must be specified for pod p, choose one of: [a b]`,
// `container x is not valid for pod p`).
std::string chooseContainer(const json::object& pod, const std::string& requested, LogError& error);

// One container instance's log file.
struct ContainerLog {
    std::string ns, pod, uid, container;
    int64_t restartCount = 0;  // the instance: the file is <restartCount>.log
    std::filesystem::path path;
};

// The file of the current instance of `container` (its status's restartCount), or with
// `previous` the one before it. NotStarted when the status says waiting (or there is none yet);
// BadRequest for `previous` without an earlier instance (the kubelet's
// `previous terminated container "c" in pod "p" not found`).
ContainerLog findContainerLog(const json::object& pod, const std::filesystem::path& stateDir,
                              const std::string& container, bool previous, LogError& error);

// Whether the instance `log` names has ended by what `pod` (nullopt: deleted) says: the pod is
// gone or replaced (another uid), or the container's status is terminated, or it restarted since.
bool containerInstanceEnded(const std::optional<json::object>& pod, const ContainerLog& log);

}  // namespace trainer::core::executor
