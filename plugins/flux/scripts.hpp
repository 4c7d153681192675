// The text Flux needs, rendered as upstream flux.go does (generateRange, generateHostlist,
// getOriginalCommand, brokerSettingsFromEnvironment, generateBrokerConfig,
// generateInitEntrypoint, generateFluxEntrypoint):
// https://github.com/kubeflow/trainer/blob/master/pkg/runtime/framework/plugins/flux/flux.go
#pragma once

#include <trainer/plugin.hpp>

#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>

namespace trainer::plugins::flux {

namespace json = boost::json;

// Broker settings a TrainJob may override through env vars of these names.
inline constexpr std::string_view kEnvViewImage = "FLUX_VIEW_IMAGE";
inline constexpr std::string_view kEnvNetworkDevice = "FLUX_NETWORK_DEVICE";
inline constexpr std::string_view kEnvQueuePolicy = "FLUX_QUEUE_POLICY";

// Upstream's brokerDefaults (pkg/constants: FluxInstallerImage, FluxNewtowkDevice, FluxQueuePolicy).
struct BrokerSettings {
    std::string viewImage = "ghcr.io/converged-computing/flux-view-ubuntu:tag-jammy";
    std::string networkDevice = "eth0";
    std::string queuePolicy = "fcfs";
    // Sets the setting called `name`; false (nothing changed) for any other name.
    bool set(std::string_view name, std::string_view value);
};

// Defaults, overridden by the env of the runtime's trainer `node` container (entries with a
// literal value), then by spec.trainer.env (an entry without `value` sets "", as Go's
// EnvVar.Value does).
BrokerSettings brokerSettings(const sdk::Info& info);

// The `node` container of the first PodSet whose ancestor is `trainer`, or nullptr
// (upstream Info.FindContainerByPodSetAncestorContainerName).
const json::object* trainerContainer(const sdk::Info& info);

// "<start>" for size 1, else "<start>-<start+size-1>" (so size 0 gives "0--1", as upstream).
std::string generateRange(int64_t size, int64_t start);

// "<prefix>-node-0-[<range of size>]": the node pods' hostnames.
std::string generateHostlist(std::string_view prefix, int64_t size);

// Go's fmt.Sprintf for formats whose only verbs are %s and %% (the embedded templates): a
// missing argument prints "%!s(MISSING)" as Go does; any other verb is copied as is.
std::string sprintfS(std::string_view format, std::initializer_list<std::string_view> args);

// Go's strings.TrimSpace: leading and trailing Unicode white space removed.
std::string_view trimSpace(std::string_view s);

// The command Flux wraps: the trainer container's command, replaced by spec.trainer.command
// when present (even empty), followed by spec.trainer.args when present; joined with " " and
// trimmed. The runtime container's args are not part of it (they stay on the container).
std::string originalCommand(const sdk::Info& info);

// broker.toml for TrainJob `name` in `ns` over `hosts`.
std::string brokerConfig(std::string_view name, std::string_view ns, std::string_view hosts,
                         const BrokerSettings& settings);

// init.sh (run by the flux-installer init container) for `nodes` nodes.
std::string initScript(std::string_view name, std::string_view ns, int64_t nodes, const BrokerSettings& settings);

// entrypoint.sh (wraps the trainer): `flux run -N <nodes> -n <tasks*nodes>[ -g <gpus>]`.
std::string entrypointScript(std::string_view name, int64_t nodes, int64_t tasksPerNode, int64_t gpusPerNode);

}  // namespace trainer::plugins::flux
