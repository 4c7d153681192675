// Admission webhooks: AdmissionReview v1 in and out over HTTPS, RFC 6902 JSON Patch for
// mutations, and TLS certificates reloaded from a directory when they change.
#pragma once

#include "core/api/errors.hpp"
#include "core/server/http.hpp"
#include "core/server/metrics.hpp"
#include "core/server/tls_settings.hpp"

#include <boost/asio/ssl/context.hpp>
#include <boost/json.hpp>

#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace trainer::core::server {

namespace json = boost::json;

// Upstream's webhook paths and names (the +kubebuilder:webhook markers of the files in
// https://github.com/kubeflow/trainer/tree/8c0f5059bd51ec3ba6d6a6a7b2e1471de7bc13b3/pkg/webhooks).
inline constexpr std::string_view kValidateTrainJobPath = "/validate-trainer-kubeflow-org-v1alpha1-trainjob";
inline constexpr std::string_view kValidateTrainingRuntimePath = "/validate-trainer-kubeflow-org-v1alpha1-trainingruntime";
inline constexpr std::string_view kValidateClusterTrainingRuntimePath =
    "/validate-trainer-kubeflow-org-v1alpha1-clustertrainingruntime";
inline constexpr std::string_view kMutateTrainJobPath = "/mutate-trainer-kubeflow-org-v1alpha1-trainjob";
inline constexpr std::string_view kValidateTrainJobName = "validator.trainjob.trainer.kubeflow.org";
inline constexpr std::string_view kValidateTrainingRuntimeName = "validator.trainingruntime.trainer.kubeflow.org";
inline constexpr std::string_view kValidateClusterTrainingRuntimeName =
    "validator.clustertrainingruntime.trainer.kubeflow.org";
inline constexpr std::string_view kMutateTrainJobName = "defaulter.trainjob.trainer.kubeflow.org";
inline constexpr unsigned short kDefaultWebhookPort = 9443;

// The `request` of an AdmissionReview.
struct AdmissionRequest {
    std::string uid;
    json::object kind;      // {group, version, kind}
    json::object resource;  // {group, version, resource}
    std::string name;
    std::string ns;
    std::string operation;  // CREATE, UPDATE, DELETE, CONNECT
    json::value object;     // null when absent
    json::value oldObject;  // null when absent
    bool dryRun = false;
    json::object userInfo;
};

// What a handler decides; becomes the AdmissionReview `response`.
struct AdmissionResponse {
    bool allowed = true;
    std::vector<std::string> warnings;
    unsigned code = 200;
    std::string reason;   // "Forbidden", ...
    std::string message;  // what the API server appends to "admission webhook "<name>" denied the request: "
    json::array patch;    // RFC 6902 operations; empty = no patch

    // Allowed, with warnings.
    static AdmissionResponse allow(std::vector<std::string> warnings = {});
    // Denied like controller-runtime's Denied(): 403 Forbidden, message = joinFieldErrors(errors).
    static AdmissionResponse deny(const ErrorList& errors, std::vector<std::string> warnings = {});
    static AdmissionResponse denyMessage(std::string message, std::vector<std::string> warnings = {});
    // Allowed with the JSON Patch that turns `original` into `mutated`.
    static AdmissionResponse patched(const json::value& original, const json::value& mutated,
                                     std::vector<std::string> warnings = {});
};

// Answers one review. The request is the handler's to consume: it may move `object` and
// `oldObject` out (the validating webhooks default and check the object in place); the server
// answers from `uid` and the response.
using AdmissionHandler = std::function<AdmissionResponse(AdmissionRequest&)>;

// "<path>: <message>, <path>: <message>" (path omitted when empty).
std::string joinFieldErrors(const ErrorList& errors);
// The message a client sees when the API server relays a denial:
// `admission webhook "<name>" denied the request: <message>`.
std::string apiServerDenialMessage(std::string_view webhookName, const AdmissionResponse& response);

// RFC 6902 patch turning `from` into `to`: object members add/remove/replace recursively, arrays of
// equal length element-wise, other arrays replaced whole.
json::array diffPatch(const json::value& from, const json::value& to);
// Applies add/remove/replace/test/move/copy operations; nullopt and `error` on failure.
std::optional<json::value> applyPatch(json::value doc, const json::array& patch, std::string& error);
// RFC 6901 escaping of one reference token ("~" → "~0", "/" → "~1").
std::string escapePointerToken(std::string_view token);

std::string base64Encode(std::string_view data);
std::optional<std::string> base64Decode(std::string_view text);

// Serves one AdmissionReview HTTP request with `handler`. Bad content type, unparsable JSON, a
// wrong apiVersion/kind or a missing request.uid → HTTP 400 with an AdmissionReview carrying the
// message; otherwise HTTP 200 with the handler's answer (uid echoed, patch base64-encoded, patchType
// JSONPatch). Records controller_runtime_webhook_* metrics in `metrics` when given.
class WebhookMetrics;
Response serveAdmission(const Request& req, std::string_view webhookName, const AdmissionHandler& handler,
                        const WebhookMetrics* metrics = nullptr);

// The controller_runtime_webhook_* series of one webhook path, looked up once when its route is
// made (Registry::Handle); requests_total of a status other than 200 is looked up by name.
class WebhookMetrics {
public:
    WebhookMetrics(Registry& registry, std::string path);
    void begin() const;                               // in_flight + 1
    void end(unsigned status, double seconds) const;  // latency, requests_total, in_flight - 1

private:
    Registry& registry_;
    std::string path_;
    Registry::Handle inFlight_, latency_, ok_;
};

// Admission handlers by path.
class WebhookServer {
public:
    explicit WebhookServer(Registry* metrics = nullptr) : metrics_(metrics) {}
    // Serves `handler` at POST `path`; `name` is the webhook's configuration name (for messages and logs).
    // `runsPlugins`: the handler calls plugin code (which may hang), so its route is an offload
    // route (Route::offload: guarded on the connection's thread, or on a worker pool).
    void handle(std::string path, std::string name, AdmissionHandler handler, bool runsPlugins = false);
    // One POST route per handler registered so far.
    std::vector<Route> routes() const;

private:
    struct Entry {
        std::string path;
        std::string name;
        AdmissionHandler handler;
        bool runsPlugins = false;
    };
    Registry* metrics_;
    std::vector<Entry> entries_;
};

// TLS server context from `dir/tls.crt` and `dir/tls.key`, reloaded when either file changes
// (checked on each new connection). A bad new pair keeps the previous one and logs an error.
class CertWatcher {
public:
    explicit CertWatcher(std::string dir, std::string certFile = "tls.crt", std::string keyFile = "tls.key");
    // How contexts made from now on negotiate (the Configuration's tls block); call before load().
    void setTlsSettings(TlsSettings settings);
    // Loads the current pair; returns an error message, empty on success.
    std::string load();
    // The current context (reloaded first if the files changed), or null if none ever loaded.
    std::shared_ptr<boost::asio::ssl::context> current();
    // A TlsProvider calling current(); this watcher must outlive the server.
    TlsProvider provider();

private:
    struct Stamp {
        long long certTime = -1, keyTime = -1;
        unsigned long long certIno = 0, keyIno = 0;
        long long certSize = -1, keySize = -1;
        bool operator==(const Stamp&) const = default;
    };
    Stamp stamp() const;
    std::string reloadLocked(const Stamp& s);

    std::string certPath_;
    std::string keyPath_;
    std::mutex mu_;
    Stamp seen_;
    std::shared_ptr<boost::asio::ssl::context> ctx_;
    TlsSettings settings_;  // outlives every context made from it (ALPN reads it)
};

}  // namespace trainer::core::server
