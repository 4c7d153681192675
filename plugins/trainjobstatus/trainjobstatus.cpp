#include "trainjobstatus.hpp"

#include "tls_config.hpp"

namespace trainer::plugins::trainjobstatus {

namespace {

std::string trainJobPath(std::string_view ns, std::string_view name) {
    return "/v1alpha1/namespaces/" + std::string(ns) + "/trainjobs/" + std::string(name) + "/status";
}

std::string fileUnderMount(std::string_view file) { return std::string(kConfigMountPath) + "/" + std::string(file); }

// The operator block when the gate is on in it. The host activates this plugin only with the
// gate on (its featureGate claim); a host that predates gate claims sends no operator block,
// and then the plugin stays out as if the gate were off.
std::optional<sdk::OperatorInfo> gatedOperator(const sdk::Info& info) {
    if (!sdk::featureGateEnabled(info, kFeatureGate)) return std::nullopt;
    return sdk::operatorInfo(info);
}

}  // namespace

std::string tokenAudience(std::string_view ns, std::string_view name) {
    return std::string(kTokenAudiencePrefix) + trainJobPath(ns, name);
}

std::string statusUrlPath(std::string_view ns, std::string_view name) {
    return "/apis/trainer.kubeflow.org" + trainJobPath(ns, name);
}

std::string tlsConfigMapName(std::string_view job) { return std::string(job) + std::string(kTlsConfigSuffix); }

std::optional<std::string> statusUrl(const sdk::OperatorInfo& op, std::string_view ns, std::string_view name,
                                     std::string& error) {
    if (!op.statusServerPort) {
        error = "missing status server port";
        return std::nullopt;
    }
    if (op.serviceName.empty() || op.ns.empty()) {
        error = std::string("missing ") + (op.serviceName.empty() ? "operator.serviceName" : "operator.namespace") +
                " for the status server URL";
        return std::nullopt;
    }
    return "https://" + op.serviceName + "." + op.ns + ".svc:" + std::to_string(*op.statusServerPort) +
           statusUrlPath(ns, name);
}

json::array envVars(std::string_view url) {
    return json::array{json::object{{"name", kEnvStatusUrl}, {"value", url}},
                       json::object{{"name", kEnvCaCert}, {"value", fileUnderMount(kCaCertFileName)}},
                       json::object{{"name", kEnvToken}, {"value", fileUnderMount(kTokenFileName)}}};
}

json::object tokenVolumeMount() {
    return json::object{{"name", kTokenVolumeName}, {"mountPath", kConfigMountPath}, {"readOnly", true}};
}

json::object tokenVolume(std::string_view ns, std::string_view job) {
    json::object token{{"audience", tokenAudience(ns, job)}, {"expirationSeconds", kTokenExpirySeconds},
                       {"path", kTokenFileName}};
    json::object configMap{{"name", tlsConfigMapName(job)},
                           {"items", json::array{json::object{{"key", kCaCertKey}, {"path", kCaCertFileName}}}}};
    return json::object{{"name", kTokenVolumeName},
                        {"projected", json::object{{"sources", json::array{json::object{{"serviceAccountToken", token}},
                                                                           json::object{{"configMap", configMap}}}}}}};
}

TrainJobStatusPlugin::TrainJobStatusPlugin(const json::object& config, sdk::Context& ctx) {
    for (auto const& kv : config)
        ctx.warning(std::string(kv.key()), "the trainjobstatus plugin takes no configuration; key ignored");
}

sdk::PluginMeta TrainJobStatusPlugin::meta() {
    return {.name = "trainjobstatus",
            .version = "0.1.0",
            .description = "Feature gate TrainJobStatus: status server URL, CA certificate and token for trainer pods.",
            .claims = {"featureGate:TrainJobStatus", "env:KUBEFLOW_TRAINER_SERVER_URL",
                       "env:KUBEFLOW_TRAINER_SERVER_CA_CERT", "env:KUBEFLOW_TRAINER_SERVER_TOKEN",
                       "volume:kubeflow-trainer-token"},
            .watches = {{"v1", "ConfigMap", TRN_WATCH_OWNED}}};
}

// Upstream EnforcePodSpec: the env vars and the mount into every container (not the init
// containers) of the trainer PodSet, the volume into that PodSet; nothing without one.
void TrainJobStatusPlugin::enforcePodSpec(const sdk::Info& info, sdk::Edits& edits, sdk::Context& ctx) {
    auto op = gatedOperator(info);
    if (!op) return;
    std::string error;
    auto url = statusUrl(*op, info.ns(), info.name(), error);
    if (!url) return ctx.error("operator", error);
    const json::object* podSet = info.podSetByAncestor("trainer");
    if (!podSet) return;
    const std::string name(sdk::getString(*podSet, "name").value_or(""));
    const json::array env = envVars(*url);
    if (const json::array* containers = sdk::getArray(*podSet, "containers"))
        for (auto const& c : *containers) {
            if (!c.is_object()) continue;
            auto container = sdk::getString(c.as_object(), "name").value_or("");
            for (auto const& e : env) edits.upsertEnv(name, container, e.as_object());
            edits.upsertVolumeMount(name, container, tokenVolumeMount());
        }
    edits.upsertVolume(name, tokenVolume(info.ns(), info.name()));
}

// Upstream Build: the ConfigMap, whatever the PodSets; a missing Secret or ca.crt fails the build.
void TrainJobStatusPlugin::build(const sdk::Info& info, sdk::Objects& objects, sdk::Context& ctx) {
    auto op = gatedOperator(info);
    if (!op) return;
    if (op->ns.empty() || op->webhookSecretName.empty())
        return ctx.error("operator", std::string("missing ") +
                                         (op->ns.empty() ? "operator.namespace" : "operator.webhookSecretName") +
                                         " for the status server tls secret");
    auto secret = ctx.lookup("v1", "Secret", op->ns, op->webhookSecretName);
    std::string error;
    auto caCert = caCertFromSecret(secret ? &*secret : nullptr, op->ns, op->webhookSecretName, error);
    if (!caCert) return ctx.error("", error);
    objects.add(tlsConfigMap(info, *caCert));
}

}  // namespace trainer::plugins::trainjobstatus
