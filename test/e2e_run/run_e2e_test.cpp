#define BOOST_TEST_MODULE test_e2e_run
#include <boost/test/unit_test.hpp>

#include <boost/json.hpp>

#include "../support/micro_time.hpp"
#include "../support/process.hpp"
#include "../support/tools.hpp"
#include "../support/wait.hpp"

#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <thread>

namespace fs = std::filesystem;
namespace json = boost::json;
using namespace std::chrono_literals;

namespace {

const std::string kBin = TRAINER_BIN;
const std::string kPlugins = TRAINER_PLUGIN_BUILD_DIR;
const std::string kExamples = std::string(TRAINER_SOURCE_DIR) + "/examples";

using trainer::test::Result;
using trainer::test::slurp;
using trainer::test::TempDir;

std::string quote(const std::string& s) { return "'" + s + "'"; }

using trainer::test::sh;

// The CLI against one store.
Result cli(const std::string& store, const std::string& args) {
    return sh(kBin + " " + args + " --store " + quote(store));
}

using trainer::test::freePort;

// `trainer-operator run` as a child process; its log goes to a file. These tests check what the
// controller builds and stores, so the local executor is off (test/e2e_executor runs pods).
class Operator {
public:
    Operator(const std::string& store, const std::string& log, std::vector<std::string> extra = {}) : log_(log) {
        std::vector<std::string> args{kBin, "run", "--plugin-dir", kPlugins, "--store", store,
                                      "--health-probe-bind-address", "127.0.0.1:0", "--metrics-bind-address",
                                      "127.0.0.1:0", "--api-bind-address", "0", "--local-executor=false"};
        args.insert(args.end(), extra.begin(), extra.end());
        pid_ = ::fork();
        BOOST_REQUIRE(pid_ >= 0);
        if (pid_ == 0) {
            int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
            ::dup2(fd, 1);
            ::dup2(fd, 2);
            std::vector<char*> argv;
            for (auto& a : args) argv.push_back(a.data());
            argv.push_back(nullptr);
            ::execv(kBin.c_str(), argv.data());
            ::_exit(127);
        }
    }
    ~Operator() {
        if (pid_ > 0) {
            ::kill(pid_, SIGKILL);
            ::waitpid(pid_, nullptr, 0);
        }
    }
    // The port a server logged ("server":"health" ... "port":N), waiting for it.
    unsigned short port(const std::string& server) {
        std::regex re("\"server\":\"" + server + "\"[^\\n]*\"port\":([0-9]+)");
        std::smatch m;
        std::string text;
        if (trainer::test::waitFor([&] { return std::regex_search(text = slurp(log_), m, re); }))
            return static_cast<unsigned short>(std::stoi(m[1]));
        BOOST_FAIL("server " << server << " never logged its port; log:\n" << slurp(log_));
        return 0;
    }
    bool waitReady() {
        auto p = port("health");
        return trainer::test::waitFor(
            [&] { return sh("curl -sf http://127.0.0.1:" + std::to_string(p) + "/readyz").out == "ok"; });
    }
    // Sends `sig` and returns the exit code (128+signal when killed); -1, an error, and SIGKILL
    // when the process does not exit within the hang guard.
    int signal(int sig) {
        ::kill(pid_, sig);
        int code = waitExit(trainer::test::kEventBound);
        if (code == -1) {
            BOOST_ERROR("the operator did not exit after signal " << sig << "; log:\n" << log());
            ::kill(pid_, SIGKILL);
            ::waitpid(pid_, nullptr, 0);
            pid_ = -1;
        }
        return code;
    }
    // Stops (SIGSTOP) or resumes (SIGCONT) the process.
    void pause(bool stopped) { ::kill(pid_, stopped ? SIGSTOP : SIGCONT); }
    // Waits up to `limit` for the process to exit on its own; its exit code, or -1.
    int waitExit(std::chrono::milliseconds limit) {
        auto end = std::chrono::steady_clock::now() + limit;
        while (pid_ > 0 && std::chrono::steady_clock::now() < end) {
            int st = 0;
            if (::waitpid(pid_, &st, WNOHANG) == pid_) {
                pid_ = -1;
                return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
            }
            std::this_thread::sleep_for(20ms);
        }
        return -1;
    }
    std::string log() const { return slurp(log_); }

private:
    std::string log_;
    pid_t pid_ = -1;
};

json::array items(const std::string& store, const std::string& kind, bool all = false) {
    auto r = cli(store, "get " + kind + " -o json" + (all ? " -A" : ""));
    BOOST_REQUIRE_MESSAGE(r.exit == 0, r.err);
    return json::parse(r.out).at("items").as_array();
}

// Waits for the event `p` (test/support/wait.hpp: the bound is a hang guard).
template <class Pred>
bool eventually(Pred p, std::chrono::milliseconds limit = trainer::test::kEventBound) {
    return trainer::test::waitFor(p, limit, 100ms);
}

std::string trainJobYaml(const std::string& name) {
    return "apiVersion: trainer.kubeflow.org/v1alpha1\nkind: TrainJob\nmetadata:\n  name: " + name +
           "\n  namespace: default\nspec:\n  runtimeRef:\n    kind: TrainingRuntime\n    name: plain-with-initializers\n"
           "  trainer:\n    numNodes: 1\n";
}

}  // namespace

BOOST_AUTO_TEST_CASE(run_apply_get_delete_health_metrics_and_sigterm) {
    TempDir t;
    std::string store = t.file("store.db");
    Operator op(store, t.file("run.log"));
    BOOST_REQUIRE_MESSAGE(op.waitReady(), op.log());
    auto health = op.port("health");
    BOOST_TEST(sh("curl -sf http://127.0.0.1:" + std::to_string(health) + "/healthz").out == "ok");

    auto applied = cli(store, "apply -f " + kExamples + " --plugin-dir " + kPlugins);
    BOOST_REQUIRE_MESSAGE(applied.exit == 0, applied.err);
    BOOST_TEST(applied.out.find("trainjob.trainer.kubeflow.org/multi-node-example created") != std::string::npos);
    auto again = cli(store, "apply -f " + kExamples + " --plugin-dir " + kPlugins);
    BOOST_TEST(again.out.find("trainjob.trainer.kubeflow.org/multi-node-example unchanged") != std::string::npos);

    size_t trainJobs = items(store, "trainjobs").size();
    BOOST_TEST(trainJobs >= 3u);
    BOOST_TEST_MESSAGE("waiting for " << trainJobs << " JobSets");
    BOOST_REQUIRE_MESSAGE(eventually([&] { return items(store, "jobsets").size() == trainJobs; }), op.log());
    auto table = cli(store, "get trainjobs");
    BOOST_TEST(table.out.rfind("NAME", 0) == 0u);
    BOOST_TEST(table.out.find("multi-node-example") != std::string::npos);

    // get NAME -o json prints the object; absent → NotFound, exit 1.
    auto one = cli(store, "get jobset multi-node-example -o json");
    BOOST_TEST(one.exit == 0);
    BOOST_TEST(json::parse(one.out).at("kind") == "JobSet");
    auto missing = cli(store, "get trainjob nope -o json");
    BOOST_TEST(missing.exit == 1);
    BOOST_TEST(missing.err.find("Error from server (NotFound): trainjobs.trainer.kubeflow.org \"nope\" not found") !=
               std::string::npos);
    // -o name, as kubectl prints it.
    auto names = cli(store, "get trainjobs -o name");
    BOOST_TEST(names.exit == 0);
    BOOST_TEST(names.out.find("trainjob.trainer.kubeflow.org/multi-node-example\n") != std::string::npos, names.out);
    BOOST_TEST(cli(store, "get configmap multi-node-example-runtime-snapshot -o name").out ==
               "configmap/multi-node-example-runtime-snapshot\n");
    auto badKind = cli(store, "get trainjbos");
    BOOST_TEST(badKind.exit == 1);
    BOOST_TEST(badKind.err.find("did you mean") != std::string::npos);

    // Delete collects the children.
    auto del = cli(store, "delete trainjob plain-example");
    BOOST_TEST(del.exit == 0, del.err);
    BOOST_TEST(cli(store, "get jobset plain-example").exit == 1);
    BOOST_TEST(cli(store, "get configmap plain-example-runtime-snapshot").exit == 1);

    // Metrics with controller-runtime's names.
    auto metrics = sh("curl -sf http://127.0.0.1:" + std::to_string(op.port("metrics")) + "/metrics").out;
    for (auto const* name : {"controller_runtime_reconcile_total{controller=\"trainjob\",result=\"success\"}",
                             "controller_runtime_reconcile_time_seconds_bucket", "workqueue_depth{name=\"trainjob\"}",
                             "workqueue_adds_total{name=\"trainjob\"}", "controller_runtime_active_workers",
                             "trainer_plugin_load_total{outcome=\"loaded\"", "trainer_plugin_hook_calls_total{plugin=",
                             "trainer_plugin_hook_duration_seconds_bucket"})
        BOOST_TEST(metrics.find(name) != std::string::npos, name);

    // Log lines are JSON with zap's keys; reconcile lines carry controller, reconcileID, trainJob.
    bool sawReconcile = false;
    std::istringstream lines(op.log());
    for (std::string line; std::getline(lines, line);) {
        json::error_code ec;
        auto v = json::parse(line, ec);
        BOOST_REQUIRE_MESSAGE(!ec && v.is_object(), "not JSON: " << line);
        for (auto const* k : {"level", "ts", "caller", "msg"}) BOOST_TEST(v.as_object().contains(k), line);
        if (v.at("msg") == "Reconciled" && v.as_object().contains("trainJob"))
            sawReconcile = v.as_object().contains("reconcileID") && v.at("controller") == "trainjob";
    }
    BOOST_TEST(sawReconcile);
    BOOST_TEST(op.signal(SIGTERM) == 0);
}

BOOST_AUTO_TEST_CASE(apply_refuses_an_input_set_with_an_error_and_stores_nothing) {
    TempDir t;
    std::string store = t.file("store.db");
    std::ofstream(t.file("in.yaml")) << trainJobYaml("good") << "---\n"
                                     << "apiVersion: trainer.kubeflow.org/v1alpha1\nkind: TrainJob\nmetadata:\n"
                                        "  name: bad\nspec:\n  runtimeRef:\n    name: does-not-exist\n";
    auto r = cli(store, "apply -f " + kExamples + "/12-runtime-plain-with-initializers.yaml -f " + t.file("in.yaml") +
                            " --plugin-dir " + kPlugins);
    BOOST_TEST(r.exit == 1);
    BOOST_TEST(r.out.empty());
    BOOST_TEST(r.err.find("error: ") != std::string::npos);
    BOOST_TEST(r.err.find("spec.RuntimeRef") != std::string::npos, r.err);
    BOOST_TEST(items(store, "trainjobs").empty());
    BOOST_TEST(items(store, "trainingruntimes").empty());
}

BOOST_AUTO_TEST_CASE(webhooks_over_https_with_certs_output) {
    TempDir t;
    std::string store = t.file("store.db");
    auto certs = sh(kBin + " certs --service-name trainer-webhook --namespace kubeflow-system --out-dir " + t.file("certs"));
    BOOST_REQUIRE_MESSAGE(certs.exit == 0, certs.err);
    for (auto const* f : {"ca.crt", "tls.crt", "tls.key"}) BOOST_TEST(fs::exists(t.path / "certs" / f));
    BOOST_REQUIRE(cli(store, "apply -f " + kExamples + "/12-runtime-plain-with-initializers.yaml --plugin-dir " + kPlugins).exit == 0);
    auto port = freePort();
    Operator op(store, t.file("run.log"), {"--webhook-cert-dir", t.file("certs"), "--webhook-port", std::to_string(port)});
    BOOST_REQUIRE_MESSAGE(op.waitReady(), op.log());

    auto post = [&](const std::string& path, const json::value& review) {
        std::ofstream(t.file("review.json")) << json::serialize(review);
        auto r = sh("curl -sS --cacert " + t.file("certs/ca.crt") + " -H 'Content-Type: application/json' --data-binary @" +
                    t.file("review.json") + " https://localhost:" + std::to_string(port) + path);
        BOOST_REQUIRE_MESSAGE(r.exit == 0, r.err);
        return json::parse(r.out).at("response").as_object();
    };
    auto review = [](const std::string& uid, const std::string& kind, const std::string& resource, json::value obj) {
        return json::object{{"apiVersion", "admission.k8s.io/v1"},
                            {"kind", "AdmissionReview"},
                            {"request", json::object{{"uid", uid},
                                                     {"kind", {{"group", "trainer.kubeflow.org"}, {"version", "v1alpha1"}, {"kind", kind}}},
                                                     {"resource", {{"group", "trainer.kubeflow.org"}, {"version", "v1alpha1"}, {"resource", resource}}},
                                                     {"name", "x"},
                                                     {"namespace", "default"},
                                                     {"operation", "CREATE"},
                                                     {"object", std::move(obj)}}}};
    };
    json::object missing{{"apiVersion", "trainer.kubeflow.org/v1alpha1"},
                         {"kind", "TrainJob"},
                         {"metadata", {{"name", "x"}, {"namespace", "default"}}},
                         {"spec", {{"runtimeRef", {{"name", "missing"}, {"kind", "TrainingRuntime"}}}}}};
    auto denied = post("/validate-trainer-kubeflow-org-v1alpha1-trainjob", review("uid-1", "TrainJob", "trainjobs", missing));
    BOOST_TEST(denied.at("uid") == "uid-1");
    BOOST_TEST(denied.at("allowed") == false);
    std::string msg(denied.at("status").at("message").as_string());
    BOOST_TEST(msg.find("spec.runtimeRef") != std::string::npos, msg);
    BOOST_TEST(msg.find("specified trainingRuntime must be created before the TrainJob is created") != std::string::npos, msg);

    json::object good = missing;
    good["spec"].as_object()["runtimeRef"].as_object()["name"] = "plain-with-initializers";
    auto allowed = post("/validate-trainer-kubeflow-org-v1alpha1-trainjob", review("uid-2", "TrainJob", "trainjobs", good));
    BOOST_TEST(allowed.at("uid") == "uid-2");
    BOOST_TEST(allowed.at("allowed") == true);

    json::object patched = good;
    patched["spec"].as_object()["runtimePatches"] = json::array{json::object{{"manager", "example.com/m"}}};
    auto mutated = post("/mutate-trainer-kubeflow-org-v1alpha1-trainjob", review("uid-3", "TrainJob", "trainjobs", patched));
    BOOST_TEST(mutated.at("allowed") == true);
    BOOST_TEST(mutated.at("patchType") == "JSONPatch");
    BOOST_TEST(mutated.contains("patch"));

    auto rt = json::parse(cli(store, "get trainingruntime plain-with-initializers -o json").out).as_object();
    rt["metadata"].as_object().erase("resourceVersion");
    rt["spec"].as_object()["template"].as_object()["spec"].as_object()["replicatedJobs"].as_array()[0].as_object()["replicas"] = 2;
    auto rtDenied = post("/validate-trainer-kubeflow-org-v1alpha1-trainingruntime",
                         review("uid-4", "TrainingRuntime", "trainingruntimes", rt));
    BOOST_TEST(rtDenied.at("allowed") == false);
    BOOST_TEST(std::string(rtDenied.at("status").at("message").as_string()).find("always must be 1") != std::string::npos);

    // Malformed request: an error response, and the server keeps serving.
    auto bad = sh("curl -s -o /dev/null -w '%{http_code}' --cacert " + t.file("certs/ca.crt") +
                  " -H 'Content-Type: application/json' --data 'not json' https://localhost:" + std::to_string(port) +
                  "/validate-trainer-kubeflow-org-v1alpha1-trainjob");
    BOOST_TEST(bad.out == "400");
    BOOST_TEST(post("/validate-trainer-kubeflow-org-v1alpha1-trainjob", review("uid-5", "TrainJob", "trainjobs", good))
                   .at("allowed") == true);

    // Metrics are served over HTTPS with the same certificates.
    auto m = sh("curl -sf --cacert " + t.file("certs/ca.crt") + " https://localhost:" + std::to_string(op.port("metrics")) +
                "/metrics");
    BOOST_TEST(m.exit == 0);
    BOOST_TEST(m.out.find("controller_runtime_webhook_requests_total") != std::string::npos);
    BOOST_TEST(op.signal(SIGTERM) == 0);
}

BOOST_AUTO_TEST_CASE(kill_9_mid_work_loses_and_duplicates_nothing) {
    TempDir t;
    std::string store = t.file("store.db");
    const int n = 60;
    {
        std::ofstream out(t.file("jobs.yaml"));
        for (int i = 0; i < n; ++i) out << (i ? "---\n" : "") << trainJobYaml("job-" + std::to_string(i));
    }
    Operator first(store, t.file("run1.log"), {"--workers", "1"});
    BOOST_REQUIRE_MESSAGE(first.waitReady(), first.log());
    auto applied = cli(store, "apply -f " + kExamples + "/12-runtime-plain-with-initializers.yaml -f " + t.file("jobs.yaml") +
                                  " --plugin-dir " + kPlugins);
    BOOST_REQUIRE_MESSAGE(applied.exit == 0, applied.err);
    BOOST_REQUIRE(eventually([&] { return items(store, "jobsets").size() >= 3; }));
    BOOST_TEST(first.signal(SIGKILL) == 128 + SIGKILL);

    std::map<std::string, std::pair<std::string, int64_t>> before;  // name -> (resourceVersion, generation)
    for (auto const& js : items(store, "jobsets")) {
        auto const& md = js.at("metadata").as_object();
        before[std::string(md.at("name").as_string())] = {std::string(md.at("resourceVersion").as_string()),
                                                          md.at("generation").as_int64()};
    }
    BOOST_TEST_MESSAGE(before.size() << " JobSets built before the kill");

    Operator second(store, t.file("run2.log"), {"--workers", "2"});
    BOOST_REQUIRE_MESSAGE(second.waitReady(), second.log());
    BOOST_REQUIRE_MESSAGE(eventually([&] { return items(store, "jobsets").size() == size_t(n); }, 60s), second.log());
    BOOST_TEST(items(store, "trainjobs").size() == size_t(n));
    auto jobsets = items(store, "jobsets");
    std::set<std::string> names;
    for (auto const& js : jobsets) {
        auto const& md = js.at("metadata").as_object();
        std::string name(md.at("name").as_string());
        names.insert(name);
        BOOST_TEST(md.at("ownerReferences").as_array().size() == 1u);
        if (auto it = before.find(name); it != before.end()) {
            BOOST_TEST(std::string(md.at("resourceVersion").as_string()) == it->second.first, name);
            BOOST_TEST(md.at("generation").as_int64() == it->second.second, name);
        }
    }
    BOOST_TEST(names.size() == size_t(n));
    size_t snapshots = 0;
    for (auto const& cm : items(store, "configmaps"))
        if (std::string(cm.at("metadata").at("name").as_string()).ends_with("-runtime-snapshot")) ++snapshots;
    BOOST_TEST(snapshots == size_t(n));
    // SQLite's own checker (the sqlite3 shell, scripts/setup.sh installs it; missing fails the test).
    trainer::test::requireTool("sqlite3");
    auto integrity = sh("sqlite3 " + quote(store) + " 'PRAGMA integrity_check'");
    BOOST_TEST(integrity.exit == 0, integrity.err);
    BOOST_TEST(integrity.out == "ok\n");
    BOOST_TEST(second.signal(SIGTERM) == 0);
}

namespace {

bool logs(const Operator& op, const std::string& msg) { return op.log().find("\"msg\":\"" + msg + "\"") != std::string::npos; }

// The identity an operator logged when it acquired the lease.
std::string leaderIdentity(const Operator& op) {
    std::smatch m;
    std::string text = op.log();
    static const std::regex re("\"msg\":\"successfully acquired lease\"[^\\n]*\"identity\":\"([^\"]+)\"");
    return std::regex_search(text, m, re) ? m[1].str() : "";
}

json::object leaseSpec(const std::string& store) {
    auto r = cli(store, "get lease trainer.kubeflow.org -n kubeflow-system -o json");
    BOOST_REQUIRE_MESSAGE(r.exit == 0, r.err);
    return json::parse(r.out).at("spec").as_object();
}

std::string holder(const std::string& store) { return std::string(leaseSpec(store).at("holderIdentity").as_string()); }

double leaderGauge(Operator& op) {
    auto m = sh("curl -sf http://127.0.0.1:" + std::to_string(op.port("metrics")) + "/metrics").out;
    std::smatch match;
    static const std::regex re("\nleader_election_master_status\\{name=\"trainer.kubeflow.org\"\\} ([0-9.]+)");
    BOOST_REQUIRE_MESSAGE(std::regex_search(m, match, re), m);
    return std::stod(match[1]);
}

bool built(const std::string& store, const std::string& name) { return cli(store, "get jobset " + name).exit == 0; }

size_t count(const std::string& text, const std::string& needle) {
    size_t n = 0;
    for (auto p = text.find(needle); p != std::string::npos; p = text.find(needle, p + 1)) ++n;
    return n;
}

using trainer::test::microTime;

}  // namespace

// Two `run` processes on one store: only the Lease holder reconciles; SIGKILL of the leader →
// the standby takes over once the lease expired; SIGTERM releases it → takeover without waiting
// for expiry; a leader whose lease is taken exits 1. No wall-clock window is asserted: "only
// once expired" is read off the Lease (the new acquireTime is at least the dead holder's last
// renewTime + leaseDuration, which the record states), "without waiting" by a released lease
// that would otherwise hold for an hour, and "the standby never reconciled" by the order of its
// log lines. The timings themselves are the fake-clock unit tests' (leader_election_test.cpp).
BOOST_AUTO_TEST_CASE(leader_election_one_reconciler_and_takeovers) {
    TempDir t;
    std::string store = t.file("store.db");
    auto config = [&](const std::string& file, const std::string& leaseDuration) {
        std::ofstream(t.file(file)) << "apiVersion: config.trainer.kubeflow.org/v1alpha1\nkind: Configuration\n"
                                       "leaderElection: {leaseDuration: " << leaseDuration
                                    << ", renewDeadline: 3s, retryPeriod: 500ms}\n";
        return std::vector<std::string>{"--config", t.file(file)};
    };
    const auto shortLease = config("short.yaml", "6s");  // a's lease expires 6 s after its last renewal
    const auto hourLease = config("hour.yaml", "1h");    // b's would hold for an hour unless released
    BOOST_REQUIRE(cli(store, "apply -f " + kExamples + "/12-runtime-plain-with-initializers.yaml --plugin-dir " + kPlugins).exit == 0);

    auto a = std::make_unique<Operator>(store, t.file("a.log"), shortLease);
    BOOST_REQUIRE_MESSAGE(a->waitReady(), a->log());
    BOOST_REQUIRE_MESSAGE(eventually([&] { return logs(*a, "successfully acquired lease"); }), a->log());
    Operator b(store, t.file("b.log"), hourLease);
    BOOST_REQUIRE_MESSAGE(b.waitReady(), b.log());  // a standby is ready: it serves probes, metrics, webhooks
    BOOST_REQUIRE_MESSAGE(eventually([&] { return logs(b, "new leader elected"); }), b.log());
    BOOST_TEST(logs(b, "attempting to acquire leader lease"));
    BOOST_TEST(!logs(b, "successfully acquired lease"));
    BOOST_TEST(holder(store) == leaderIdentity(*a));
    BOOST_TEST(leaderIdentity(*a).rfind('_') != std::string::npos);
    BOOST_TEST(leaderGauge(*a) == 1);
    BOOST_TEST(leaderGauge(b) == 0);

    std::ofstream(t.file("before.yaml")) << trainJobYaml("before-kill");
    BOOST_REQUIRE(cli(store, "apply -f " + t.file("before.yaml") + " --plugin-dir " + kPlugins).exit == 0);
    BOOST_REQUIRE_MESSAGE(eventually([&] { return built(store, "before-kill"); }), a->log());
    BOOST_TEST(count(a->log(), "\"msg\":\"Reconciled\"") > 0u);

    // SIGKILL: nothing releases the lease. Both are paused first, so the record read is a's
    // last renewal and nobody has moved it since; b then takes it once it has expired.
    a->pause(true);
    b.pause(true);
    auto last = leaseSpec(store);
    BOOST_REQUIRE(json::value_to<std::string>(last.at("holderIdentity")) == leaderIdentity(*a));
    const auto expiry = microTime(last.at("renewTime")) +
                        std::chrono::seconds(last.at("leaseDurationSeconds").to_number<int64_t>());
    BOOST_TEST(a->signal(SIGKILL) == 128 + SIGKILL);
    b.pause(false);
    std::ofstream(t.file("after.yaml")) << trainJobYaml("after-kill");
    BOOST_REQUIRE(cli(store, "apply -f " + t.file("after.yaml") + " --plugin-dir " + kPlugins).exit == 0);
    BOOST_REQUIRE_MESSAGE(eventually([&] { return logs(b, "successfully acquired lease"); }), b.log());
    auto taken = leaseSpec(store);
    BOOST_TEST(json::value_to<std::string>(taken.at("holderIdentity")) == leaderIdentity(b));
    BOOST_TEST((microTime(taken.at("acquireTime")) >= expiry), "acquired at " << taken.at("acquireTime")
                                                                            << ", before the lease expired: " << last);
    BOOST_TEST(taken.at("leaseTransitions") == 1);
    BOOST_TEST(taken.at("leaseDurationSeconds") == 3600);
    BOOST_REQUIRE_MESSAGE(eventually([&] { return built(store, "after-kill"); }), b.log());
    BOOST_TEST(leaderGauge(b) == 1);
    // The standby reconciled nothing while it waited: its first Reconciled follows its acquisition.
    const auto bLog = b.log();
    const auto acquired = bLog.find("\"msg\":\"successfully acquired lease\"");
    BOOST_TEST_REQUIRE(logs(b, "Started the controllers"), bLog);
    BOOST_TEST(bLog.find("\"msg\":\"Started the controllers\"") > acquired, bLog);
    BOOST_TEST(bLog.find("\"msg\":\"Reconciled\"") > acquired, bLog);

    // SIGTERM: b drains and releases its hour-long lease (holderIdentity ""); c takes over at its next try.
    Operator c(store, t.file("c.log"), shortLease);
    BOOST_REQUIRE_MESSAGE(c.waitReady(), c.log());
    BOOST_REQUIRE_MESSAGE(eventually([&] { return logs(c, "new leader elected"); }), c.log());
    BOOST_TEST(b.signal(SIGTERM) == 0);
    BOOST_TEST(logs(b, "released lease"));
    BOOST_REQUIRE_MESSAGE(eventually([&] { return logs(c, "successfully acquired lease"); }),
                          "c did not take over a released lease (unreleased, it would hold for an hour):\n" << c.log());
    BOOST_TEST(holder(store) == leaderIdentity(c));
    BOOST_TEST(leaseSpec(store).at("leaseTransitions") == 2);
    std::ofstream(t.file("term.yaml")) << trainJobYaml("after-term");
    BOOST_REQUIRE(cli(store, "apply -f " + t.file("term.yaml") + " --plugin-dir " + kPlugins).exit == 0);
    BOOST_REQUIRE_MESSAGE(eventually([&] { return built(store, "after-term"); }), c.log());

    // Someone else holding the lease: c stops reconciling and exits non-zero, like controller-runtime.
    auto now = cli(store, "get lease trainer.kubeflow.org -n kubeflow-system -o json");
    auto lease = json::parse(now.out).as_object();
    auto& spec = lease["spec"].as_object();
    spec["holderIdentity"] = "intruder";
    spec["leaseDurationSeconds"] = 3600;
    lease["metadata"].as_object().erase("resourceVersion");
    std::ofstream(t.file("steal.json")) << json::serialize(lease);
    auto stolen = cli(store, "apply -f " + t.file("steal.json"));
    BOOST_REQUIRE_MESSAGE(stolen.exit == 0, stolen.err);
    BOOST_TEST(c.waitExit(trainer::test::kEventBound) == 1, c.log());
    BOOST_TEST(logs(c, "lost lease"));
    BOOST_TEST(holder(store) == "intruder");

    // A standby stops on SIGTERM, exit 0, having never reconciled (the lease is the intruder's
    // for an hour: waiting for it would never end).
    Operator d(store, t.file("d.log"), shortLease);
    BOOST_REQUIRE_MESSAGE(d.waitReady(), d.log());
    BOOST_REQUIRE_MESSAGE(eventually([&] { return logs(d, "new leader elected"); }), d.log());
    BOOST_TEST(d.signal(SIGTERM) == 0);
    BOOST_TEST(!logs(d, "Started the controllers"));
    BOOST_TEST(count(d.log(), "\"msg\":\"Reconciled\"") == 0u);
    BOOST_TEST(holder(store) == "intruder");
}

// `leaderElection: {leaderElect: false}` runs the controllers at once and writes no Lease.
BOOST_AUTO_TEST_CASE(leader_election_can_be_disabled) {
    TempDir t;
    std::string store = t.file("store.db");
    std::ofstream(t.file("config.yaml")) << "apiVersion: config.trainer.kubeflow.org/v1alpha1\nkind: Configuration\n"
                                            "leaderElection: {leaderElect: false}\n";
    Operator op(store, t.file("run.log"), {"--config", t.file("config.yaml")});
    BOOST_REQUIRE_MESSAGE(op.waitReady(), op.log());
    BOOST_REQUIRE_MESSAGE(eventually([&] { return logs(op, "Started the controllers"); }), op.log());
    BOOST_TEST(!logs(op, "attempting to acquire leader lease"));
    BOOST_TEST(cli(store, "get lease trainer.kubeflow.org -n kubeflow-system").exit == 1);
    BOOST_TEST(op.signal(SIGTERM) == 0);
}

// Upstream's shipped controller Configuration (manifests/base/manager/controller_manager_config.yaml
// of kubeflow/trainer, copied into test/fixtures/upstream/config/), passed unchanged: the
// operator starts, elects itself on the Lease the file names (resourceNamespace "" = the
// operator's namespace), builds a TrainJob, and stops on SIGTERM. The flags only move the probe
// and metrics ports off the file's fixed :8081 / :8443, which parallel tests would share.
BOOST_AUTO_TEST_CASE(upstreams_shipped_configuration_starts_the_operator_unchanged) {
    TempDir t;
    std::string store = t.file("store.db");
    const std::string config = std::string(TRAINER_SHARED_DIR) + "/config/controller_manager_config.yaml";
    BOOST_REQUIRE(fs::exists(config));
    Operator op(store, t.file("run.log"), {"--config", config});
    BOOST_REQUIRE_MESSAGE(op.waitReady(), op.log());
    BOOST_REQUIRE_MESSAGE(eventually([&] { return logs(op, "Started the controllers"); }, 60s), op.log());
    auto lease = cli(store, "get lease trainer.kubeflow.org -n kubeflow-system -o json");
    BOOST_REQUIRE_MESSAGE(lease.exit == 0, lease.err);
    BOOST_TEST(json::parse(lease.out).at("spec").at("leaseDurationSeconds") == 15);
    auto applied = cli(store, "apply -f " + kExamples + "/12-runtime-plain-with-initializers.yaml -f " +
                                  kExamples + "/22-trainjob-plain-initializers.yaml --plugin-dir " + kPlugins);
    BOOST_REQUIRE_MESSAGE(applied.exit == 0, applied.err);
    BOOST_TEST(eventually([&] { return items(store, "jobsets").size() == 1u; }, 60s), op.log());
    // The TrainJobStatus gate is off (upstream's default): no status server on statusServer.port.
    BOOST_TEST(!logs(op, "Serving TrainJob status updates"), op.log());
    BOOST_TEST(op.signal(SIGTERM) == 0, op.log());
}

// metrics.auth.enabled on the embedded store: /metrics answers only the embedded API's admin
// token (<store>.certs/token, the kubeconfig's), as controller-runtime's filter answers:
// 401 "Unauthorized" without a token or with another one.
BOOST_AUTO_TEST_CASE(metrics_auth_admits_only_the_admin_token) {
    TempDir t;
    std::string store = t.file("store.db");
    std::ofstream(t.file("config.yaml")) << "apiVersion: config.trainer.kubeflow.org/v1alpha1\nkind: Configuration\n"
                                            "leaderElection: {leaderElect: false}\nmetrics: {auth: {enabled: true}}\n";
    Operator op(store, t.file("run.log"), {"--config", t.file("config.yaml")});
    BOOST_REQUIRE_MESSAGE(op.waitReady(), op.log());
    const std::string url = "http://127.0.0.1:" + std::to_string(op.port("metrics")) + "/metrics";
    auto token = slurp(store + ".certs/token");
    while (!token.empty() && (token.back() == '\n' || token.back() == '\r')) token.pop_back();
    BOOST_REQUIRE(!token.empty());
    auto get = [&](const std::string& header) {
        return sh("curl -s -o /dev/null -w '%{http_code}' " + (header.empty() ? "" : "-H " + quote(header) + " ") + url).out;
    };
    BOOST_TEST(get("") == "401");
    BOOST_TEST(get("Authorization: Bearer not-" + token) == "401");
    BOOST_TEST(get("Authorization: Bearer " + token) == "200");
    auto body = sh("curl -sf -H " + quote("Authorization: Bearer " + token) + " " + url).out;
    BOOST_TEST(body.find("controller_runtime_active_workers") != std::string::npos, body);
    BOOST_TEST(sh("curl -s " + url).out == "Unauthorized\n");
    BOOST_TEST(op.signal(SIGTERM) == 0, op.log());
}

// The Configuration's `tls` block reaches run's servers: with minVersion 1.3 the webhook server
// (and HTTPS metrics, same certificates) refuse a TLS 1.2 client and serve a TLS 1.3 one.
BOOST_AUTO_TEST_CASE(tls_min_version_applies_to_the_webhook_and_metrics_servers) {
    TempDir t;
    std::string store = t.file("store.db");
    auto certs = sh(kBin + " certs --service-name trainer-webhook --namespace kubeflow-system --out-dir " + t.file("certs"));
    BOOST_REQUIRE_MESSAGE(certs.exit == 0, certs.err);
    std::ofstream(t.file("config.yaml")) << "apiVersion: config.trainer.kubeflow.org/v1alpha1\nkind: Configuration\n"
                                            "leaderElection: {leaderElect: false}\ntls: {minVersion: \"1.3\"}\n";
    auto port = freePort();
    Operator op(store, t.file("run.log"),
                {"--config", t.file("config.yaml"), "--webhook-cert-dir", t.file("certs"), "--webhook-port", std::to_string(port)});
    BOOST_REQUIRE_MESSAGE(op.waitReady(), op.log());
    for (auto p : {port, op.port("metrics")}) {
        const std::string url = "https://localhost:" + std::to_string(p) + "/metrics";
        auto old = sh("curl -sS -o /dev/null --tlsv1.2 --tls-max 1.2 --cacert " + t.file("certs/ca.crt") + " " + url);
        BOOST_TEST(old.exit != 0, "TLS 1.2 was accepted on port " << p);
        auto current = sh("curl -sS -o /dev/null -w '%{http_code}' --tlsv1.3 --cacert " + t.file("certs/ca.crt") + " " + url);
        BOOST_TEST(current.exit == 0, current.err);
        BOOST_TEST(!current.out.empty());
    }
    BOOST_TEST(op.signal(SIGTERM) == 0, op.log());
}
