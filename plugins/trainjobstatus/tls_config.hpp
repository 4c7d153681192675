// The `<job>-tls-config` ConfigMap: the status server's CA certificate copied from the
// webhook certificate Secret (upstream buildStatusServerCaCrtConfigMap in
// https://github.com/kubeflow/trainer/blob/master/pkg/runtime/framework/plugins/trainjobstatus/trainjobstatus.go).
#pragma once

#include <trainer/plugin.hpp>

#include <optional>
#include <string>
#include <string_view>

namespace trainer::plugins::trainjobstatus {

namespace json = boost::json;

// Standard base64 (RFC 4648, padded; CR/LF ignored, as Go's StdEncoding); false when malformed.
bool decodeBase64(std::string_view in, std::string& out);

// The `ca.crt` of the webhook Secret `<ns>/<name>` (`secret` null when it does not exist):
// `stringData` wins over base64 `data`, as the API server merges them. nullopt and `error` set
// with upstream's message when the Secret is missing ("failed to look up status server tls
// secret: secrets \"<name>\" not found") or has no non-empty ca.crt ("failed to find status
// server ca.crt in tls secret <ns>/<name>").
std::optional<std::string> caCertFromSecret(const json::object* secret, std::string_view ns, std::string_view name,
                                            std::string& error);

// The ConfigMap `<job>-tls-config` in the TrainJob's namespace, owned by the TrainJob, with
// data {ca.crt: caCert}.
json::object tlsConfigMap(const sdk::Info& info, std::string_view caCert);

}  // namespace trainer::plugins::trainjobstatus
