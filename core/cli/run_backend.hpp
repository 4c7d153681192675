// Where `run` keeps its objects (two modes, one reconcile path: README.md "Running the operator" and
// "Run on a cluster"): the embedded SQLite store with its Kubernetes API, or a cluster's API server
// through informers. The controller, the pipeline, the plugins and the webhooks see only the Store
// either gives.
#pragma once

#include "core/cli/cli.hpp"
#include "core/controller/configuration.hpp"
#include "core/kube/client.hpp"
#include "core/plugin/framework.hpp"
#include "core/plugin/registry.hpp"
#include "core/server/metrics.hpp"
#include "core/server/tls_settings.hpp"
#include "core/store/store.hpp"

#include <boost/asio/io_context.hpp>

#include <memory>

namespace trainer::core::cli {

class RunBackend {
public:
    virtual ~RunBackend() = default;
    virtual Store& store() = 0;
    // What the controller writes through: store() in a cluster (the API server decides), on the
    // embedded store its rederivableWriter() (core/store/sqlite_store.hpp: no fsync per write,
    // since the next reconcile makes a lost write again).
    virtual Store& controllerStore() { return store(); }
    // Stops what the backend runs (the embedded API, the informers); the store stays readable.
    virtual void stop() = 0;
    // The API client and the operator's namespace (cluster mode), else null and "".
    virtual kube::Client* client() { return nullptr; }
    virtual std::string operatorNamespace() const { return {}; }
};

// Cluster mode: --kubeconfig given, or running in a cluster (KUBERNETES_SERVICE_HOST) without --store.
bool clusterMode(const Args& args);

// The embedded store at --store and, unless --api-bind-address is 0, its Kubernetes API
// (negotiating TLS as `tls` says: the Configuration's tls block).
std::unique_ptr<RunBackend> openEmbeddedBackend(const Args& args, boost::asio::io_context& io, const PluginRegistry& registry,
                                                const Framework& framework, const server::TlsSettings& tls,
                                                std::string& error);

// A Kubernetes API server (kubeconfig or in-cluster), informers over every kind the controller
// and the plugins read (listed once before this returns), writes through its API.
std::unique_ptr<RunBackend> openClusterBackend(const Args& args, const controller::Configuration& cfg,
                                               const PluginRegistry& registry, server::Registry& metrics,
                                               std::string& error);

// The flags cluster mode adds to `run`.
std::vector<FlagSpec> clusterFlags();

}  // namespace trainer::core::cli
