#include "core/cli/status_server_wiring.hpp"

#include "core/auth/embedded_token_authorizer.hpp"
#include "core/auth/token_review_authorizer.hpp"
#include "core/cli/webhook_certs.hpp"
#include "core/log/log.hpp"
#include "core/server/atomic_file.hpp"

#include <system_error>

namespace trainer::core::cli {

namespace {

namespace fs = std::filesystem;
namespace json = boost::json;

constexpr std::string_view kGate = "TrainJobStatus";
// Renewed at start-up when it expires within this (the cluster's cert manager uses the same).
constexpr std::chrono::hours kRenewBefore{24 * 90};

log::Logger logger() { return log::Logger("status-server"); }

std::string metaStr(const json::object& obj, std::string_view key) {
    auto* m = obj.if_contains("metadata");
    auto* v = m && m->is_object() ? m->as_object().if_contains(key) : nullptr;
    return v && v->is_string() ? std::string(v->as_string()) : std::string();
}

// The namespace object, as the embedded API server makes "default" (its writes need one).
std::string ensureNamespace(Store& store, const std::string& ns) {
    auto existing = store.get(ObjectKey{"v1", "Namespace", "", ns});
    if (existing.failed()) return "reading namespace " + ns + ": " + existing.message;
    if (existing.found()) return {};
    auto r = store.create(json::object{{"apiVersion", "v1"},
                                       {"kind", "Namespace"},
                                       {"metadata", json::object{{"name", ns}}},
                                       {"spec", json::object{{"finalizers", json::array{"kubernetes"}}}}});
    if (r.ok()) {
        r.object["status"] = json::object{{"phase", "Active"}};
        store.updateStatus(r.object);
    } else if (r.status != StoreStatus::AlreadyExists) {
        return "creating namespace " + ns + ": " + r.message;
    }
    return {};
}

// The serving certificate kept in the store's Secret: reused while usable, else made and written.
// Processes sharing the store race to write it; the loser reads the winner's.
std::string ensureServingSecret(Store& store, const controller::Configuration& cfg, const std::string& ns,
                                CertFiles& files) {
    const ObjectKey key{"v1", "Secret", ns, cfg.webhookSecretName};
    const std::string host = statusServerHost(cfg, ns), what = "Secret " + ns + "/" + cfg.webhookSecretName;
    for (int attempt = 0; attempt < 3; ++attempt) {
        auto read = store.get(key);
        // Unreadable is not absent: a certificate made now would replace one still in use.
        if (read.failed()) return "reading " + what + ": " + read.message;
        const json::object* secret = read.found() ? &read.object : nullptr;
        files = secret ? certFilesOfSecret(*secret) : CertFiles{};
        if (certFilesUsable(files, kRenewBefore, host)) return {};
        files.clear();
        if (auto err = makeCertFiles(cfg.webhookServiceName, ns, files); !err.empty()) return "making the certificate: " + err;
        auto body = certSecret(cfg.webhookSecretName, ns, files);
        if (secret) body["metadata"].as_object()["resourceVersion"] = metaStr(*secret, "resourceVersion");
        auto w = secret ? store.update(body) : store.create(body);
        if (w.ok()) {
            logger().info("Generated the status server's serving certificate", {{"secret", ns + "/" + cfg.webhookSecretName},
                                                                                 {"host", host}});
            return {};
        }
        if (w.status != StoreStatus::AlreadyExists && w.status != StoreStatus::Conflict)
            return "writing " + what + ": " + w.message;
    }
    return "writing " + what + ": it kept changing underneath";
}

// The store-kept certificate, written where a CertWatcher serves it from.
std::string embeddedCertificate(const StatusServerInputs& in, StatusServerWiring& w) {
    if (auto err = ensureNamespace(*in.store, in.operatorNamespace); !err.empty()) return err;
    CertFiles files;
    if (auto err = ensureServingSecret(*in.store, *in.cfg, in.operatorNamespace, files); !err.empty()) return err;
    const fs::path dir = in.stateDir / "status-server";
    if (auto err = server::ensurePrivateDirectory(dir); !err.empty()) return err;
    if (auto err = writeCertFiles(dir.string(), files); !err.empty()) return err;
    w.certs = std::make_unique<server::CertWatcher>(dir.string());
    w.certs->setTlsSettings(in.cfg->tls);
    if (auto err = w.certs->load(); !err.empty()) return "loading the serving certificate: " + err;
    return {};
}

// Pod-bound tokens stay valid while their pod exists with that uid.
auth::PodChecker podChecker(Store& store) {
    return [&store](std::string_view ns, std::string_view name, std::string_view uid) {
        auto pod = store.get(ObjectKey{"v1", "Pod", std::string(ns), std::string(name)});
        if (pod.failed()) return auth::PodCheck::Error;
        return pod.found() && metaStr(pod.object, "uid") == uid ? auth::PodCheck::Exists : auth::PodCheck::Gone;
    };
}

std::string wireEmbedded(const StatusServerInputs& in, StatusServerWiring& w) {
    std::string error;
    std::error_code ec;
    fs::create_directories(in.stateDir, ec);
    if (ec) return in.stateDir.string() + ": " + ec.message();
    std::shared_ptr<const auth::ServiceAccountTokenIssuer> issuer =
        auth::ServiceAccountTokenIssuer::open(in.stateDir / "service-account", error);
    if (!issuer) return "the service-account signing key: " + error;
    if (auto err = embeddedCertificate(in, w); !err.empty()) return err;
    w.tokenIssuer = issuer;
    w.nodeHostNames = {statusServerHost(*in.cfg, in.operatorNamespace)};
    w.authorizer = std::make_unique<auth::EmbeddedTokenAuthorizer>(issuer, podChecker(*in.store),
                                                                   [] { return std::chrono::system_clock::now(); });
    return {};
}

std::string wireCluster(const StatusServerInputs& in, StatusServerWiring& w) {
    if (!in.webhookTls)
        return "it serves with the webhook's certificate and there is none (turn on certManagement, the default, "
               "or give --webhook-cert-dir)";
    w.authorizer = std::make_unique<auth::TokenReviewAuthorizer>(*in.client);
    return {};
}

}  // namespace

std::string statusServerHost(const controller::Configuration& cfg, const std::string& operatorNamespace) {
    return cfg.webhookServiceName + "." + operatorNamespace + ".svc";
}

StatusServerWiring::~StatusServerWiring() { stop(); }

void StatusServerWiring::stop() {
    if (server) server->stop();
}

unsigned short StatusServerWiring::port() const { return server ? server->port() : 0; }

std::unique_ptr<StatusServerWiring> startStatusServer(boost::asio::io_context& io, const StatusServerInputs& in,
                                                      std::string& error) {
    error.clear();
    if (!controller::featureEnabled(*in.cfg, kGate)) return nullptr;
    auto w = std::make_unique<StatusServerWiring>();
    error = in.client ? wireCluster(in, *w) : wireEmbedded(in, *w);
    if (!error.empty()) return nullptr;
    statusserver::StatusServerOptions o;
    o.bindAddress = ":" + std::to_string(in.cfg->statusServerPort);
    o.qps = in.cfg->statusServerQps;
    o.burst = in.cfg->statusServerBurst;
    o.tls = in.client ? in.webhookTls : w->certs->provider();
    w->server = std::make_unique<statusserver::StatusServer>(io, *in.store, *w->authorizer, o);
    if (error = w->server->start(); !error.empty()) return nullptr;
    logger().info("Serving TrainJob status updates",
                  {{"port", static_cast<int>(w->server->port())},
                   {"host", statusServerHost(*in.cfg, in.operatorNamespace)},
                   {"mode", in.client ? "cluster (TokenReview)" : "embedded (tokens this operator mints)"}});
    return w;
}

}  // namespace trainer::core::cli
