// What the container init (container_init.hpp) needs to start one container: written by the pod
// worker as JSON into the container's run directory, read back by the init after exec.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace trainer::core::executor {

struct BindMount {
    std::string source;  // absolute host path, a directory or a file
    std::string target;  // absolute path inside the container's mount namespace
    bool readOnly = false;
};

struct ContainerSpec {
    std::vector<std::string> argv;  // argv[0] is looked up in the container env's PATH
    std::vector<std::string> env;   // "NAME=value", the container's whole environment
    std::string workingDir;  // inside the container's mounts; "" = scratchDir
    std::string scratchDir;  // a host directory, opened before any mount (it may be hidden by one)
    std::string hostname;
    std::string netns;      // a network namespace file (/run/netns/...) to join, or "" for the host's
    std::string hostsFile;  // bind-mounted over /etc/hosts, or ""
    std::vector<BindMount> mounts;
    std::string logFile;     // stdout and stderr, appended
    std::string resultFile;  // where a start failure is reported (reason, message, exitCode)
    std::string cgroup;      // a cgroup v2 directory to join, or ""
};

// Why a started init ended without running the command: the container's terminated state.
struct StartFailure {
    std::string reason;  // "StartError"
    std::string message;
    int exitCode = 128;
};

std::string encodeSpec(const ContainerSpec& spec);
// nullopt and `error` set when the text is not a spec.
std::optional<ContainerSpec> decodeSpec(const std::string& text, std::string& error);

std::string encodeFailure(const StartFailure& f);
std::optional<StartFailure> decodeFailure(const std::string& text);

}  // namespace trainer::core::executor
