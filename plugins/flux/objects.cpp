// The JSON Flux adds: volumes, the init container, mounts, the ConfigMap and the Secret
// (upstream flux.go getViewVolumes, EnforceMLPolicy, buildInitScriptConfigMap, buildCurveSecret).
#include "curve.hpp"
#include "flux.hpp"

#include <trainer/resources.hpp>

namespace trainer::plugins::flux {
namespace {

json::object mount(std::string_view name, std::string_view path, bool readOnly = false) {
    json::object m{{"name", name}, {"mountPath", path}};
    if (readOnly) m["readOnly"] = true;
    return m;
}

json::object emptyDirVolume(std::string_view name) { return json::object{{"name", name}, {"emptyDir", json::object{}}}; }

json::object objectMeta(const sdk::Info& info, std::string_view name) {
    return json::object{{"name", name}, {"namespace", info.ns()}, {"ownerReferences", json::array{sdk::controllerRef(info)}}};
}

}  // namespace

std::string configMapName(std::string_view job) { return std::string(job) + std::string(kEntrypointSuffix); }
std::string curveSecretName(std::string_view job) { return std::string(job) + std::string(kCurveSuffix); }

json::array wrappedCommand(const sdk::Info& info) {
    return json::array{"/bin/bash", std::string(kConfigPath) + "/" + std::string(kEntrypointKey), originalCommand(info)};
}

json::array viewVolumes(std::string_view job) {
    const std::string cm = configMapName(job);
    return json::array{
        emptyDirVolume(kSpackVolume), emptyDirVolume(kInstallVolume),
        json::object{{"name", cm}, {"configMap", json::object{{"name", cm}, {"defaultMode", kModeConfigMap}}}},
        json::object{{"name", kMemoryVolume}, {"emptyDir", json::object{{"medium", "Memory"}}}}};
}

json::object curveVolume(std::string_view job) {
    return json::object{{"name", kCurveVolume},
                        {"secret", json::object{{"secretName", curveSecretName(job)}, {"defaultMode", kModeCurve}}}};
}

json::object installerContainer(std::string_view job, const BrokerSettings& settings) {
    return json::object{
        {"name", kInstallerContainer},
        {"image", settings.viewImage},
        {"command", json::array{"/bin/bash", std::string(kConfigPath) + "/" + std::string(kInitKey)}},
        {"volumeMounts", json::array{mount(kInstallVolume, kInstallPath), mount(configMapName(job), kConfigPath, true)}}};
}

json::array nodeVolumeMounts(std::string_view job) {
    return json::array{mount(kInstallVolume, kInstallPath), mount(kSpackVolume, kSpackPath),
                       mount(configMapName(job), kConfigPath, true), mount(kCurveVolume, kCurvePath, true),
                       mount(kMemoryVolume, kMemoryPath, true)};
}

json::object entrypointConfigMap(const sdk::Info& info, const FluxPolicy& policy) {
    const int64_t nodes = nodeCount(info);
    const std::string entrypoint =
        entrypointScript(info.name(), nodes, tasksPerNode(info, policy), sdk::gpuCount(sdk::effectiveResources(info)));
    const std::string init = initScript(info.name(), info.ns(), nodes, brokerSettings(info));
    return json::object{{"apiVersion", "v1"},
                        {"kind", "ConfigMap"},
                        {"metadata", objectMeta(info, configMapName(info.name()))},
                        {"data", json::object{{kEntrypointKey, entrypoint}, {kInitKey, init}}}};
}

std::optional<json::object> curveSecret(const sdk::Info& info, const std::optional<json::object>& existing,
                                        std::string& error) {
    const std::string name = curveSecretName(info.name());
    json::object data;
    if (existing) {
        // Generated once, never regenerated: what the cluster holds is what the pods use.
        const json::object* held = sdk::getObject(*existing, "data");
        if (!held || !sdk::getString(*held, kCurveCertKey)) {
            error = "Secret " + std::string(info.ns()) + "/" + name +
                    " exists without data.curve.cert; delete it to have a new CURVE certificate generated";
            return std::nullopt;
        }
        data = *held;
    } else {
        auto keys = generateCurveKeyPair(error);
        if (!keys) {
            error = "failed to create curve private key: " + error;
            return std::nullopt;
        }
        std::string cert = curveCertificate(info.name(), *keys);
        data[kCurveCertKey] = base64Encode(cert);
        wipe(cert);
    }
    return json::object{{"apiVersion", "v1"},
                        {"kind", "Secret"},
                        {"metadata", objectMeta(info, name)},
                        {"data", std::move(data)}};
}

}  // namespace trainer::plugins::flux
