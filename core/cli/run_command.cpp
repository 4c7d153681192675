// run: the operator on the embedded store — controllers, admission webhooks, health and
// metrics servers, structured logs; SIGTERM/SIGINT drain in-flight reconciles and exit 0.
// With leader election (the default) only the Lease holder runs the controllers; losing the
// lease stops them and exits 1, as controller-runtime does; SIGTERM releases it.
#include "core/api/admission.hpp"
#include "core/api/schema.hpp"
#include "core/cli/cli.hpp"
#include "core/cli/command_config.hpp"
#include "core/cli/hook_metrics.hpp"
#include "core/cli/run_backend.hpp"
#include "core/cli/run_safety.hpp"
#include "core/cli/status_server_wiring.hpp"
#include "core/cli/webhook_certs.hpp"
#include "core/cli/log_flags.hpp"
#include "core/cli/metrics_auth.hpp"
#include "core/controller/admission_control.hpp"
#include "core/controller/configuration.hpp"
#include "core/controller/in_flight_slots.hpp"
#include "core/controller/leader_election.hpp"
#include "core/controller/manager.hpp"
#include "core/executor/local_executor.hpp"
#include "core/executor/pod_logs.hpp"
#include "core/log/log.hpp"
#include "core/plugin/framework.hpp"
#include "core/plugin/log_sink.hpp"
#include "core/server/health.hpp"
#include "core/server/http.hpp"
#include "core/server/io_pool.hpp"
#include "core/server/metrics.hpp"
#include "core/server/webhook.hpp"
#include "core/store/sqlite_store.hpp"

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/signal_set.hpp>

#include <algorithm>
#include <atomic>
#include <charconv>
#include <filesystem>
#include <csignal>
#include <future>
#include <thread>

namespace trainer::core::cli {

namespace {

using controller::Configuration;
namespace srv = trainer::core::server;

// Flags override the file; returns error lines.
std::vector<std::string> applyFlags(const Args& args, Configuration& cfg, int& workers) {
    std::vector<std::string> errs;
    if (args.has("health-probe-bind-address")) cfg.healthProbeBindAddress = args.get("health-probe-bind-address");
    if (args.has("metrics-bind-address")) cfg.metricsBindAddress = args.get("metrics-bind-address");
    if (args.has("webhook-cert-dir")) cfg.webhookCertDir = args.get("webhook-cert-dir");
    if (args.has("webhook-cert-management")) {
        auto v = args.get("webhook-cert-management");
        if (v == "self" || v == "none") cfg.certManagementEnable = v == "self";
        else errs.push_back("--webhook-cert-management: must be self or none, got \"" + v + "\"");
    }
    if (args.has("webhook-port")) {
        if (auto p = parseInt(args.get("webhook-port"))) cfg.webhookPort = *p;
        else errs.push_back("--webhook-port: not an integer: \"" + args.get("webhook-port") + "\"");
    }
    if (args.has("local-executor")) {
        auto v = args.get("local-executor");
        if (v != "true" && v != "false") errs.push_back("--local-executor: must be true or false, got \"" + v + "\"");
        else if (v == "true" && clusterMode(args))
            errs.push_back("--local-executor: runs pods only on the embedded store (run --store), not against a cluster");
    }
    if (auto it = cfg.groupKindConcurrency.find(std::string(controller::kTrainJobGroupKind));
        it != cfg.groupKindConcurrency.end())
        workers = static_cast<int>(it->second);
    if (args.has("workers")) {
        auto n = parseInt(args.get("workers"));
        if (!n || *n < 1 || *n > 1024) errs.push_back("--workers: must be an integer between 1 and 1024");
        else workers = static_cast<int>(*n);
    }
    return errs;
}

controller::LeaderElectionOptions leaderElectionOptions(const Configuration& cfg) {
    controller::LeaderElectionOptions o;
    o.name = cfg.leaderElectionResourceName;
    o.ns = cfg.leaderElectionResourceNamespace;
    o.leaseDuration = cfg.leaseDuration;
    o.renewDeadline = cfg.renewDeadline;
    o.retryPeriod = cfg.retryPeriod;
    return o;
}

srv::ServerOptions serverOptions(std::string name, std::string bindAddress) {
    srv::ServerOptions o;
    o.name = std::move(name);
    o.bindAddress = std::move(bindAddress);
    return o;
}

srv::Route probeRoute(const std::string& name, std::function<srv::Response(bool)> fn) {
    std::string path = name.rfind('/', 0) == 0 ? name : "/" + name;
    return srv::Route{"GET", path, [fn](const srv::Request& r) { return fn(r.query.find("verbose") != std::string::npos); }};
}

std::vector<std::string> warningTexts(const Diagnostics& d) {
    std::vector<std::string> out;
    for (auto const& w : d.warnings) out.push_back(w.message);
    return out;
}

const json::object* objectOf(const json::value& v) { return v.is_object() ? &v.get_object() : nullptr; }

srv::AdmissionResponse badObject() {
    return srv::AdmissionResponse::denyMessage("the admission request carries no object");
}

void registerWebhooks(srv::WebhookServer& wh, const Framework& fw, const ClusterReader& cluster) {
    wh.handle(std::string(srv::kMutateTrainJobPath), std::string(srv::kMutateTrainJobName),
              [](const srv::AdmissionRequest& req) {
                  auto* obj = objectOf(req.object);
                  if (!obj) return badObject();
                  json::object mutated = *obj;
                  stampRuntimePatchTimes(mutated, req.operation == "UPDATE" ? objectOf(req.oldObject) : nullptr,
                                         formatRfc3339(std::chrono::system_clock::now()));
                  return srv::AdmissionResponse::patched(req.object, mutated);
              });
    // The validating webhooks judge with the API server's admission (controller::admit).
    auto validate = [&fw, &cluster](srv::AdmissionRequest& req) {
        if (!req.object.is_object()) return badObject();
        json::object obj = std::move(req.object.get_object());  // the handler's to consume (webhook.hpp)
        auto r = controller::admit(fw, obj, req.operation == "UPDATE" ? objectOf(req.oldObject) : nullptr, cluster,
                                   std::chrono::system_clock::now());
        auto d = r.all();
        if (r.readError) {  // could not read the cluster: an internal error to retry, not a denial
            srv::AdmissionResponse failed;
            failed.allowed = false;
            failed.code = 500;
            failed.reason = "InternalError";
            failed.message = *r.readError;
            return failed;
        }
        return d.ok() ? srv::AdmissionResponse::allow(warningTexts(d)) : srv::AdmissionResponse::deny(d.errors, warningTexts(d));
    };
    // Admission runs plugin code, which may hang: offload routes, guarded on the connections'
    // pool (core/server/io_pool.hpp; any validator may be sent a TrainJob, whose admission runs
    // CustomValidation).
    const bool runsPlugins = true;
    wh.handle(std::string(srv::kValidateTrainJobPath), std::string(srv::kValidateTrainJobName), validate, runsPlugins);
    auto runtimeHandler = validate;
    wh.handle(std::string(srv::kValidateTrainingRuntimePath), std::string(srv::kValidateTrainingRuntimeName), runtimeHandler,
              runsPlugins);
    wh.handle(std::string(srv::kValidateClusterTrainingRuntimePath), std::string(srv::kValidateClusterTrainingRuntimeName),
              runtimeHandler, runsPlugins);
}

// The Framework (with what plugins learn of the operator: its namespace, Service, gates) and the
// backend holding the objects. Cluster mode learns the namespace from the backend, the embedded
// backend needs the Framework for admission; members are destroyed backend first.
struct Objects {
    std::unique_ptr<Framework> framework;
    std::unique_ptr<RunBackend> backend;
    std::string operatorNamespace;
};

Objects openObjects(const Args& args, const Configuration& cfg, boost::asio::io_context& ioc, const PluginRegistry& registry,
                    srv::Registry& metrics, std::string& error) {
    auto hookMetrics = std::make_shared<const HookMetrics>(metrics, registry);
    auto observer = [hookMetrics](const LoadedPlugin& p, Hook hook, double seconds, bool ok) {
        hookMetrics->record(p, hook, seconds, ok);
    };
    Objects o;
    auto makeFramework = [&] {
        o.framework = std::make_unique<Framework>(registry, observer, operatorSettingsOf(cfg, o.operatorNamespace));
    };
    if (clusterMode(args)) {
        o.backend = openClusterBackend(args, cfg, registry, metrics, error);
        if (!o.backend) return o;
        o.operatorNamespace = o.backend->operatorNamespace();
        makeFramework();
    } else {
        o.operatorNamespace = cfg.leaderElectionResourceNamespace;
        makeFramework();
        o.backend = openEmbeddedBackend(args, ioc, registry, *o.framework, cfg.tls, error);
    }
    return o;
}

// The running operator: its parts as members in start-up order, so they are destroyed in the
// reverse order (what a part uses outlives it). run() starts them one by one (a failure stops
// what started and returns 1), reconciles until a signal or a lost lease, then stops them.
class RunProcess {
public:
    RunProcess(const Args& args, Configuration cfg, int workers, std::chrono::milliseconds grace)
        : args_(args), cfg_(std::move(cfg)), workers_(workers), grace_(grace),
          pluginDir_(args.has("plugin-dir") || cfg_.pluginDirectory.empty() ? pluginDir(args) : cfg_.pluginDirectory) {
        health_.setReady("store", false, "store not open");
        health_.setReady("plugins", false, "plugins not loaded");
        health_.setReady("webhook", false, "webhook server not listening");
    }

    int run() {
        // Health first: probes answer (not ready) while the rest starts.
        if (!startHealth()) return 1;
        startIo();
        loadPlugins();
        if (!openBackend() || !startWebhooks() || !startMetrics() || !startStatus()) return fail();
        makeControllers();
        const int exitCode = reconcileUntilStopped();
        stopServers();
        if (certManager_) certManager_->stop();
        objects_.backend->stop();
        joinIo();
        setup_.info("Stopped");
        return executorError_.empty() ? exitCode : 1;
    }

private:
    bool listen(srv::ServerOptions o, std::vector<srv::Route> routes) {
        std::string name = o.name, addr = o.bindAddress;
        o.connections = connections_.get();
        auto s = std::make_unique<srv::HttpServer>(ioc_, std::move(o), std::move(routes));
        if (auto err = s->start(); !err.empty()) {
            setup_.error("Unable to start server", {{"server", name}, {"address", addr}, {"error", err}});
            return false;
        }
        if (s->listening())
            setup_.info("Serving", {{"server", name}, {"address", addr}, {"port", static_cast<int>(s->port())}});
        servers_.push_back(std::move(s));
        return true;
    }

    void stopServers() {
        for (auto& s : servers_) s->stop();
        if (statusServer_) statusServer_->stop();
    }

    void joinIo() {
        guard_.reset();
        ioc_.stop();
        for (auto& t : ioThreads_) t.join();
        connections_->stop();  // as hard as ioc_'s: a connection waiting on a hung hook is dropped
        connections_->join();
    }

    int fail() {
        stopServers();
        joinIo();
        return 1;
    }

    void requestStop() {
        watchdog_.arm(grace_);
        if (!stopRequested_.exchange(true)) stopSignal_.set_value();
    }

    bool startHealth() {
        if (cfg_.healthProbeBindAddress.empty()) return true;
        return listen(serverOptions("health", cfg_.healthProbeBindAddress),
                      {probeRoute(cfg_.livenessEndpointName, [this](bool v) { return health_.healthz(v); }),
                       probeRoute(cfg_.readinessEndpointName, [this](bool v) { return health_.readyz(v); })});
    }

    // A signal during start-up is honoured once start-up is done.
    void startIo() {
        signals_ = std::make_unique<boost::asio::signal_set>(ioc_, SIGINT, SIGTERM);
        signals_->async_wait([this](const boost::system::error_code& ec, int sig) {
            if (ec) return;
            setup_.info("Received signal; draining in-flight reconciles", {{"signal", sig}});
            requestStop();
        });
        for (int i = 0; i < 2; ++i) ioThreads_.emplace_back([this] { ioc_.run(); });
    }

    void loadPlugins() {
        registry_.setLogSink(loggerSink(log::Logger("plugin")));
        registry_.setIsolationObserver([&m = metrics_](const std::string& plugin, std::string_view event, std::string_view reason) {
            if (event == "failure") m.add("trainer_plugin_isolation_failures_total", {plugin, std::string(reason)});
            else if (event == "restart") m.add("trainer_plugin_isolation_restarts_total", {plugin});
            else if (event == "circuit") m.set("trainer_plugin_circuit_open", {plugin}, reason == "open" ? 1 : 0);
        });
        registry_.loadDirectory(pluginDir_, withShippedHashes(cfg_.plugins));
        for (auto const& p : registry_.plugins()) {
            metrics_.add("trainer_plugin_load_total", {"loaded", "ok"});
            setup_.info("Loaded plugin", {{"plugin", p->name}, {"version", p->version}, {"path", p->path}});
        }
        for (auto const& r : registry_.rejected()) {
            metrics_.add("trainer_plugin_load_total", {"rejected", r.code});
            setup_.warn("Rejected plugin", {{"path", r.path}, {"reason", r.reason}, {"code", r.code}});
        }
        // A plugin call running longer than its plugins.callTimeout makes /readyz fail, naming it.
        addStuckCallCheck(health_, [isolation = cfg_.plugins.isolation](const std::string& plugin) {
            return isolation.limitsFor(plugin).callTimeout;
        });
    }

    // The objects: the embedded store (and its Kubernetes API), or a cluster's API server.
    bool openBackend() {
        std::string error;
        objects_ = openObjects(args_, cfg_, ioc_, registry_, metrics_, error);
        if (!objects_.backend) {
            setup_.error(clusterMode(args_) ? "Unable to reach the API server" : "Unable to open the store", {{"error", error}});
            return false;
        }
        health_.setReady("plugins", true);
        health_.setReady("store", true);
        return true;
    }

    // In a cluster the operator keeps its webhook certificate itself (upstream's certManagement).
    void manageCertificate() {
        auto* client = objects_.backend->client();
        if (!client || !cfg_.certManagementEnable) return;
        WebhookCertOptions o;
        o.ns = objects_.backend->operatorNamespace();
        o.service = cfg_.webhookServiceName;
        o.secretName = cfg_.webhookSecretName;
        if (!cfg_.webhookCertDir.empty()) o.certDir = cfg_.webhookCertDir;
        certManager_ = std::make_unique<WebhookCertManager>(*client, o);
        if (auto err = certManager_->ensure(); !err.empty())
            setup_.error("Webhook certificate management failed", {{"error", err}});
        if (std::filesystem::exists(std::filesystem::path(o.certDir) / "tls.crt")) cfg_.webhookCertDir = o.certDir;
        certManager_->start();
    }

    // Webhooks and HTTPS metrics need certificates.
    bool startWebhooks() {
        manageCertificate();
        if (!cfg_.webhookCertDir.empty()) {
            certs_ = std::make_unique<srv::CertWatcher>(cfg_.webhookCertDir);
            certs_->setTlsSettings(cfg_.tls);
            if (auto err = certs_->load(); !err.empty()) {
                setup_.error("Unable to load the webhook certificates", {{"certDir", cfg_.webhookCertDir}, {"error", err}});
                return false;
            }
        }
        registerWebhooks(webhooks_, *objects_.framework, objects_.backend->store());
        if (certs_) {
            std::string host = cfg_.webhookHost.find(':') != std::string::npos ? "[" + cfg_.webhookHost + "]" : cfg_.webhookHost;
            auto o = serverOptions("webhook", host + ":" + std::to_string(cfg_.webhookPort));
            o.tls = certs_->provider();
            if (!listen(std::move(o), webhooks_.routes())) return false;
        } else {
            setup_.info("No webhook certificate directory given; admission webhooks are not served");
        }
        health_.setReady("webhook", true);
        return true;
    }

    bool startMetrics() {
        srv::ServerOptions o = serverOptions("metrics", cfg_.metricsBindAddress);
        if (certs_ && cfg_.metricsSecureServing) o.tls = certs_->provider();
        std::string error;
        auto route = metricsRouteOf(cfg_, metrics_, args_, objects_.backend->client(), error);
        if (!route) {
            setup_.error("Unable to guard /metrics", {{"error", error}});
            return false;
        }
        return listen(std::move(o), {std::move(*route)});
    }

    // The TrainJobStatus feature gate's server.
    bool startStatus() {
        std::string error;
        statusServer_ = startStatusServer(ioc_,
                                          {&cfg_, &objects_.backend->store(), objects_.operatorNamespace, stateDir(),
                                           objects_.backend->client(), certs_ ? certs_->provider() : nullptr},
                                          error);
        if (error.empty()) return true;
        setup_.error("Unable to start the status server (feature gate TrainJobStatus)", {{"error", error}});
        return false;
    }

    std::filesystem::path stateDir() const { return executor::executorStateDir(args_.get("store", kDefaultStorePath)); }

    // The controllers and, on the embedded store, the local executor that runs the pods (core/executor/).
    void makeControllers() {
        controller::ManagerOptions mo;
        mo.trainJobWorkers = workers_;
        RunBackend& backend = *objects_.backend;
        manager_ = std::make_unique<controller::Manager>(backend.controllerStore(), registry_, *objects_.framework, clock_,
                                                         &metrics_, log::Logger(""), mo);
        if (clusterMode(args_) || args_.get("local-executor", "true") != "true") return;
        executor::LocalExecutorOptions lo;
        lo.stateDir = stateDir();
        if (statusServer_) {
            lo.kubelet.tokenIssuer = statusServer_->tokenIssuer;
            lo.kubelet.nodeHostNames = statusServer_->nodeHostNames;
        }
        local_ = std::make_unique<executor::LocalExecutor>(backend.store(), backend.controllerStore(), clock_, &metrics_, lo);
    }

    void startControllers() {
        // Opened by the leader only: a standby would misread the leader's live slots.
        std::string slotsError;
        inFlight_ = controller::InFlightSlots::open(inFlightFile(args_, clusterMode(args_)), slotsError);
        if (!inFlight_)
            setup_.warn("The in-flight record is off: a TrainJob whose build crashes the operator is built again after a restart",
                        {{"error", slotsError}});
        manager_->setInFlightSlots(inFlight_.get());
        manager_->start();
        setup_.info("Started the controllers", {{"workers", workers_}});
        if (!local_) return;
        executorError_ = local_->start();
        if (!executorError_.empty()) {
            setup_.error("Unable to start the local executor; pass --local-executor=false to only build objects",
                         {{"error", executorError_}});
            requestStop();
        }
    }

    void stopControllers() {
        manager_->stop();
        if (local_) local_->stop();
    }

    // Until a signal (exit 0) or, with leader election, a lost lease (exit 1). Only the leader
    // reconciles; every replica serves probes, metrics and webhooks. On the embedded store the
    // Lease's renewals (every retryPeriod) are not synced each: every contender shares this
    // machine's store file, so a power failure that loses the last renewal has ended its holder too.
    int reconcileUntilStopped() {
        if (!cfg_.leaderElect) {
            startControllers();
            stopped_.wait();
            stopControllers();
            return 0;
        }
        controller::LeaderElector elector(objects_.backend->controllerStore(), clock_, leaderElectionOptions(cfg_),
                                          log::Logger("leaderelection"), &metrics_);
        auto wait = controller::stopWaitOn(stopped_);
        if (!elector.acquire(wait)) return 0;
        startControllers();
        const bool stopping = elector.renew(wait);
        watchdog_.arm(grace_);
        stopControllers();
        if (stopping) {
            elector.release();
            return 0;
        }
        setup_.error("leader election lost", {{"lease", elector.describe()}});
        return 1;
    }

    const Args& args_;
    Configuration cfg_;
    const int workers_;
    const std::chrono::milliseconds grace_;
    log::Logger setup_{"setup"};
    // Armed by the stop: bounds everything below that waits on a plugin call (run_safety.hpp).
    ShutdownWatchdog watchdog_;
    const std::string pluginDir_;
    srv::Registry& metrics_ = srv::defaultRegistry();
    srv::Health health_;
    boost::asio::io_context ioc_;
    boost::asio::executor_work_guard<boost::asio::io_context::executor_type> guard_ = boost::asio::make_work_guard(ioc_);
    // The connections of the webhook, metrics and health servers (core/server/io_pool.hpp): their
    // handlers are quick, or admission, which runs guarded (a call that runs long hands its
    // thread's other connections to a stand-in). The embedded API's stay on strands of ioc_, where a list
    // of 100k objects serialised on one thread leaves the other serving. Stopped and joined
    // with ioc_ (joinIo).
    std::unique_ptr<srv::IoPool> connections_ = std::make_unique<srv::IoPool>(srv::IoPool::defaultThreads());
    std::vector<std::unique_ptr<srv::HttpServer>> servers_;
    std::unique_ptr<StatusServerWiring> statusServer_;  // TrainJobStatus gate
    std::unique_ptr<boost::asio::signal_set> signals_;
    std::promise<void> stopSignal_;
    std::shared_future<void> stopped_ = stopSignal_.get_future().share();
    std::atomic<bool> stopRequested_{false};
    std::vector<std::thread> ioThreads_;
    PluginRegistry registry_;
    Objects objects_;
    std::unique_ptr<WebhookCertManager> certManager_;
    std::unique_ptr<srv::CertWatcher> certs_;
    srv::WebhookServer webhooks_{&metrics_};
    controller::RealClock clock_;
    std::unique_ptr<controller::InFlightSlots> inFlight_;  // the poison-pill record; outlives the manager's reconciles
    std::unique_ptr<controller::Manager> manager_;
    std::unique_ptr<executor::LocalExecutor> local_;
    std::string executorError_;
};

}  // namespace

int cmdRun(const Args& args, Io& io) {
    // Logs first, so everything after is structured.
    log::Options logOpts;
    if (!parseLogFlags(args, io, logOpts)) return 1;
    Configuration cfg;
    if (!loadCommandConfiguration(args, io, cfg)) return 1;
    int workers = 1;
    auto flagErrors = applyFlags(args, cfg, workers);
    std::string graceError;
    const auto grace = gracefulShutdownTimeout(args, graceError);
    if (!grace) flagErrors.push_back(graceError);
    auto vd = controller::validateConfiguration(cfg);
    for (auto const& e : vd.errors) flagErrors.push_back(formatError(e).substr(7));
    if (!flagErrors.empty()) {
        for (auto const& e : flagErrors) io.err << "error: " << e << "\n";
        return 1;
    }
    log::init(logOpts);
    RunProcess process(args, std::move(cfg), workers, *grace);
    return process.run();
}

}  // namespace trainer::core::cli
