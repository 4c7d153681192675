// End-to-end: the in-process safety net (issue 12 item 2, issue 13 item 6) with the fault
// fixture plugins (test/core/plugin/fixtures/fault_fixture.cpp) beside the shipped ones, on the
// real binary: a fatal signal in a hook is reported with plugin, hook, TrainJob and backtrace
// and the process dies of that signal (render, validate, run); the restarted `run` marks the
// TrainJob PluginCrashed instead of crash-looping and builds the others; hung hooks leave
// probes, metrics, webhooks and the API serving, /readyz names them, and SIGTERM ends the
// process within the grace period.
#define BOOST_TEST_MODULE test_e2e_crash_safety
#include <boost/test/unit_test.hpp>

#include <boost/json.hpp>

#include "../support/process.hpp"

#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cctype>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <regex>
#include <thread>

namespace fs = std::filesystem;
namespace json = boost::json;
using namespace std::chrono_literals;
using trainer::test::Result;
using trainer::test::sh;
using trainer::test::slurp;
using trainer::test::TempDir;

namespace {

const std::string kBin = TRAINER_BIN;
const std::string kPlugins = TRAINER_PLUGIN_BUILD_DIR;
const std::string kFaults = TRAINER_FAULT_FIXTURE_DIR;
const std::string kRuntime = std::string(TRAINER_SOURCE_DIR) + "/examples/12-runtime-plain-with-initializers.yaml";

std::string quote(const std::string& s) { return "'" + s + "'"; }
bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

// The one place these tests say how the fault plugin runs: in the operator's own process,
// which is what they test (`plugins.perPlugin.<fixture>.isolation: inProcess`), with `extra`
// lines for that plugin (e.g. its callTimeout). Leader election is off so that a restarted
// operator need not wait for its dead predecessor's Lease.
std::string configYaml(const std::string& fixture, const std::string& extra = "") {
    return "apiVersion: config.trainer.kubeflow.org/v1alpha1\n"
           "kind: Configuration\n"
           "leaderElection: {leaderElect: false}\n"
           "plugins:\n"
           "  perPlugin:\n"
           "    fault-" + fixture + ":\n"
           "      isolation: inProcess\n" + extra;
}

// A plugin directory with copies of the shipped plugins (and their manifest) and fault_<f>.so:
// owned by us, files 0644, directory 0755 (the loader refuses symlinks leaving the directory).
fs::path pluginDir(const TempDir& t, const std::string& fault) {
    fs::path dir = t.path / ("plugins-" + fault);
    fs::create_directory(dir);
    ::chmod(dir.c_str(), 0755);
    auto copy = [&](const fs::path& from) {
        fs::copy_file(from, dir / from.filename(), fs::copy_options::overwrite_existing);
        ::chmod((dir / from.filename()).c_str(), 0644);
    };
    for (auto const& e : fs::directory_iterator(kPlugins))
        if (e.is_regular_file()) copy(e.path());
    fs::path fixture = fs::path(kFaults) / ("fault_" + fault + ".so");
    BOOST_REQUIRE_MESSAGE(fs::exists(fixture), fixture << " not built (target fault_fixtures)");
    copy(fixture);
    return dir;
}

// Process isolation (issue 12 item 1): the operator's default for a file not shipped with it.
std::string processConfigYaml() {
    return "apiVersion: config.trainer.kubeflow.org/v1alpha1\n"
           "kind: Configuration\n"
           "leaderElection: {leaderElect: false}\n"
           "plugins: {callTimeout: 20s}\n";
}

std::string trainJobYaml(const std::string& name) {
    return "apiVersion: trainer.kubeflow.org/v1alpha1\nkind: TrainJob\nmetadata:\n  name: " + name +
           "\n  namespace: default\nspec:\n  runtimeRef:\n    kind: TrainingRuntime\n    name: plain-with-initializers\n"
           "  trainer:\n    numNodes: 1\n";
}

json::object trainJobJson(const std::string& name) {
    return json::object{{"apiVersion", "trainer.kubeflow.org/v1alpha1"},
                        {"kind", "TrainJob"},
                        {"metadata", {{"name", name}, {"namespace", "default"}}},
                        {"spec", {{"runtimeRef", {{"name", "plain-with-initializers"}, {"kind", "TrainingRuntime"}}},
                                  {"trainer", {{"numNodes", 1}}}}}};
}

template <class Pred>
bool eventually(Pred p, std::chrono::milliseconds limit = 60s) {
    auto end = std::chrono::steady_clock::now() + limit;
    while (std::chrono::steady_clock::now() < end) {
        if (p()) return true;
        std::this_thread::sleep_for(100ms);
    }
    return p();
}

using trainer::test::freePort;

// A shell command in the background (its own process group, output discarded), killed when this goes.
class Background {
public:
    explicit Background(const std::string& cmd) {
        pid_ = ::fork();
        BOOST_REQUIRE(pid_ >= 0);
        if (pid_ == 0) {
            ::setpgid(0, 0);
            int devnull = ::open("/dev/null", O_RDWR);
            ::dup2(devnull, 0);
            ::dup2(devnull, 1);
            ::dup2(devnull, 2);
            ::execl("/bin/sh", "sh", "-c", cmd.c_str(), static_cast<char*>(nullptr));
            ::_exit(127);
        }
    }
    ~Background() {
        ::kill(-pid_, SIGKILL);
        ::kill(pid_, SIGKILL);
        ::waitpid(pid_, nullptr, 0);
    }

private:
    pid_t pid_ = -1;
};

// `trainer-operator run --store` as a child (no core dumps, no local executor), its log in a file.
class Operator {
public:
    Operator(const std::string& store, const std::string& log, std::vector<std::string> extra) : log_(log) {
        std::vector<std::string> args{kBin, "run", "--store", store, "--health-probe-bind-address", "127.0.0.1:0",
                                      "--metrics-bind-address", "127.0.0.1:0", "--local-executor=false"};
        args.insert(args.end(), extra.begin(), extra.end());
        pid_ = ::fork();
        BOOST_REQUIRE(pid_ >= 0);
        if (pid_ == 0) {
            rlimit none{0, 0};
            ::setrlimit(RLIMIT_CORE, &none);
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
    std::string log() const { return slurp(log_); }
    // The port a server logged ("server":"health" ... "port":N).
    unsigned short port(const std::string& server) {
        std::regex re("\"server\":\"" + server + "\"[^\\n]*\"port\":([0-9]+)");
        std::smatch m;
        std::string text;
        BOOST_REQUIRE_MESSAGE(eventually([&] {
                                  text = log();
                                  return std::regex_search(text, m, re);
                              }),
                              "server " << server << " never logged its port; log:\n" << text);
        return static_cast<unsigned short>(std::stoi(m[1]));
    }
    // The exit code (128+signal when killed) once it ends by itself, -1 if it is still running after `limit`.
    int waitExit(std::chrono::milliseconds limit) {
        int code = -1;
        eventually(
            [&] {
                int st = 0;
                if (pid_ <= 0 || ::waitpid(pid_, &st, WNOHANG) != pid_) return false;
                pid_ = -1;
                code = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
                return true;
            },
            limit);
        return code;
    }
    bool running() { return pid_ > 0 && ::waitpid(pid_, nullptr, WNOHANG) == 0; }
    void signal(int sig) { ::kill(pid_, sig); }

private:
    std::string log_;
    pid_t pid_ = -1;
};

Result cli(const std::string& store, const std::string& args) { return sh(kBin + " " + args + " --store " + quote(store)); }

json::value getJson(const std::string& store, const std::string& what) {
    auto r = cli(store, "get " + what + " -o json");
    return r.exit == 0 ? json::parse(r.out) : json::value();
}

}  // namespace

BOOST_AUTO_TEST_SUITE(crash_safety)

// Issue 13 item 6: every command that runs hooks reports a fatal signal in one.
BOOST_AUTO_TEST_CASE(render_and_validate_report_a_fatal_signal_with_plugin_hook_trainjob_and_backtrace) {
    struct Case {
        std::string fault;
        std::string command;
        int signal;
        std::string name;
    };
    const std::vector<Case> cases{{"segv", "render", SIGSEGV, "SIGSEGV"},
                                  {"abort", "render", SIGABRT, "SIGABRT"},
                                  {"segv", "validate", SIGSEGV, "SIGSEGV"}};
    for (auto const& c : cases) {
        BOOST_TEST_CONTEXT(c.command << " with fault-" << c.fault) {
            TempDir t;
            auto dir = pluginDir(t, c.fault);
            auto cfg = t.write("config.yaml", configYaml(c.fault));
            auto job = t.write("job.yaml", trainJobYaml("fault-render"));
            auto r = sh("ulimit -c 0; " + kBin + " " + c.command + " -f " + quote(kRuntime) + " -f " + quote(job.string()) +
                        " --plugin-dir " + quote(dir.string()) + " --config " + quote(cfg.string()));
            BOOST_TEST(r.exit == 128 + c.signal, r.err);
            BOOST_TEST(r.out.empty());
            // Admission runs first: CustomValidation is where the fixture faults.
            BOOST_TEST(contains(r.err, "trainer-operator: fatal signal " + c.name),  r.err);
            BOOST_TEST(contains(r.err, " in plugin fault-" + c.fault + ", hook CustomValidation, TrainJob default/fault-render\n"),
                       r.err);
            BOOST_TEST(contains(r.err, "trainer-operator: backtrace (most recent call first):\n"), r.err);
            // The plugin's frames are in the backtrace, its /proc/self/fd/N named by its file.
            BOOST_TEST(contains(r.err, " is " + (dir / ("fault_" + c.fault + ".so")).string() + "\n"), r.err);
        }
    }
    // A TrainJob the fixture leaves alone renders as usual with it loaded.
    TempDir t;
    auto dir = pluginDir(t, "segv");
    auto cfg = t.write("config.yaml", configYaml("segv"));
    auto job = t.write("job.yaml", trainJobYaml("calm"));
    auto ok = sh(kBin + " render -f " + quote(kRuntime) + " -f " + quote(job.string()) + " --plugin-dir " +
                 quote(dir.string()) + " --config " + quote(cfg.string()));
    BOOST_TEST(ok.exit == 0, ok.err);
    BOOST_TEST(contains(ok.out, "\"JobSet\""), ok.out);
}

// Issue 12 item 2: the crash is attributed, and the restarted operator does not crash-loop.
BOOST_AUTO_TEST_CASE(run_marks_the_trainjob_that_crashed_it_and_builds_the_others_after_the_restart) {
    TempDir t;
    const std::string store = t.file("store.db");
    auto dir = pluginDir(t, "segv");
    auto cfg = t.write("config.yaml", configYaml("segv"));
    t.write("jobs.yaml", trainJobYaml("good-1") + "---\n" + trainJobYaml("fault-crash"));
    // Stored through admission without the fixture (as if it were installed later).
    auto applied = cli(store, "apply -f " + quote(kRuntime) + " -f " + quote(t.file("jobs.yaml")) + " --plugin-dir " + kPlugins);
    BOOST_REQUIRE_MESSAGE(applied.exit == 0, applied.err);
    const std::vector<std::string> flags{"--plugin-dir", dir.string(), "--config", cfg.string(), "--api-bind-address", "0"};

    {
        Operator first(store, t.file("first.log"), flags);
        int code = first.waitExit(120s);
        BOOST_TEST(code == 128 + SIGSEGV, first.log());
        BOOST_TEST(contains(first.log(), "trainer-operator: fatal signal SIGSEGV (fault address 0x0) in plugin fault-segv, "
                                         "hook EnforcePodSpec, TrainJob default/fault-crash\n"),
                   first.log());
    }
    BOOST_TEST(fs::exists(store + ".inflight"));

    Operator second(store, t.file("second.log"), flags);
    auto failedReason = [&] {
        auto tj = getJson(store, "trainjob fault-crash");
        if (!tj.is_object()) return std::string();
        auto* st = tj.as_object().if_contains("status");
        if (!st || !st->is_object() || !st->as_object().contains("conditions")) return std::string();
        for (auto const& c : st->as_object().at("conditions").as_array())
            if (c.at("type") == "Failed" && c.at("status") == "True")
                return std::string(c.at("reason").as_string()) + ": " + std::string(c.at("message").as_string());
        return std::string();
    };
    std::string reason;
    BOOST_REQUIRE_MESSAGE(eventually([&] { return !(reason = failedReason()).empty(); }), second.log());
    BOOST_TEST(reason == "PluginCrashed: plugin fault-segv crashed the operator with SIGSEGV in hook EnforcePodSpec while "
                         "building generation 1 of this TrainJob; it is not built again until its spec changes");
    BOOST_TEST(contains(second.log(), "The previous operator process died of a fatal signal while reconciling a TrainJob"));
    BOOST_REQUIRE_MESSAGE(eventually([&] { return getJson(store, "jobset good-1").is_object(); }), second.log());
    // Other TrainJobs keep being built, and this one is not.
    t.write("more.yaml", trainJobYaml("good-2"));
    BOOST_REQUIRE(cli(store, "apply -f " + quote(t.file("more.yaml")) + " --plugin-dir " + kPlugins).exit == 0);
    BOOST_REQUIRE_MESSAGE(eventually([&] { return getJson(store, "jobset good-2").is_object(); }), second.log());
    BOOST_TEST(getJson(store, "jobset fault-crash").is_null());
    BOOST_TEST(second.running(), second.log());
    auto table = cli(store, "get trainjobs");
    BOOST_TEST(std::regex_search(table.out, std::regex("fault-crash +Failed")), table.out);
    second.signal(SIGTERM);
    BOOST_TEST(second.waitExit(60s) == 0, second.log());
}

// Hung hooks: probes, metrics, the webhooks that run no plugin code, the pool's free workers and
// the API's reads go on; /readyz names the stuck calls; SIGTERM ends the process after the grace
// period. (The fixture is not thread-safe, so once one of its calls hangs every later call of it
// waits for that one: those are stuck in its hook too, and /readyz lists them.)
BOOST_AUTO_TEST_CASE(hung_hooks_leave_the_servers_answering_readyz_names_them_and_sigterm_still_ends_the_process) {
    TempDir t;
    const std::string store = t.file("store.db");
    auto dir = pluginDir(t, "hang");
    auto cfg = t.write("config.yaml", configYaml("hang", "      callTimeout: 1s\n"));
    auto certs = sh(kBin + " certs --service-name trainer-webhook --namespace kubeflow-system --out-dir " + t.file("certs"));
    BOOST_REQUIRE_MESSAGE(certs.exit == 0, certs.err);
    t.write("jobs.yaml", trainJobYaml("fault-hang-build"));
    auto applied = cli(store, "apply -f " + quote(kRuntime) + " -f " + quote(t.file("jobs.yaml")) + " --plugin-dir " + kPlugins);
    BOOST_REQUIRE_MESSAGE(applied.exit == 0, applied.err);
    const auto webhookPort = std::to_string(freePort());
    Operator op(store, t.file("run.log"),
                {"--plugin-dir", dir.string(), "--config", cfg.string(), "--webhook-cert-dir",
                 t.file("certs"), "--webhook-port", webhookPort, "--api-bind-address", "127.0.0.1:0",
                 "--graceful-shutdown-timeout", "3s"});
    const std::string health = "http://127.0.0.1:" + std::to_string(op.port("health"));
    const std::string tls = "--cacert " + quote(t.file("certs/ca.crt")) + " ";
    const std::string webhook = "https://localhost:" + webhookPort;
    auto readyz = [&] { return sh("curl -sS -w '\\n%{http_code}' " + health + "/readyz?verbose").out; };

    // The controller's worker hangs in EnforcePodSpec.
    std::string ready;
    BOOST_REQUIRE_MESSAGE(eventually([&] {
                              ready = readyz();
                              return contains(ready, "[-]plugin-calls failed: plugin fault-hang, hook EnforcePodSpec, "
                                                     "TrainJob default/fault-hang-build, running for ");
                          }),
                          ready << "\n" << op.log());
    BOOST_TEST(contains(ready, "(longer than 1.0s)"), ready);
    BOOST_TEST(contains(ready, "\n500"), ready);

    // Three admission reviews (more than the two I/O threads) and an API create hang in CustomValidation.
    auto review = [](const std::string& uid, const json::object& obj) {
        return json::serialize(json::object{
            {"apiVersion", "admission.k8s.io/v1"},
            {"kind", "AdmissionReview"},
            {"request", {{"uid", uid},
                         {"kind", {{"group", "trainer.kubeflow.org"}, {"version", "v1alpha1"}, {"kind", "TrainJob"}}},
                         {"resource", {{"group", "trainer.kubeflow.org"}, {"version", "v1alpha1"}, {"resource", "trainjobs"}}},
                         {"name", obj.at("metadata").at("name")},
                         {"namespace", "default"},
                         {"operation", "CREATE"},
                         {"object", obj}}}});
    };
    t.write("hang-review.json", review("uid-hang", trainJobJson("fault-hang-admit")));
    t.write("calm-review.json", review("uid-calm", trainJobJson("calm")));
    json::object runtime = getJson(store, "trainingruntime plain-with-initializers").as_object();
    runtime["metadata"] = json::object{{"name", "calm-runtime"}, {"namespace", "default"}};
    runtime.erase("status");
    json::object runtimeReview = json::parse(review("uid-runtime", runtime)).as_object();
    runtimeReview["request"].as_object()["kind"].as_object()["kind"] = "TrainingRuntime";
    runtimeReview["request"].as_object()["resource"].as_object()["resource"] = "trainingruntimes";
    t.write("runtime-review.json", json::serialize(runtimeReview));
    t.write("hang-object.json", json::serialize(trainJobJson("fault-hang-api")));
    auto postReview = [&](const std::string& file, const std::string& path, int maxSeconds) {
        return "curl -sS --max-time " + std::to_string(maxSeconds) + " " + tls + "-H 'Content-Type: application/json' --data-binary @" + quote(t.file(file)) +
               " " + webhook + path;
    };
    std::vector<std::unique_ptr<Background>> hung;
    for (int i = 0; i < 3; ++i)
        hung.push_back(std::make_unique<Background>(postReview("hang-review.json", "/validate-trainer-kubeflow-org-v1alpha1-trainjob", 300)));
    std::smatch m;
    std::string log;
    const std::regex apiLine("\"Serving the Kubernetes API\"[^\\n]*\"address\":\"(https://[^\"]+)\"");
    BOOST_REQUIRE_MESSAGE(eventually([&] { return std::regex_search(log = op.log(), m, apiLine); }), log);
    const std::string api = m[1];
    std::string bearer = slurp(store + ".certs/token");
    while (!bearer.empty() && std::isspace(static_cast<unsigned char>(bearer.back()))) bearer.pop_back();
    const std::string token = "-H " + quote("Authorization: Bearer " + bearer) + " ";
    const std::string apiTls = "--cacert " + quote(store + ".certs/ca.crt") + " ";
    hung.push_back(std::make_unique<Background>("curl -sS --max-time 300 " + apiTls + token +
                                                "-H 'Content-Type: application/json' --data-binary @" +
                                                quote(t.file("hang-object.json")) + " " + api +
                                                "/apis/trainer.kubeflow.org/v1alpha1/namespaces/default/trainjobs"));
    BOOST_REQUIRE_MESSAGE(eventually([&] {
                              ready = readyz();
                              size_t n = 0;
                              for (size_t at = 0; (at = ready.find("hook CustomValidation, TrainJob default/fault-hang-", at)) !=
                                                  std::string::npos;
                                   ++at)
                                  ++n;
                              return n == 4;
                          }),
                          ready << "\n" << op.log());

    // Everything else answers.
    BOOST_TEST(sh("curl -sS --max-time 30 " + health + "/healthz").out == "ok");
    auto metrics = sh("curl -sS --max-time 30 " + tls + "https://localhost:" + std::to_string(op.port("metrics")) + "/metrics");
    BOOST_TEST(metrics.exit == 0, metrics.err);
    BOOST_TEST(contains(metrics.out, "trainer_plugin_hook_calls_total"), metrics.out.substr(0, 500));
    // A runtime's validation runs no plugin hook: the pool's fourth worker answers it.
    auto rt = sh(postReview("runtime-review.json", "/validate-trainer-kubeflow-org-v1alpha1-trainingruntime", 30));
    BOOST_TEST(contains(rt.out, "\"allowed\":true"), rt.out + rt.err);
    auto mutated = sh(postReview("calm-review.json", "/mutate-trainer-kubeflow-org-v1alpha1-trainjob", 30));
    BOOST_TEST(contains(mutated.out, "\"allowed\":true"), mutated.out + mutated.err);
    auto list = sh("curl -sS --max-time 30 " + apiTls + token + api + "/apis/trainer.kubeflow.org/v1alpha1/namespaces/default/trainjobs");
    BOOST_TEST(contains(list.out, "\"kind\":\"TrainJobList\""), list.out + list.err);
    BOOST_TEST(contains(list.out, "fault-hang-build"), list.out);

    // SIGTERM: the hung reconcile cannot finish; the grace period ends the process anyway.
    op.signal(SIGTERM);
    int code = op.waitExit(120s);
    BOOST_TEST(code == 1, op.log());
    BOOST_TEST(contains(op.log(), "\"msg\":\"Plugin call still running at the end of the shutdown grace period\""), op.log());
    BOOST_TEST(contains(op.log(), "\"msg\":\"Shutdown grace period expired; exiting without waiting any longer\""), op.log());
    BOOST_TEST(std::regex_search(op.log(), std::regex("still running[^\\n]*\"plugin\":\"fault-hang\",\"hook\":\"EnforcePodSpec\"")),
               op.log());
}

// Issue 12 item 1: the same fault in a plugin-host child costs the call, not the operator: the
// TrainJob gets an error naming the plugin and the hook, the others are built, /metrics counts it.
BOOST_AUTO_TEST_CASE(run_survives_a_crashing_process_isolated_plugin_and_reports_it_on_the_trainjob) {
    TempDir t;
    const std::string store = t.file("store.db");
    auto dir = pluginDir(t, "segv");
    auto cfg = t.write("config.yaml", processConfigYaml());
    t.write("jobs.yaml", trainJobYaml("good-1") + "---\n" + trainJobYaml("fault-child"));
    auto applied = cli(store, "apply -f " + quote(kRuntime) + " -f " + quote(t.file("jobs.yaml")) + " --plugin-dir " + kPlugins);
    BOOST_REQUIRE_MESSAGE(applied.exit == 0, applied.err);
    Operator op(store, t.file("op.log"), {"--plugin-dir", dir.string(), "--config", cfg.string(), "--api-bind-address", "0"});
    auto createdMessage = [&] {
        auto tj = getJson(store, "trainjob fault-child");
        auto* st = tj.is_object() ? tj.as_object().if_contains("status") : nullptr;
        auto* conds = st && st->is_object() ? st->as_object().if_contains("conditions") : nullptr;
        if (!conds || !conds->is_array()) return std::string();
        for (auto const& c : conds->as_array())
            if (c.at("type") == "Created" && c.at("status") == "False") return std::string(c.at("message").as_string());
        return std::string();
    };
    std::string message;
    BOOST_REQUIRE_MESSAGE(eventually([&] { return !(message = createdMessage()).empty(); }), op.log());
    // The first failure, or a retry's while the child restarts or its circuit is open: each names
    // the plugin, the hook and the crash.
    BOOST_TEST(contains(message, "plugin fault-segv failed in EnforcePodSpec: "), message);
    BOOST_TEST(contains(message, "plugin-host child was killed by SIGSEGV"), message);
    BOOST_REQUIRE_MESSAGE(eventually([&] { return getJson(store, "jobset good-1").is_object(); }), op.log());
    BOOST_TEST(getJson(store, "jobset fault-child").is_null());
    BOOST_TEST(op.running(), op.log());
    auto metrics = sh("curl -sS --max-time 30 http://127.0.0.1:" + std::to_string(op.port("metrics")) + "/metrics");
    BOOST_TEST(contains(metrics.out, "trainer_plugin_isolation_failures_total{plugin=\"fault-segv\",reason=\"crash\"}"),
               metrics.out);
    auto listed = sh(kBin + " plugins -o json --plugin-dir " + quote(dir.string()) + " --config " + quote(cfg.string()));
    BOOST_TEST(contains(listed.out, "\"isolation\": \"process\""), listed.out);
    op.signal(SIGTERM);
    BOOST_TEST(op.waitExit(60s) == 0, op.log());
}

BOOST_AUTO_TEST_SUITE_END()
