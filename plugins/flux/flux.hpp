// The Flux ML policy (upstream
// https://github.com/kubeflow/trainer/blob/8c0f5059bd51ec3ba6d6a6a7b2e1471de7bc13b3/pkg/runtime/framework/plugins/flux/flux.go):
// wraps the trainer command into the Flux entrypoint, adds the flux-installer init container with its
// volumes and mounts, and builds the `<job>-flux-entrypoint` ConfigMap and the
// `<job>-flux-curve` Secret. Also does PlainML's part for its runtimes (count from numNodes,
// trainer env), because the default ML policy does not run when an mlPolicy member is set.
#pragma once

#include "scripts.hpp"

#include <trainer/plugin.hpp>
#include <trainer/policy.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace trainer::plugins::flux {

namespace json = boost::json;

// Names that reach the output (upstream pkg/constants/constants.go, Flux section).
inline constexpr std::string_view kNode = "node";
inline constexpr std::string_view kInstallerContainer = "flux-installer";
inline constexpr std::string_view kInstallVolume = "flux-install";
inline constexpr std::string_view kInstallPath = "/mnt/flux";
inline constexpr std::string_view kConfigPath = "/etc/flux-config";
inline constexpr std::string_view kCurveVolume = "flux-curve";
inline constexpr std::string_view kCurvePath = "/curve";
inline constexpr std::string_view kMemoryVolume = "shared-memory";
inline constexpr std::string_view kMemoryPath = "/dev/shm";
inline constexpr std::string_view kSpackVolume = "spack-install";
inline constexpr std::string_view kSpackPath = "/opt/software";
inline constexpr std::string_view kEntrypointSuffix = "-flux-entrypoint";
inline constexpr std::string_view kCurveSuffix = "-flux-curve";
inline constexpr std::string_view kEntrypointKey = "entrypoint.sh";
inline constexpr std::string_view kInitKey = "init.sh";
inline constexpr std::string_view kCurveCertKey = "curve.cert";
inline constexpr std::string_view kReservedMessage = "InitContainer 'flux-installer' is reserved";
inline constexpr std::string_view kReservedPath = "spec.trainer.initContainers";
// File modes, as the decimal integers Kubernetes JSON carries.
inline constexpr int64_t kModeConfigMap = 0755;
inline constexpr int64_t kModeCurve = 0400;

// runtimePolicy.mlPolicy.flux with the CRD default filled in where absent.
struct FluxPolicy {
    int64_t numProcPerNode = 1;
};

// The flux policy of the Info's runtime, or nullopt when the runtime has none.
std::optional<FluxPolicy> readPolicy(const sdk::Info& info);

std::string configMapName(std::string_view job);
std::string curveSecretName(std::string_view job);

// Nodes: spec.trainer.numNodes, else the trainer PodSet's count (upstream dereferences
// numNodes unchecked), else 1.
int64_t nodeCount(const sdk::Info& info);
// Tasks per node: spec.trainer.numProcPerNode, else the policy's.
int64_t tasksPerNode(const sdk::Info& info, const FluxPolicy& policy);

// ["/bin/bash", "/etc/flux-config/entrypoint.sh", originalCommand(info)].
json::array wrappedCommand(const sdk::Info& info);
// spack-install, flux-install, <job>-flux-entrypoint (ConfigMap, 0755), shared-memory (Memory).
json::array viewVolumes(std::string_view job);
// flux-curve: Secret <job>-flux-curve, 0400.
json::object curveVolume(std::string_view job);
// The flux-installer init container.
json::object installerContainer(std::string_view job, const BrokerSettings& settings);
// The five mounts of the trainer `node` container, in upstream order.
json::array nodeVolumeMounts(std::string_view job);

// The `<job>-flux-entrypoint` ConfigMap (entrypoint.sh, init.sh).
json::object entrypointConfigMap(const sdk::Info& info, const FluxPolicy& policy);
// The `<job>-flux-curve` Secret: the existing one's `data` unchanged when `existing` is set
// (nullopt and `error` when it has no data.curve.cert), else a fresh key pair.
std::optional<json::object> curveSecret(const sdk::Info& info, const std::optional<json::object>& existing,
                                        std::string& error);

// The plugin: CustomValidation, EnforceMLPolicy, ComponentBuilder, WatchExtension.
class FluxPlugin : public sdk::Plugin,
                   public sdk::CustomValidation,
                   public sdk::EnforceMLPolicy,
                   public sdk::ComponentBuilder {
public:
    FluxPlugin(const json::object& config, sdk::Context& ctx);
    static sdk::PluginMeta meta();

    void validate(const sdk::Info& info, sdk::Context& ctx) override;
    void enforceMLPolicy(const sdk::Info& info, sdk::Edits& edits, sdk::Context& ctx) override;
    void build(const sdk::Info& info, sdk::Objects& objects, sdk::Context& ctx) override;
};

}  // namespace trainer::plugins::flux
