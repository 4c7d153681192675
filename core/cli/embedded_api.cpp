#include "core/cli/embedded_api.hpp"

#include "core/apiserver/bootstrap.hpp"
#include "core/executor/pod_logs.hpp"
#include "core/log/log.hpp"

namespace trainer::core::cli {

EmbeddedApiOptions embeddedApiOptions(const Args& args, const std::string& storePath) {
    EmbeddedApiOptions o;
    o.bindAddress = args.get("api-bind-address", o.bindAddress);
    o.kubeconfigPath = args.get("write-kubeconfig", storePath + ".kubeconfig");
    o.certDir = args.get("api-cert-dir", storePath + ".certs");
    o.stateDir = executor::executorStateDir(storePath).string();
    return o;
}

std::vector<FlagSpec> embeddedApiFlags() {
    return {{"api-bind-address", 0, true, false, "address of the embedded Kubernetes API (port 0 picks a free one)",
             "127.0.0.1:6443"},
            {"write-kubeconfig", 0, true, false,
             "where to write an admin kubeconfig for the API, mode 0600 (default <store>.kubeconfig)", ""},
            {"api-cert-dir", 0, true, false,
             "the API's CA, serving certificate and token, made on first start (default <store>.certs)", ""}};
}

EmbeddedApi::EmbeddedApi(Store& store, const PluginRegistry& registry, const Framework& framework)
    : store_(store), framework_(framework) {
    // Kinds the plugins build or watch are served like CRDs (core names none of them).
    for (auto const& [apiVersion, kind] : registry.pluginKinds()) resources_.addKind(apiVersion, kind);
}

std::string EmbeddedApi::start(boost::asio::io_context& io, const EmbeddedApiOptions& options) {
    apiserver::Credentials creds;
    if (auto err = apiserver::ensureCredentials(options.certDir, creds); !err.empty()) return err;
    apiserver::ApiServerOptions ao;
    ao.token = creds.token;
    ao.podLogDir = options.stateDir;
    auto admit = [this](json::object& obj, const json::object* old) {
        return controller::admit(framework_, obj, old, store_, std::chrono::system_clock::now());
    };
    api_ = std::make_unique<apiserver::ApiServer>(store_, resources_, admit, ao);
    if (auto err = api_->initialize(); !err.empty()) return err;
    certs_ = std::make_unique<server::CertWatcher>(options.certDir);
    certs_->setTlsSettings(options.tls);
    if (auto err = certs_->load(); !err.empty()) return err;
    server::ServerOptions so;
    so.name = "apiserver";
    so.bindAddress = options.bindAddress;
    so.tls = certs_->provider();
    so.bodyLimit = ao.bodyLimit;
    so.headerTimeout = std::chrono::seconds(60);
    so.errors = api_->errorResponder();
    // Writes run admission, that is plugin code, which may hang: on the server's worker pool,
    // so reads, watches and probes keep being served (beyond pool and queue: 503).
    so.workerThreads = 8;
    so.workerQueue = 64;
    auto routes = api_->routes();
    for (auto& r : routes) r.offload = r.method == "POST" || r.method == "PUT" || r.method == "PATCH";
    http_ = std::make_unique<server::HttpServer>(io, so, std::move(routes));
    if (auto err = http_->start(); !err.empty()) return err;
    std::string bindError;
    auto bind = server::parseBindAddress(options.bindAddress, bindError);
    auto url = apiserver::serverUrl(bind ? bind->host : "", http_->port());
    if (auto err = apiserver::writeKubeconfig(options.kubeconfigPath, url, creds); !err.empty()) return err;
    log::Logger("apiserver").info("Serving the Kubernetes API",
                                  {{"address", url}, {"kubeconfig", options.kubeconfigPath}, {"certDir", options.certDir}});
    return {};
}

void EmbeddedApi::stop() {
    if (http_) http_->stop();
}

unsigned short EmbeddedApi::port() const { return http_ ? http_->port() : 0; }

}  // namespace trainer::core::cli
