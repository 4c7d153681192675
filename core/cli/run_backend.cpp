#include "core/cli/run_backend.hpp"

#include "core/cli/embedded_api.hpp"
#include "core/kube/informer.hpp"
#include "core/kube/remote_store.hpp"
#include "core/log/log.hpp"
#include "core/store/sqlite_store.hpp"

#include <algorithm>
#include <condition_variable>
#include <cstdlib>
#include <fstream>
#include <set>
#include <thread>

namespace trainer::core::cli {

namespace {

class EmbeddedBackend : public RunBackend {
public:
    std::unique_ptr<SqliteStore> sqlite;
    std::unique_ptr<Store> controllerWrites;  // sqlite->rederivableWriter(), made with it
    std::unique_ptr<EmbeddedApi> api;
    Store& store() override { return *sqlite; }
    Store& controllerStore() override { return *controllerWrites; }
    void stop() override {
        if (api) api->stop();
    }
};

// The kinds cluster mode informs on: the trainer API, what the controller reads and writes
// (snapshot ConfigMaps, Secrets, Leases in the election namespace) and what the plugins claim or watch.
std::vector<std::pair<std::string, std::string>> informedKinds(const PluginRegistry& registry) {
    std::vector<std::pair<std::string, std::string>> kinds{{"trainer.kubeflow.org/v1alpha1", "TrainJob"},
                                                           {"trainer.kubeflow.org/v1alpha1", "TrainingRuntime"},
                                                           {"trainer.kubeflow.org/v1alpha1", "ClusterTrainingRuntime"},
                                                           {"v1", "ConfigMap"},
                                                           {"v1", "Secret"}};
    std::set<std::pair<std::string, std::string>> seen(kinds.begin(), kinds.end());
    auto add = [&](std::string apiVersion, std::string kind) {
        if (!kind.empty() && seen.insert({apiVersion, kind}).second) kinds.emplace_back(apiVersion, kind);
    };
    for (auto const& [apiVersion, kind] : registry.pluginKinds()) add(apiVersion, kind);
    return kinds;
}

class ClusterBackend : public RunBackend {
public:
    std::unique_ptr<kube::Client> api;
    kube::InformerCache cache;
    std::unique_ptr<kube::Informers> informers;
    std::unique_ptr<kube::RemoteStore> remote;
    server::Registry* metrics = nullptr;
    std::thread gauges;
    std::mutex mu;
    std::condition_variable cv;
    bool stopping = false;

    std::string ns;
    Store& store() override { return *remote; }
    kube::Client* client() override { return api.get(); }
    std::string operatorNamespace() const override { return ns; }
    void stop() override {
        {
            std::lock_guard lock(mu);
            if (stopping) return;
            stopping = true;
        }
        cv.notify_all();
        if (gauges.joinable()) gauges.join();
        if (informers) informers->stop();
    }
    ~ClusterBackend() override { stop(); }
    // Cache memory and relists in /metrics, every few seconds.
    void startGauges() {
        gauges = std::thread([this] {
            std::unique_lock lock(mu);
            while (!stopping) {
                lock.unlock();
                for (auto const& [r, n] : informers->relists()) {
                    auto name = r.groupResource();
                    metrics->set("trainer_informer_cache_bytes", {name},
                                 static_cast<double>(cache.bytesOf(r.apiVersion, r.kind)));
                    metrics->set("trainer_informer_relists_total", {name}, n);
                }
                lock.lock();
                cv.wait_for(lock, std::chrono::seconds(2), [&] { return stopping; });
            }
        });
    }
};

kube::RestConfigResult restConfig(const Args& args, const controller::Configuration& cfg) {
    kube::RestConfigResult r;
    if (args.has("kubeconfig") || !std::getenv("KUBERNETES_SERVICE_HOST")) {
        kube::KubeconfigOptions o;
        o.path = args.get("kubeconfig");
        o.context = args.get("context");
        o.allowInsecure = args.has("insecure-skip-tls-verify");
        r = kube::loadKubeconfig(o);
    } else {
        r = kube::inClusterConfig();
    }
    if (r.config) {
        r.config->qps = cfg.qps;
        r.config->burst = static_cast<int>(cfg.burst);
        r.config->userAgent = "trainer-operator/" TRAINER_VERSION;
    }
    return r;
}

}  // namespace

bool clusterMode(const Args& args) {
    return args.has("kubeconfig") || (!args.has("store") && std::getenv("KUBERNETES_SERVICE_HOST"));
}

std::vector<FlagSpec> clusterFlags() {
    return {{"kubeconfig", 0, true, false,
             "cluster mode: the kubeconfig of the API server to run against (else $KUBECONFIG, ~/.kube/config; "
             "in a Pod without --store: the in-cluster service account)",
             ""},
            {"context", 0, true, false, "the kubeconfig context (default: its current-context)", ""},
            {"insecure-skip-tls-verify", 0, false, false,
             "accept a kubeconfig that turns off verification of the server's certificate", ""},
            {"webhook-cert-management", 0, true, false,
             "self: keep the webhook certificate in its Secret and the webhook configurations' caBundle (cluster "
             "mode; the Configuration's certManagement.enable, default on); none: certificates come from elsewhere",
             ""}};
}

std::unique_ptr<RunBackend> openEmbeddedBackend(const Args& args, boost::asio::io_context& io, const PluginRegistry& registry,
                                                const Framework& framework, const server::TlsSettings& tls,
                                                std::string& error) {
    const std::string storePath = args.get("store", kDefaultStorePath);
    auto opened = SqliteStore::open(storePath);
    if (!opened.store) {
        error = opened.error;
        return nullptr;
    }
    auto b = std::make_unique<EmbeddedBackend>();
    b->sqlite = std::move(opened.store);
    b->controllerWrites = b->sqlite->rederivableWriter();
    auto revision = b->sqlite->revision();
    if (!revision.ok()) {
        error = storePath + ": " + *revision.error;
        return nullptr;
    }
    log::Logger("setup").info("Opened the store", {{"store", storePath}, {"revision", revision.value}});
    if (auto o = embeddedApiOptions(args, storePath); o.bindAddress != "0") {
        o.tls = tls;
        b->api = std::make_unique<EmbeddedApi>(*b->sqlite, registry, framework);
        if (auto err = b->api->start(io, o); !err.empty()) {
            error = "serving the Kubernetes API on " + o.bindAddress + ": " + err;
            return nullptr;
        }
    }
    return b;
}

std::unique_ptr<RunBackend> openClusterBackend(const Args& args, const controller::Configuration& cfg,
                                               const PluginRegistry& registry, server::Registry& metrics,
                                               std::string& error) {
    log::Logger setup("setup");
    auto rc = restConfig(args, cfg);
    if (!rc.config) {
        error = rc.error;
        return nullptr;
    }
    auto b = std::make_unique<ClusterBackend>();
    b->metrics = &metrics;
    // The operator's own namespace: the service account's in a cluster, else the leader election's.
    b->ns = args.has("kubeconfig") || !std::getenv("KUBERNETES_SERVICE_HOST") ? cfg.leaderElectionResourceNamespace
                                                                              : rc.config->ns;
    b->api = std::make_unique<kube::Client>(*rc.config);
    // TRAINER_CLIENT_REQUEST_LOG=FILE appends "METHOD path?query" for every request sent (the
    // RBAC proof in test/e2e_cluster reads it).
    if (const char* log = std::getenv("TRAINER_CLIENT_REQUEST_LOG"); log && *log) {
        auto file = std::make_shared<std::ofstream>(log, std::ios::app);
        auto mu = std::make_shared<std::mutex>();
        b->api->setObserver([file, mu](std::string_view method, std::string_view path) {
            std::lock_guard lock(*mu);
            *file << method << ' ' << path << '\n' << std::flush;
        });
    }
    // Reachable and authorised first, so the error says so rather than "not served".
    kube::RequestOptions probe;
    probe.maxRetries = 2;
    auto version = b->api->request("GET", "/version", {}, probe);
    if (!version.ok()) {
        error = "cannot reach the API server at " + rc.config->server + " (" + rc.config->origin + "): " +
                (version.status ? "HTTP " + std::to_string(version.status) + ": " + version.body.substr(0, 300)
                                : version.error);
        return nullptr;
    }
    std::string missing;
    auto resources = kube::discoverResources(*b->api, informedKinds(registry), missing);
    bool haveTrainJobs = std::any_of(resources.begin(), resources.end(), [](auto const& r) { return r.kind == "TrainJob"; });
    if (!haveTrainJobs) {
        error = "the API server at " + rc.config->server + " does not serve trainjobs.trainer.kubeflow.org (install " +
                "the CRDs from manifests/): " + missing;
        return nullptr;
    }
    if (!missing.empty()) setup.warn("Kinds the plugins build are not served; they are not watched", {{"kinds", missing}});
    if (cfg.leaderElect) {
        std::string leaseMissing;
        auto lease = kube::discoverResources(*b->api, {{"coordination.k8s.io/v1", "Lease"}}, leaseMissing);
        for (auto& l : lease) {
            l.ns = cfg.leaderElectionResourceNamespace;
            resources.push_back(l);
        }
    }
    b->informers = std::make_unique<kube::Informers>(*b->api, b->cache, resources);
    if (auto err = b->informers->start(); !err.empty()) {
        error = "listing from " + rc.config->server + ": " + err;
        return nullptr;
    }
    b->remote = std::make_unique<kube::RemoteStore>(*b->api, b->cache, resources);
    b->startGauges();
    setup.info("Watching the API server",
               {{"server", rc.config->server}, {"from", rc.config->origin}, {"kinds", static_cast<int64_t>(resources.size())}});
    return b;
}

}  // namespace trainer::core::cli
