// run: the operator on the embedded store — controllers, admission webhooks, health and
// metrics servers, structured logs; SIGTERM/SIGINT drain in-flight reconciles and exit 0.
// With leader election (the default) only the Lease holder runs the controllers; losing the
// lease stops them and exits 1, as controller-runtime does; SIGTERM releases it.
#include "core/api/admission.hpp"
#include "core/api/schema.hpp"
#include "core/cli/cli.hpp"
#include "core/cli/command_config.hpp"
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
#include "core/server/metrics.hpp"
#include "core/server/webhook.hpp"
#include "core/store/sqlite_store.hpp"

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/signal_set.hpp>

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
    auto validate = [&fw, &cluster](const srv::AdmissionRequest& req) {
        auto* obj = objectOf(req.object);
        if (!obj) return badObject();
        json::object copy = *obj;
        auto r = controller::admit(fw, copy, req.operation == "UPDATE" ? objectOf(req.oldObject) : nullptr, cluster,
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
    // Admission runs plugin code, which may hang: on the webhook server's worker pool (any
    // validator may be sent a TrainJob, whose admission runs CustomValidation).
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
    auto observer = [&metrics](const LoadedPlugin& p, Hook hook, double seconds, bool ok) {
        metrics.add("trainer_plugin_hook_calls_total", {p.name, hookName(hook)});
        if (!ok) metrics.add("trainer_plugin_hook_errors_total", {p.name, hookName(hook)});
        metrics.observe("trainer_plugin_hook_duration_seconds", {p.name, hookName(hook)}, seconds);
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
    log::Logger setup("setup");
    // Armed by the stop: bounds everything below that waits on a plugin call (run_safety.hpp).
    ShutdownWatchdog watchdog;
    const std::string plugins = args.has("plugin-dir") || cfg.pluginDirectory.empty() ? pluginDir(args) : cfg.pluginDirectory;

    auto& metrics = srv::defaultRegistry();
    srv::Health health;
    health.setReady("store", false, "store not open");
    health.setReady("plugins", false, "plugins not loaded");
    health.setReady("webhook", false, "webhook server not listening");

    boost::asio::io_context ioc;
    auto guard = boost::asio::make_work_guard(ioc);
    std::vector<std::unique_ptr<srv::HttpServer>> servers;
    std::unique_ptr<StatusServerWiring> statusServer;  // TrainJobStatus gate
    auto listen = [&](srv::ServerOptions o, std::vector<srv::Route> routes) -> bool {
        std::string name = o.name, addr = o.bindAddress;
        auto s = std::make_unique<srv::HttpServer>(ioc, std::move(o), std::move(routes));
        if (auto err = s->start(); !err.empty()) {
            setup.error("Unable to start server", {{"server", name}, {"address", addr}, {"error", err}});
            return false;
        }
        if (s->listening())
            setup.info("Serving", {{"server", name}, {"address", addr}, {"port", static_cast<int>(s->port())}});
        servers.push_back(std::move(s));
        return true;
    };
    auto stopServers = [&] {
        for (auto& s : servers) s->stop();
        if (statusServer) statusServer->stop();
    };

    // Health first: probes answer (not ready) while the rest starts.
    if (!cfg.healthProbeBindAddress.empty() &&
        !listen(serverOptions("health", cfg.healthProbeBindAddress),
                {probeRoute(cfg.livenessEndpointName, [&](bool v) { return health.healthz(v); }),
                 probeRoute(cfg.readinessEndpointName, [&](bool v) { return health.readyz(v); })}))
        return 1;
    // A signal during start-up is honoured once start-up is done.
    boost::asio::signal_set signals(ioc, SIGINT, SIGTERM);
    std::promise<void> stopSignal;
    std::shared_future<void> stopped = stopSignal.get_future().share();
    std::atomic<bool> stopRequested{false};
    auto requestStop = [&] {
        watchdog.arm(*grace);
        if (!stopRequested.exchange(true)) stopSignal.set_value();
    };
    signals.async_wait([&](const boost::system::error_code& ec, int sig) {
        if (ec) return;
        setup.info("Received signal; draining in-flight reconciles", {{"signal", sig}});
        requestStop();
    });
    std::vector<std::thread> ioThreads;
    for (int i = 0; i < 2; ++i) ioThreads.emplace_back([&] { ioc.run(); });
    auto joinIo = [&] {
        guard.reset();
        ioc.stop();
        for (auto& t : ioThreads) t.join();
    };
    auto fail = [&]() {
        stopServers();
        joinIo();
        return 1;
    };

    PluginRegistry registry;
    registry.setLogSink(loggerSink(log::Logger("plugin")));
    registry.setIsolationObserver([&metrics](const std::string& plugin, std::string_view event, std::string_view reason) {
        if (event == "failure") metrics.add("trainer_plugin_isolation_failures_total", {plugin, std::string(reason)});
        else if (event == "restart") metrics.add("trainer_plugin_isolation_restarts_total", {plugin});
        else if (event == "circuit") metrics.set("trainer_plugin_circuit_open", {plugin}, reason == "open" ? 1 : 0);
    });
    registry.loadDirectory(plugins, withShippedHashes(cfg.plugins));
    for (auto const& p : registry.plugins()) {
        metrics.add("trainer_plugin_load_total", {"loaded", "ok"});
        setup.info("Loaded plugin", {{"plugin", p->name}, {"version", p->version}, {"path", p->path}});
    }
    for (auto const& r : registry.rejected()) {
        metrics.add("trainer_plugin_load_total", {"rejected", r.code});
        setup.warn("Rejected plugin", {{"path", r.path}, {"reason", r.reason}, {"code", r.code}});
    }
    // A plugin call running longer than its plugins.callTimeout makes /readyz fail, naming it.
    addStuckCallCheck(health, [isolation = cfg.plugins.isolation](const std::string& plugin) {
        return isolation.limitsFor(plugin).callTimeout;
    });

    // The objects: the embedded store (and its Kubernetes API), or a cluster's API server.
    std::string backendError;
    auto objects = openObjects(args, cfg, ioc, registry, metrics, backendError);
    auto& backend = objects.backend;
    if (!backend) {
        setup.error(clusterMode(args) ? "Unable to reach the API server" : "Unable to open the store",
                    {{"error", backendError}});
        return fail();
    }
    Framework& framework = *objects.framework;
    health.setReady("plugins", true);
    Store& store = backend->store();
    health.setReady("store", true);

    // In a cluster the operator keeps its webhook certificate itself (upstream's certManagement).
    std::unique_ptr<WebhookCertManager> certManager;
    if (auto* client = backend->client(); client && cfg.certManagementEnable) {
        WebhookCertOptions o;
        o.ns = backend->operatorNamespace();
        o.service = cfg.webhookServiceName;
        o.secretName = cfg.webhookSecretName;
        if (!cfg.webhookCertDir.empty()) o.certDir = cfg.webhookCertDir;
        certManager = std::make_unique<WebhookCertManager>(*client, o);
        if (auto err = certManager->ensure(); !err.empty())
            setup.error("Webhook certificate management failed", {{"error", err}});
        if (std::filesystem::exists(std::filesystem::path(o.certDir) / "tls.crt")) cfg.webhookCertDir = o.certDir;
        certManager->start();
    }

    // Webhooks and HTTPS metrics need certificates.
    std::unique_ptr<srv::CertWatcher> certs;
    if (!cfg.webhookCertDir.empty()) {
        certs = std::make_unique<srv::CertWatcher>(cfg.webhookCertDir);
        certs->setTlsSettings(cfg.tls);
        if (auto err = certs->load(); !err.empty()) {
            setup.error("Unable to load the webhook certificates", {{"certDir", cfg.webhookCertDir}, {"error", err}});
            return fail();
        }
    }
    srv::WebhookServer webhooks(&metrics);
    registerWebhooks(webhooks, framework, store);
    if (certs) {
        std::string host = cfg.webhookHost.find(':') != std::string::npos ? "[" + cfg.webhookHost + "]" : cfg.webhookHost;
        auto o = serverOptions("webhook", host + ":" + std::to_string(cfg.webhookPort));
        o.tls = certs->provider();
        if (!listen(std::move(o), webhooks.routes()))
            return fail();
    } else {
        setup.info("No webhook certificate directory given; admission webhooks are not served");
    }
    health.setReady("webhook", true);

    srv::ServerOptions metricsOpts = serverOptions("metrics", cfg.metricsBindAddress);
    if (certs && cfg.metricsSecureServing) metricsOpts.tls = certs->provider();
    std::string metricsError;
    auto metricsRoute = metricsRouteOf(cfg, metrics, args, backend->client(), metricsError);
    if (!metricsRoute) {
        setup.error("Unable to guard /metrics", {{"error", metricsError}});
        return fail();
    }
    if (!listen(std::move(metricsOpts), {std::move(*metricsRoute)})) return fail();

    const auto stateDir = executor::executorStateDir(args.get("store", kDefaultStorePath));
    std::string statusError;
    statusServer = startStatusServer(
        ioc, {&cfg, &store, objects.operatorNamespace, stateDir, backend->client(), certs ? certs->provider() : nullptr},
        statusError);
    if (!statusError.empty()) {
        setup.error("Unable to start the status server (feature gate TrainJobStatus)", {{"error", statusError}});
        return fail();
    }

    controller::RealClock clock;
    controller::ManagerOptions mo;
    mo.trainJobWorkers = workers;
    std::unique_ptr<controller::InFlightSlots> inFlight;  // the poison-pill record; outlives the manager's reconciles
    controller::Manager manager(backend->controllerStore(), registry, framework, clock, &metrics, log::Logger(""), mo);
    // Embedded mode trains for real: the local executor runs the pods (core/executor/).
    std::unique_ptr<executor::LocalExecutor> local;
    if (!clusterMode(args) && args.get("local-executor", "true") == "true") {
        executor::LocalExecutorOptions lo;
        lo.stateDir = stateDir;
        if (statusServer) {
            lo.kubelet.tokenIssuer = statusServer->tokenIssuer;
            lo.kubelet.nodeHostNames = statusServer->nodeHostNames;
        }
        local = std::make_unique<executor::LocalExecutor>(store, backend->controllerStore(), clock, &metrics, lo);
    }
    std::string executorError;
    auto startControllers = [&] {
        // Opened by the leader only: a standby would misread the leader's live slots.
        std::string slotsError;
        inFlight = controller::InFlightSlots::open(inFlightFile(args, clusterMode(args)), slotsError);
        if (!inFlight)
            setup.warn("The in-flight record is off: a TrainJob whose build crashes the operator is built again after a restart",
                       {{"error", slotsError}});
        manager.setInFlightSlots(inFlight.get());
        manager.start();
        setup.info("Started the controllers", {{"workers", workers}});
        if (!local) return;
        executorError = local->start();
        if (!executorError.empty()) {
            setup.error("Unable to start the local executor; pass --local-executor=false to only build objects",
                        {{"error", executorError}});
            requestStop();
        }
    };
    auto stopControllers = [&] {
        manager.stop();
        if (local) local->stop();
    };
    int exitCode = 0;
    if (!cfg.leaderElect) {
        startControllers();
        stopped.wait();
        stopControllers();
    } else {
        // Only the leader reconciles; every replica serves probes, metrics and webhooks. On the
        // embedded store the Lease's renewals (every retryPeriod) are not synced each: every
        // contender shares this machine's store file, so a power failure that loses the last
        // renewal has ended its holder too.
        controller::LeaderElector elector(backend->controllerStore(), clock, leaderElectionOptions(cfg),
                                          log::Logger("leaderelection"), &metrics);
        auto wait = controller::stopWaitOn(stopped);
        if (elector.acquire(wait)) {
            startControllers();
            const bool stopping = elector.renew(wait);
            watchdog.arm(*grace);
            stopControllers();
            if (stopping) {
                elector.release();
            } else {
                setup.error("leader election lost", {{"lease", elector.describe()}});
                exitCode = 1;
            }
        }
    }
    stopServers();
    if (certManager) certManager->stop();
    backend->stop();
    joinIo();
    setup.info("Stopped");
    return executorError.empty() ? exitCode : 1;
}

}  // namespace trainer::core::cli
