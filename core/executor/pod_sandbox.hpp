// A pod's sandbox on this machine: its network namespace and address, its hosts file, its
// volumes and its scratch directory (`<state>/run/<uid>/`), made before any container starts and
// removed after the last one ends (logs stay under `<state>/pods/`).
#pragma once

#include "core/executor/kubelet_context.hpp"
#include "core/executor/pod_network.hpp"
#include "core/executor/start_problem.hpp"
#include "core/executor/volumes.hpp"

#include <optional>
#include <string>

namespace trainer::core::executor {

struct PodSandbox {
    std::string ns, name, uid;
    std::string hostname, subdomain;
    std::optional<PodEndpoint> endpoint;
    std::filesystem::path runDir;
    std::string hostsPath;
    std::string workDir;
    PodVolumes volumes;
};

// The pod's hostname as the kubelet sets it: spec.hostname, else the pod name (63 bytes at most).
std::string podHostname(const json::object& pod);

// Creates the network endpoint and directories (idempotent for a sandbox already made).
// `error` when the network cannot be set up.
bool createSandbox(const KubeletContext& ctx, const json::object& pod, PodSandbox& sandbox, std::string& error);
// (Re)writes the volumes from the current ConfigMaps and Secrets; a problem while one is missing.
std::optional<StartProblem> refreshVolumes(const KubeletContext& ctx, const json::object& pod, PodSandbox& sandbox);
// Removes the network endpoint, the pod's names, its cached tokens and the scratch directory.
void destroySandbox(const KubeletContext& ctx, PodSandbox& sandbox);

}  // namespace trainer::core::executor
