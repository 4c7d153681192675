// The TrainJobStatus plugin (upstream
// https://github.com/kubeflow/trainer/blob/master/pkg/runtime/framework/plugins/trainjobstatus/trainjobstatus.go):
// behind feature gate TrainJobStatus, every container of the trainer PodSet gets the
// status server's URL, its CA certificate and a projected service-account token, and the
// ConfigMap `<job>-tls-config` carries that CA certificate. The operator's identity comes from
// Info.operator (<trainer/operator.hpp>). Stateless.
#pragma once

#include <trainer/operator.hpp>
#include <trainer/plugin.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace trainer::plugins::trainjobstatus {

namespace json = boost::json;

// The feature gate (upstream pkg/features/features.go) and its claim.
inline constexpr std::string_view kFeatureGate = "TrainJobStatus";
// Names that reach the output (upstream trainjobstatus.go constants).
inline constexpr std::string_view kEnvStatusUrl = "KUBEFLOW_TRAINER_SERVER_URL";
inline constexpr std::string_view kEnvCaCert = "KUBEFLOW_TRAINER_SERVER_CA_CERT";
inline constexpr std::string_view kEnvToken = "KUBEFLOW_TRAINER_SERVER_TOKEN";
inline constexpr std::string_view kConfigMountPath = "/var/run/secrets/kubeflow/trainer";
inline constexpr std::string_view kCaCertFileName = "ca.crt";
inline constexpr std::string_view kTokenFileName = "token";
inline constexpr std::string_view kTokenVolumeName = "kubeflow-trainer-token";
inline constexpr int64_t kTokenExpirySeconds = 3600;
inline constexpr std::string_view kCaCertKey = "ca.crt";
inline constexpr std::string_view kTlsConfigSuffix = "-tls-config";
// upstream pkg/statusserver/utils.go
inline constexpr std::string_view kTokenAudiencePrefix = "trainer.kubeflow.org";

// "trainer.kubeflow.org/v1alpha1/namespaces/<ns>/trainjobs/<name>/status" (TokenAudience).
std::string tokenAudience(std::string_view ns, std::string_view name);
// "/apis/trainer.kubeflow.org/v1alpha1/namespaces/<ns>/trainjobs/<name>/status" (StatusUrl).
std::string statusUrlPath(std::string_view ns, std::string_view name);
// "<job>-tls-config".
std::string tlsConfigMapName(std::string_view job);

// "https://<serviceName>.<namespace>.svc:<port><statusUrlPath>"; nullopt and `error` set when
// the operator block lacks what it needs ("missing status server port", as upstream).
std::optional<std::string> statusUrl(const sdk::OperatorInfo& op, std::string_view ns, std::string_view name,
                                     std::string& error);

// The three env vars, in upstream order.
json::array envVars(std::string_view statusUrl);
// The read-only mount of the token volume at kConfigMountPath.
json::object tokenVolumeMount();
// The projected volume: service-account token (audience, 3600 s, `token`) and the ConfigMap's ca.crt.
json::object tokenVolume(std::string_view ns, std::string_view job);

// The plugin: EnforcePodSpec, ComponentBuilder, WatchExtension (owned ConfigMaps).
class TrainJobStatusPlugin : public sdk::Plugin, public sdk::EnforcePodSpec, public sdk::ComponentBuilder {
public:
    TrainJobStatusPlugin(const json::object& config, sdk::Context& ctx);
    static sdk::PluginMeta meta();

    void enforcePodSpec(const sdk::Info& info, sdk::Edits& edits, sdk::Context& ctx) override;
    void build(const sdk::Info& info, sdk::Objects& objects, sdk::Context& ctx) override;
};

}  // namespace trainer::plugins::trainjobstatus
