// The embedded Kubernetes API as `run --store` and `apiserver` serve it: credentials made once,
// the API server over the store with the plugins' admission and kinds, HTTPS, the kubeconfig.
#pragma once

#include "core/apiserver/api_server.hpp"
#include "core/cli/cli.hpp"
#include "core/plugin/framework.hpp"
#include "core/plugin/registry.hpp"
#include "core/server/http.hpp"
#include "core/server/webhook.hpp"

#include <boost/asio/io_context.hpp>

#include <memory>

namespace trainer::core::cli {

struct EmbeddedApiOptions {
    std::string bindAddress = "127.0.0.1:6443";
    std::string kubeconfigPath;  // default <store>.kubeconfig
    std::string certDir;         // default <store>.certs
    std::string stateDir;        // the local executor's (pods/log reads it): <store>.local
    server::TlsSettings tls;     // the Configuration's tls block (run); Go's defaults otherwise
};

// The flags --api-bind-address, --write-kubeconfig and --api-cert-dir with their defaults.
EmbeddedApiOptions embeddedApiOptions(const Args& args, const std::string& storePath);

// The flag specs both commands take.
std::vector<FlagSpec> embeddedApiFlags();

class EmbeddedApi {
public:
    EmbeddedApi(Store& store, const PluginRegistry& registry, const Framework& framework);
    // Makes or reuses credentials, listens, then writes the kubeconfig; returns an error message.
    std::string start(boost::asio::io_context& io, const EmbeddedApiOptions& options);
    void stop();
    unsigned short port() const;

private:
    Store& store_;
    const Framework& framework_;
    apiserver::ResourceRegistry resources_;
    std::unique_ptr<apiserver::ApiServer> api_;
    std::unique_ptr<server::CertWatcher> certs_;
    std::unique_ptr<server::HttpServer> http_;
};

}  // namespace trainer::core::cli
