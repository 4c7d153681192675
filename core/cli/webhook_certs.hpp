// Certificate management for the admission webhooks in a cluster, as upstream's
// `certManagement.enable` does it (open-policy-agent/cert-controller): a CA and a serving
// certificate for the webhook Service kept in a Secret, written into the webhook certificate
// directory (where server::CertWatcher picks them up), the CA injected as `caBundle` into our
// ValidatingWebhookConfiguration and MutatingWebhookConfiguration, and both renewed before they
// expire.
#pragma once

#include "core/kube/client.hpp"

#include <boost/json.hpp>

#include <chrono>
#include <condition_variable>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

namespace trainer::core::cli {

struct WebhookCertOptions {
    std::string ns = "kubeflow-system";
    std::string service = "kubeflow-trainer-controller-manager";
    std::string secretName = "kubeflow-trainer-webhook-cert";
    std::string certDir = "/tmp/k8s-webhook-server/serving-certs";
    std::string validatingConfiguration = "validator.trainer.kubeflow.org";
    std::string mutatingConfiguration = "defaulter.trainer.kubeflow.org";
    // Renew when the serving certificate expires within this (cert-controller's lookahead).
    std::chrono::hours renewBefore{24 * 90};
    std::chrono::minutes checkEvery{60};
};

class WebhookCertManager {
public:
    WebhookCertManager(kube::Client& client, WebhookCertOptions options);
    ~WebhookCertManager();
    // Makes sure the Secret holds a valid pair (creating or renewing it), writes the files and
    // injects the CA. Returns an error message, empty on success.
    std::string ensure();
    // Repeats ensure() every checkEvery until stop().
    void start();
    void stop();

private:
    std::string ensureOnce(bool& raced);
    std::string injectCaBundle(const std::string& kindPath, const std::string& name, const std::string& caPem);
    kube::Client& client_;
    WebhookCertOptions options_;
    std::thread thread_;
    std::mutex mu_;
    std::condition_variable cv_;
    bool stopping_ = false;
};

// Seconds until the PEM certificate's notAfter (negative when expired); nullopt when unreadable.
std::optional<int64_t> secondsUntilExpiry(const std::string& certPem);

// A CA and a serving certificate as kept in a kubernetes.io/tls Secret and a certificate
// directory: "ca.crt", "tls.crt", "tls.key" (PEM). Shared by the webhook certificate manager and
// the embedded mode's status server certificate (status_server_wiring.hpp).
using CertFiles = std::map<std::string, std::string>;

// The files a Secret's `data` holds, base64-decoded; absent or undecodable keys are left out.
CertFiles certFilesOfSecret(const boost::json::object& secret);
// All three files present, the serving certificate valid for longer than `renewBefore`, and (when
// `host` is given) naming `host` among its DNS names.
bool certFilesUsable(const CertFiles& files, std::chrono::seconds renewBefore, const std::string& host = "");
// A fresh CA and a serving certificate signed by it for `service` in `ns` (server::generateCertificates:
// the Service's DNS names, localhost and 127.0.0.1). An error message, empty on success.
std::string makeCertFiles(const std::string& service, const std::string& ns, CertFiles& out);
// The kubernetes.io/tls Secret `ns/name` holding `files` (no resourceVersion).
boost::json::object certSecret(const std::string& name, const std::string& ns, const CertFiles& files);
// Writes each file into `dir` (created if absent), replaced atomically; tls.key mode 0600, the
// others 0644. An error message, empty on success.
std::string writeCertFiles(const std::string& dir, const CertFiles& files);

}  // namespace trainer::core::cli
