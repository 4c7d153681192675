#include "core/cli/webhook_certs.hpp"

#include "core/json/io.hpp"
#include "core/kube/base64.hpp"
#include "core/log/log.hpp"
#include "core/server/certs.hpp"
#include "core/server/webhook.hpp"

#include <openssl/asn1.h>
#include <openssl/bio.h>
#include <openssl/pem.h>
#include <openssl/x509.h>

#include <boost/json.hpp>

#include <filesystem>
#include <fstream>
#include <map>
#include <unistd.h>
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

// Writes the three files into `dir` (each replaced atomically, the key 0600).
std::string writeFiles(const std::string& dir, const std::map<std::string, std::string>& files) {
    std::error_code ec;
    fs::create_directories(dir, ec);
    if (ec) return dir + ": " + ec.message();
    for (auto const& [name, data] : files) {
        auto tmp = fs::path(dir) / (name + ".new");
        {
            std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
            out << data;
            if (!out) return tmp.string() + ": cannot write";
        }
        fs::permissions(tmp, name == "tls.key" ? fs::perms::owner_read | fs::perms::owner_write
                                               : fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read |
                                                     fs::perms::others_read,
                        ec);
        fs::rename(tmp, fs::path(dir) / name, ec);
        if (ec) return (fs::path(dir) / name).string() + ": " + ec.message();
    }
    return {};
}

}  // namespace

std::optional<int64_t> secondsUntilExpiry(const std::string& certPem) {
    BIO* bio = BIO_new_mem_buf(certPem.data(), static_cast<int>(certPem.size()));
    if (!bio) return std::nullopt;
    X509* cert = PEM_read_bio_X509(bio, nullptr, nullptr, nullptr);
    BIO_free(bio);
    if (!cert) return std::nullopt;
    int days = 0, secs = 0;
    bool ok = ASN1_TIME_diff(&days, &secs, nullptr, X509_get0_notAfter(cert)) == 1;
    X509_free(cert);
    if (!ok) return std::nullopt;
    return static_cast<int64_t>(days) * 86400 + secs;
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
    std::map<std::string, std::string> files;
    if (secret && secret->contains("data") && secret->at("data").is_object())
        for (auto name : kFiles) {
            std::string decoded, error;
            if (kube::decodeBase64(strOf(secret->at("data").as_object(), name), decoded, error)) files[name] = decoded;
        }
    auto left = files.size() == 3 ? secondsUntilExpiry(files["tls.crt"]) : std::nullopt;
    bool renew = !left || *left < std::chrono::duration_cast<std::chrono::seconds>(options_.renewBefore).count();
    if (renew) {
        auto scratch = fs::temp_directory_path() / ("trainer-webhook-certs-" + std::to_string(::getpid()));
        server::CertOptions co;
        co.service = options_.service;
        co.ns = options_.ns;
        if (auto err = server::generateCertificates(scratch.string(), co); !err.empty()) return err;
        for (auto name : kFiles) files[name] = readFile(scratch / name);
        std::error_code ec;
        fs::remove_all(scratch, ec);
        json::object data;
        for (auto const& [name, value] : files) data[name] = server::base64Encode(value);
        json::object body{{"apiVersion", "v1"},
                          {"kind", "Secret"},
                          {"metadata", json::object{{"name", options_.secretName}, {"namespace", options_.ns}}},
                          {"type", "kubernetes.io/tls"},
                          {"data", std::move(data)}};
        if (secret) body["metadata"].as_object()["resourceVersion"] = strOf(secret->at("metadata").as_object(), "resourceVersion");
        auto w = secret ? client_.request("PUT", secretPath, json::serialize(body))
                        : client_.request("POST", "/api/v1/namespaces/" + options_.ns + "/secrets", json::serialize(body));
        raced = w.status == 409;
        if (!w.ok()) return "writing Secret " + options_.ns + "/" + options_.secretName + ": " + httpError(w);
        log::Logger("certs").info("Generated the webhook serving certificate",
                                  {{"secret", options_.ns + "/" + options_.secretName}, {"service", options_.service}});
    }
    if (auto err = writeFiles(options_.certDir, files); !err.empty()) return err;
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
