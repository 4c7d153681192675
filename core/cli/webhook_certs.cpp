#include "core/cli/webhook_certs.hpp"

#include "core/json/io.hpp"
#include "core/kube/base64.hpp"
#include "core/log/log.hpp"
#include "core/server/atomic_file.hpp"
#include "core/server/certs.hpp"
#include "core/server/webhook.hpp"

#include <openssl/asn1.h>
#include <openssl/bio.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include <boost/json.hpp>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>

namespace trainer::core::cli {

namespace json = boost::json;
namespace fs = std::filesystem;

namespace {

constexpr const char* kFiles[] = {"ca.crt", "tls.crt", "tls.key"};

std::string readFile(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

std::string strOf(const json::object& o, std::string_view k) {
    auto* v = o.if_contains(k);
    return v && v->is_string() ? std::string(v->as_string()) : std::string();
}

std::optional<json::object> parseObject(const std::string& text) { return parseJsonObject(text); }

std::string httpError(const kube::HttpResult& r) {
    return r.status ? "HTTP " + std::to_string(r.status) + ": " + r.body.substr(0, 300) : r.error;
}

// The PEM certificate, or null.
std::unique_ptr<X509, decltype(&X509_free)> readCertificate(const std::string& certPem) {
    std::unique_ptr<X509, decltype(&X509_free)> none(nullptr, &X509_free);
    BIO* bio = BIO_new_mem_buf(certPem.data(), static_cast<int>(certPem.size()));
    if (!bio) return none;
    X509* cert = PEM_read_bio_X509(bio, nullptr, nullptr, nullptr);
    BIO_free(bio);
    return {cert, &X509_free};
}

}  // namespace

std::optional<int64_t> secondsUntilExpiry(const std::string& certPem) {
    auto cert = readCertificate(certPem);
    if (!cert) return std::nullopt;
    int days = 0, secs = 0;
    if (ASN1_TIME_diff(&days, &secs, nullptr, X509_get0_notAfter(cert.get())) != 1) return std::nullopt;
    return static_cast<int64_t>(days) * 86400 + secs;
}

CertFiles certFilesOfSecret(const json::object& secret) {
    CertFiles files;
    auto* data = secret.if_contains("data");
    if (!data || !data->is_object()) return files;
    for (auto name : kFiles) {
        std::string decoded, error;
        if (kube::decodeBase64(strOf(data->as_object(), name), decoded, error) && !decoded.empty()) files[name] = decoded;
    }
    return files;
}

bool certFilesUsable(const CertFiles& files, std::chrono::seconds renewBefore, const std::string& host) {
    for (auto name : kFiles)
        if (!files.contains(name)) return false;
    auto left = secondsUntilExpiry(files.at("tls.crt"));
    if (!left || *left < renewBefore.count()) return false;
    if (host.empty()) return true;
    auto cert = readCertificate(files.at("tls.crt"));
    return cert && X509_check_host(cert.get(), host.data(), host.size(), X509_CHECK_FLAG_NO_WILDCARDS, nullptr) == 1;
}

std::string makeCertFiles(const std::string& service, const std::string& ns, CertFiles& out) {
    std::string tmpl = (fs::temp_directory_path() / "trainer-certs-XXXXXX").string();
    if (!::mkdtemp(tmpl.data())) return "making a scratch directory for certificates: " + std::string(std::strerror(errno));
    fs::path scratch(tmpl);
    server::CertOptions co;
    co.service = service;
    co.ns = ns;
    auto err = server::generateCertificates(scratch.string(), co);
    if (err.empty())
        for (auto name : kFiles) out[name] = readFile(scratch / name);
    std::error_code ec;
    fs::remove_all(scratch, ec);
    return err;
}

json::object certSecret(const std::string& name, const std::string& ns, const CertFiles& files) {
    json::object data;
    for (auto const& [file, value] : files) data[file] = server::base64Encode(value);
    return json::object{{"apiVersion", "v1"},
                        {"kind", "Secret"},
                        {"metadata", json::object{{"name", name}, {"namespace", ns}}},
                        {"type", "kubernetes.io/tls"},
                        {"data", std::move(data)}};
}

std::string writeCertFiles(const std::string& dir, const CertFiles& files) {
    std::error_code ec;
    fs::create_directories(dir, ec);
    if (ec) return dir + ": " + ec.message();
    for (auto const& [name, data] : files)
        if (auto r = server::writeFileAtomically(fs::path(dir) / name, data, {name == "tls.key" ? 0600u : 0644u}); !r.ok())
            return r.error;
    return {};
}

WebhookCertManager::WebhookCertManager(kube::Client& client, WebhookCertOptions options)
    : client_(client), options_(std::move(options)) {}

WebhookCertManager::~WebhookCertManager() { stop(); }

std::string WebhookCertManager::ensure() {
    // Replicas starting together race to write the Secret: the loser (409) reads the winner's.
    std::string error;
    for (int attempt = 0; attempt < 3; ++attempt) {
        bool raced = false;
        error = ensureOnce(raced);
        if (!raced) return error;
    }
    return error;
}

std::string WebhookCertManager::ensureOnce(bool& raced) {
    const std::string secretPath = "/api/v1/namespaces/" + options_.ns + "/secrets/" + options_.secretName;
    auto got = client_.request("GET", secretPath);
    if (!got.ok() && got.status != 404) return "reading Secret " + options_.ns + "/" + options_.secretName + ": " + httpError(got);
    std::optional<json::object> secret = got.ok() ? parseObject(got.body) : std::nullopt;
    CertFiles files = secret ? certFilesOfSecret(*secret) : CertFiles{};
    if (!certFilesUsable(files, std::chrono::duration_cast<std::chrono::seconds>(options_.renewBefore))) {
        files.clear();
        if (auto err = makeCertFiles(options_.service, options_.ns, files); !err.empty()) return err;
        json::object body = certSecret(options_.secretName, options_.ns, files);
        if (secret) body["metadata"].as_object()["resourceVersion"] = strOf(secret->at("metadata").as_object(), "resourceVersion");
        auto w = secret ? client_.request("PUT", secretPath, json::serialize(body))
                        : client_.request("POST", "/api/v1/namespaces/" + options_.ns + "/secrets", json::serialize(body));
        raced = w.status == 409;
        if (!w.ok()) return "writing Secret " + options_.ns + "/" + options_.secretName + ": " + httpError(w);
        log::Logger("certs").info("Generated the webhook serving certificate",
                                  {{"secret", options_.ns + "/" + options_.secretName}, {"service", options_.service}});
    }
    if (auto err = writeCertFiles(options_.certDir, files); !err.empty()) return err;
    std::string errors;
    for (auto const& [path, name] :
         {std::pair<std::string, std::string>{"/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations/",
                                              options_.validatingConfiguration},
          {"/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations/", options_.mutatingConfiguration}})
        if (auto err = injectCaBundle(path, name, files["ca.crt"]); !err.empty())
            errors += (errors.empty() ? "" : "; ") + err;
    return errors;
}

std::string WebhookCertManager::injectCaBundle(const std::string& kindPath, const std::string& name,
                                               const std::string& caPem) {
    auto got = client_.request("GET", kindPath + name);
    if (!got.ok()) return "reading " + name + ": " + httpError(got);
    auto cfg = parseObject(got.body);
    if (!cfg) return "reading " + name + ": not a JSON object";
    auto* hooks = cfg->if_contains("webhooks");
    if (!hooks || !hooks->is_array()) return {};
    std::string bundle = server::base64Encode(caPem);
    bool changed = false;
    for (auto& h : hooks->as_array()) {
        if (!h.is_object()) continue;
        auto& cc = h.as_object()["clientConfig"];
        if (!cc.is_object()) cc = json::object{};
        if (strOf(cc.as_object(), "caBundle") == bundle) continue;
        cc.as_object()["caBundle"] = bundle;
        changed = true;
    }
    if (!changed) return {};
    auto put = client_.request("PUT", kindPath + name, json::serialize(*cfg));
    if (!put.ok()) return "updating " + name + ": " + httpError(put);
    log::Logger("certs").info("Injected the CA bundle", {{"configuration", name}});
    return {};
}

void WebhookCertManager::start() {
    thread_ = std::thread([this] {
        std::unique_lock lock(mu_);
        while (!cv_.wait_for(lock, options_.checkEvery, [&] { return stopping_; })) {
            lock.unlock();
            if (auto err = ensure(); !err.empty()) log::Logger("certs").error("Certificate check failed", {{"error", err}});
            lock.lock();
        }
    });
}

void WebhookCertManager::stop() {
    {
        std::lock_guard lock(mu_);
        stopping_ = true;
    }
    cv_.notify_all();
    if (thread_.joinable()) thread_.join();
}

}  // namespace trainer::core::cli
