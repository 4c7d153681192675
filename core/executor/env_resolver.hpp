// A container's environment and command line as the kubelet builds them before starting it.
#pragma once

#include "core/api/object_set.hpp"
#include "core/executor/pod_runtime_facts.hpp"
#include "core/executor/start_problem.hpp"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace trainer::core::executor {

struct EnvVar {
    std::string name;
    std::string value;
    bool operator==(const EnvVar&) const = default;
};

// The environment in kubelet order, or why the container cannot start (then `env` is partial).
struct ResolvedEnv {
    std::vector<EnvVar> env;
    std::optional<StartProblem> problem;
};

// The container's environment (pkg/kubelet/kubelet_pods.go makeEnvironmentVariables):
// envFrom first (configMapRef / secretRef, each source's keys in sorted order with `prefix`;
// a missing `optional` source is skipped; a key that cannot be an environment variable name —
// empty, or holding '=' or a non-printable byte — is skipped), then env in order: `value` with
// $(VAR) expansion against the variables defined so far, or valueFrom configMapKeyRef /
// secretKeyRef (`optional` tolerates a missing object or key: the variable is then not set),
// fieldRef and resourceFieldRef (see downward_api.hpp). A variable defined again keeps its first
// position and takes the new value (env overrides envFrom). No service-link variables.
// Problems have reason CreateContainerConfigError and the kubelet's messages
// (`configmap "name" not found`, `couldn't find key K in ConfigMap ns/name`) or a field error
// naming the path (`spec.containers[0].env[2].valueFrom: ...`).
ResolvedEnv resolveEnv(const json::object& pod, const json::object& container, const ClusterReader& cluster,
                       const PodRuntimeFacts& facts);

// The command line, or why the container cannot start.
struct ResolvedCommand {
    std::vector<std::string> argv;
    std::optional<StartProblem> problem;
};

// command + args, each with $(VAR) expansion against `env`
// (pkg/kubelet/container/helpers.go ExpandContainerCommandAndArgs). A container without a
// command gets a StartError: the local executor runs the host's programs and has no image
// entrypoint. Malformed command/args are a CreateContainerConfigError naming
// `<containerPath>.command[i]`; containerPath defaults to `container "<name>"` (pass
// containerFieldPath(pod, container) for "spec.containers[i]").
ResolvedCommand resolveCommand(const json::object& container, const std::vector<EnvVar>& env,
                               std::string_view containerPath = {});

}  // namespace trainer::core::executor
