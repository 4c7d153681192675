// End-to-end: `trainer-operator run --kubeconfig K` (cluster mode: no store; informers and writes
// through a Kubernetes API server) against an API server it did not start — our own
// `trainer-operator apiserver` in another process, on a fixed port. kubectl v1.32 applies and
// inspects. Faults: the API server killed and restarted on the same store and port, its watch
// history compacted (--watch-retention), two controllers with leader election, kubeconfigs that
// cannot work. Every case starts its own processes in its own temporary directory.
#define BOOST_TEST_MODULE test_e2e_cluster
#include <boost/test/unit_test.hpp>

#include <boost/json.hpp>

#include "../support/micro_time.hpp"
#include "../support/process.hpp"
#include "../support/wait.hpp"

#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <optional>
#include <regex>
#include <string>
#include <thread>
#include <vector>

namespace fs = std::filesystem;
namespace json = boost::json;
using namespace std::chrono_literals;

namespace {

using trainer::test::Result;
using trainer::test::sh;
using trainer::test::slurp;
using trainer::test::TempDir;

const std::string kBin = TRAINER_BIN;
const std::string kPlugins = TRAINER_PLUGIN_BUILD_DIR;
const std::string kExamples = std::string(TRAINER_SOURCE_DIR) + "/examples";

// The five example TrainJobs (examples/2x-*.yaml).
const std::vector<std::string> kExampleJobs{"multi-node-example", "deepspeed-example", "plain-example", "gang-example",
                                            "volcano-example"};

// Leader election off: the cases about informers are not also about the Lease.
const std::string kNoElection =
    "apiVersion: config.trainer.kubeflow.org/v1alpha1\nkind: Configuration\nleaderElection: {leaderElect: false}\n";
// Short lease timings (core/controller/configuration.cpp field names).
const std::string kShortLease =
    "apiVersion: config.trainer.kubeflow.org/v1alpha1\nkind: Configuration\n"
    "leaderElection: {leaseDuration: 4s, renewDeadline: 3s, retryPeriod: 1s}\n";

std::string kubectlPath() {
    const char* e = std::getenv("KUBECTL");
    return e && *e ? e : "/usr/bin/kubectl";
}

// Single-quotes a word for /bin/sh.
std::string quote(const std::string& s) {
    std::string out = "'";
    for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return out + "'";
}

bool contains(const std::string& text, const std::string& needle) { return text.find(needle) != std::string::npos; }

std::string lower(std::string s) {
    for (auto& ch : s) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    return s;
}

std::string tail(const std::string& text, size_t n = 6000) { return text.size() > n ? text.substr(text.size() - n) : text; }

using trainer::test::microTime;

template <class Pred>
bool eventually(Pred p, std::chrono::milliseconds limit = 60s, std::chrono::milliseconds step = 500ms) {
    auto end = std::chrono::steady_clock::now() + limit;
    while (std::chrono::steady_clock::now() < end) {
        if (p()) return true;
        std::this_thread::sleep_for(step);
    }
    return p();
}

int exitCode(int st) { return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st); }

// A port nothing listens on now (bound to 0, read, closed).
using trainer::test::freePort;

// A child process in its own process group; stdout and stderr appended to one log file.
class Child {
public:
    Child(std::vector<std::string> args, const std::string& log) : log_(log) {
        pid_ = ::fork();
        BOOST_REQUIRE(pid_ >= 0);
        if (pid_ == 0) {
            ::setpgid(0, 0);
            int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
            ::dup2(fd, 1);
            ::dup2(fd, 2);
            std::vector<char*> argv;
            for (auto& a : args) argv.push_back(a.data());
            argv.push_back(nullptr);
            ::execvp(argv[0], argv.data());
            ::_exit(127);
        }
        ::setpgid(pid_, pid_);
    }
    ~Child() {
        if (pid_ > 0) {
            ::kill(-pid_, SIGKILL);
            ::waitpid(pid_, nullptr, 0);
        }
    }
    Child(const Child&) = delete;
    Child& operator=(const Child&) = delete;

    bool running() {
        if (pid_ <= 0) return false;
        int st = 0;
        if (::waitpid(pid_, &st, WNOHANG) != pid_) return true;
        pid_ = -1;
        exit_ = exitCode(st);
        return false;
    }
    // Sends `sig` and returns the exit code (128 + signal when killed); -1, an error and SIGKILL
    // when the process does not exit within the hang guard.
    int signal(int sig) {
        if (!running()) return exit_;
        ::kill(pid_, sig);
        if (waitExit(trainer::test::kEventBound) != -1) return exit_;
        BOOST_ERROR("process " << pid_ << " did not exit after signal " << sig << "; log:\n" << tail(log()));
        ::kill(-pid_, SIGKILL);
        ::waitpid(pid_, nullptr, 0);
        pid_ = -1;
        return exit_ = -1;
    }
    // SIGSTOP / SIGCONT: the process stops reading its sockets (and everything else) until resumed.
    void pause() { ::kill(pid_, SIGSTOP); }
    void resume() { ::kill(pid_, SIGCONT); }
    // Waits up to `limit` for the process to exit on its own: its exit code, or -1.
    int waitExit(std::chrono::milliseconds limit) {
        eventually([&] { return !running(); }, limit, 50ms);
        return running() ? -1 : exit_;
    }
    std::string log() const { return slurp(log_); }

private:
    std::string log_;
    pid_t pid_ = -1;
    int exit_ = -1;
};

// `trainer-operator apiserver` on a store in `dir`, at a fixed port (kept across restarts), and
// kubectl pointed at it.
class ApiServer {
public:
    ApiServer(const TempDir& dir, std::vector<std::string> extra = {})
        : dir_(dir), port_(freePort()), kubeconfig_(dir.file("kubeconfig")), extra_(std::move(extra)) {
        BOOST_REQUIRE_MESSAGE(fs::exists(kubectlPath()),
                              "kubectl not found at " << kubectlPath()
                                                      << " (kubectl >= 1.27, which scripts/setup.sh checks for; or set KUBECTL)");
        BOOST_REQUIRE_MESSAGE(fs::exists(kBin), "trainer-operator not built: " << kBin);
        fs::create_directories(dir.file("home"));
        start();
    }

    // Starts the process (again: same store, same port) and waits until /readyz answers ok.
    void start() {
        ++starts_;
        std::vector<std::string> args{kBin,          "apiserver", "--store", dir_.file("store.db"), "--plugin-dir",
                                      kPlugins,      "--api-bind-address", "127.0.0.1:" + std::to_string(port_),
                                      "--write-kubeconfig", kubeconfig_};
        args.insert(args.end(), extra_.begin(), extra_.end());
        proc_ = std::make_unique<Child>(args, logFile());
        BOOST_REQUIRE_MESSAGE(eventually([&] { return fs::exists(kubeconfig_) || !proc_->running(); }, 60s, 100ms) &&
                                  proc_->running(),
                              "apiserver (start " << starts_ << ") did not write " << kubeconfig_ << "; log:\n"
                                                  << tail(proc_->log()));
        Result last;
        BOOST_REQUIRE_MESSAGE(eventually([&] {
                                  last = kubectl("get --raw /readyz");
                                  return last.exit == 0 && last.out == "ok";
                              },
                                         60s, 250ms),
                              "apiserver (start " << starts_ << "): /readyz never answered ok: " << last.err << "\nlog:\n"
                                                  << tail(proc_->log()));
    }
    int kill9() { return proc_->signal(SIGKILL); }
    // Removes the kubeconfig so a restart's start() waits for the fresh one.
    void forgetKubeconfig() { fs::remove(kubeconfig_); }

    Result kubectl(const std::string& args) const { return sh(prefix() + " --request-timeout=30s " + args); }
    // kubectl reading a manifest from a string.
    Result kubectlStdin(const std::string& args, const std::string& manifest) const {
        auto file = dir_.write("stdin-" + std::to_string(++stdinFiles_) + ".yaml", manifest);
        return kubectl(args + " -f " + quote(file.string()));
    }
    std::optional<json::object> object(const std::string& resource, bool managedFields = false) const {
        auto r = kubectl("get " + resource + (managedFields ? " --show-managed-fields" : "") + " -o json");
        if (r.exit != 0) return std::nullopt;
        json::error_code ec;
        auto v = json::parse(r.out, ec);
        if (ec || !v.is_object()) return std::nullopt;
        return v.as_object();
    }
    bool exists(const std::string& resource) const { return kubectl("get " + resource + " -o name").exit == 0; }

    std::string log() const { return tail(proc_->log()); }
    unsigned short port() const { return port_; }
    const std::string& kubeconfig() const { return kubeconfig_; }
    std::string server() const { return "https://127.0.0.1:" + std::to_string(port_); }

private:
    std::string prefix() const {
        return "HOME=" + quote(dir_.file("home")) + " " + quote(kubectlPath()) + " --kubeconfig " + quote(kubeconfig_) +
               " --cache-dir " + quote(dir_.file("kube-cache"));
    }
    std::string logFile() const { return dir_.file("apiserver.log"); }

    const TempDir& dir_;
    unsigned short port_;
    std::string kubeconfig_;
    std::vector<std::string> extra_;
    std::unique_ptr<Child> proc_;
    int starts_ = 0;
    mutable int stdinFiles_ = 0;
};

// `trainer-operator run --kubeconfig K` (no --store) with its own log file.
class Operator {
public:
    // Its own webhook port and certificate directory (the operator's certManagement writes it;
    // the defaults, :9443 and /tmp/k8s-webhook-server/serving-certs, would be shared).
    Operator(const TempDir& dir, const ApiServer& api, const std::string& name, const std::string& config = "",
             const std::vector<std::string>& extra = {})
        : logFile_(dir.file(name + ".log")), certDir_(dir.file(name + "-certs")) {
        std::vector<std::string> args{kBin,
                                      "run",
                                      "--kubeconfig",
                                      api.kubeconfig(),
                                      "--plugin-dir",
                                      kPlugins,
                                      "--health-probe-bind-address",
                                      "127.0.0.1:0",
                                      "--metrics-bind-address",
                                      "127.0.0.1:0",
                                      "--webhook-port",
                                      std::to_string(freePort()),
                                      "--webhook-cert-dir",
                                      certDir_};
        if (!config.empty()) {
            auto file = dir.write(name + "-config.yaml", config);
            args.insert(args.end(), {"--config", file.string()});
        }
        args.insert(args.end(), extra.begin(), extra.end());
        proc_ = std::make_unique<Child>(args, logFile_);
    }

    std::string log() const { return slurp(logFile_); }
    bool logs(const std::string& msg) const { return contains(log(), "\"msg\":\"" + msg + "\""); }
    // How many lines with this message the log holds.
    size_t count(const std::string& msg) const {
        size_t n = 0;
        const std::string text = log(), needle = "\"msg\":\"" + msg + "\"";
        for (auto p = text.find(needle); p != std::string::npos; p = text.find(needle, p + 1)) ++n;
        return n;
    }
    // Where the first line with this message is in the log (npos: none), to order events.
    size_t first(const std::string& msg) const { return log().find("\"msg\":\"" + msg + "\""); }
    bool running() { return proc_->running(); }
    int signal(int sig) { return proc_->signal(sig); }
    void pause() { proc_->pause(); }
    void resume() { proc_->resume(); }

    // The port a server logged ("server":"metrics" ... "port":N), waiting for it.
    unsigned short port(const std::string& server) {
        std::regex re("\"server\":\"" + server + "\"[^\\n]*\"port\":([0-9]+)");
        std::smatch m;
        std::string text;
        eventually([&] {
            text = log();
            return std::regex_search(text, m, re) || !proc_->running();
        },
                   60s, 100ms);
        BOOST_REQUIRE_MESSAGE(std::regex_search(text, m, re), "server " << server << " never logged its port; log:\n"
                                                                        << tail(text));
        return static_cast<unsigned short>(std::stoi(m[1]));
    }
    // Whether probes serve and /readyz answers ok (false as soon as the process is gone).
    bool ready() {
        auto p = std::to_string(port("health"));
        eventually([&] { return !proc_->running() || sh("curl -sf http://127.0.0.1:" + p + "/readyz").out == "ok"; }, 60s,
                   200ms);
        return proc_->running() && sh("curl -sf http://127.0.0.1:" + p + "/readyz").out == "ok";
    }
    void waitReady() { BOOST_REQUIRE_MESSAGE(ready(), "the operator never became ready; log:\n" << tail(log())); }
    // /metrics: over HTTPS (the webhook certificate, which names 127.0.0.1) when the operator has
    // one, as controller-runtime's secure serving; else HTTP.
    std::string metrics() {
        std::string p = std::to_string(port("metrics"));
        bool tls = std::regex_search(log(), std::regex("\"server\":\"metrics\"[^\\n]*\"tls\":true"));
        return sh(tls ? "curl -sf --max-time 10 --cacert " + quote(certDir_ + "/ca.crt") + " https://127.0.0.1:" + p + "/metrics"
                      : "curl -sf --max-time 10 http://127.0.0.1:" + p + "/metrics")
            .out;
    }
    // The value of one gauge or counter line (`name{labels} value`), or nullopt.
    std::optional<double> metric(const std::string& nameAndLabels) {
        std::string text = metrics();
        auto at = text.find("\n" + nameAndLabels + " ");
        if (at == std::string::npos) return std::nullopt;
        return std::stod(text.substr(at + nameAndLabels.size() + 2));
    }
    // The identity this operator logged when it acquired the lease, or "".
    std::string leaderIdentity() const {
        static const std::regex re("\"msg\":\"successfully acquired lease\"[^\\n]*\"identity\":\"([^\"]+)\"");
        std::smatch m;
        std::string text = log();
        return std::regex_search(text, m, re) ? m[1].str() : "";
    }

private:
    std::string logFile_;
    std::string certDir_;
    std::unique_ptr<Child> proc_;
};

std::string trainJobYaml(const std::string& name, const std::string& runtime = "plain-with-initializers") {
    return "apiVersion: trainer.kubeflow.org/v1alpha1\nkind: TrainJob\nmetadata:\n  name: " + name +
           "\n  namespace: default\nspec:\n  runtimeRef:\n    kind: TrainingRuntime\n    name: " + runtime +
           "\n  trainer:\n    numNodes: 1\n";
}

// The examples' YAML files (not the README) in their own directory, for `kubectl apply -f DIR`.
std::string copyExamples(const TempDir& dir) {
    auto out = dir.file("examples");
    fs::create_directories(out);
    for (auto const& e : fs::directory_iterator(kExamples))
        if (e.path().extension() == ".yaml") fs::copy_file(e.path(), fs::path(out) / e.path().filename());
    return out;
}

// What an install puts in the cluster besides the CRDs: the operator's namespace (its Lease and
// webhook Secret live there) and the webhook configurations its certManagement injects a CA into.
void install(const ApiServer& api) {
    auto r = api.kubectl("create namespace kubeflow-system");
    BOOST_REQUIRE_MESSAGE(r.exit == 0, r.err);
    r = api.kubectl("apply --server-side -f " + quote(std::string(TRAINER_SOURCE_DIR) + "/manifests/manager/webhook_configurations.yaml"));
    BOOST_REQUIRE_MESSAGE(r.exit == 0, r.err);
}

void applyPlainRuntime(const ApiServer& api) {
    auto r = api.kubectl("apply --server-side -f " + quote(kExamples + "/12-runtime-plain-with-initializers.yaml"));
    BOOST_REQUIRE_MESSAGE(r.exit == 0, r.err);
}

void applyTrainJob(const ApiServer& api, const std::string& name) {
    auto r = api.kubectlStdin("apply --server-side", trainJobYaml(name));
    BOOST_REQUIRE_MESSAGE(r.exit == 0, "apply " << name << ": " << r.err);
}

bool hasJobSet(const ApiServer& api, const std::string& name) { return api.exists("jobsets.jobset.x-k8s.io/" + name); }

std::string str(const json::value* v) { return v && v->is_string() ? std::string(v->as_string()) : std::string(); }

// managedFields entries as "manager:operation:subresource".
std::vector<std::string> managers(const json::object& obj) {
    std::vector<std::string> out;
    auto const* md = obj.if_contains("metadata");
    auto const* mf = md && md->is_object() ? md->as_object().if_contains("managedFields") : nullptr;
    if (!mf || !mf->is_array()) return out;
    for (auto const& e : mf->as_array()) {
        if (!e.is_object()) continue;
        auto const& o = e.as_object();
        out.push_back(str(o.if_contains("manager")) + ":" + str(o.if_contains("operation")) + ":" +
                      str(o.if_contains("subresource")));
    }
    return out;
}

std::string joined(const std::vector<std::string>& v) {
    std::string out;
    for (auto const& s : v) out += s + " ";
    return out;
}

// The condition of `type` in status.conditions, or null.
const json::object* condition(const json::object& obj, const std::string& type) {
    auto const* st = obj.if_contains("status");
    auto const* cs = st && st->is_object() ? st->as_object().if_contains("conditions") : nullptr;
    if (!cs || !cs->is_array()) return nullptr;
    for (auto const& c : cs->as_array())
        if (c.is_object() && str(c.as_object().if_contains("type")) == type) return &c.as_object();
    return nullptr;
}

// The Events about a TrainJob (kubectl get events -o json, filtered here).
std::vector<json::object> eventsAbout(const ApiServer& api, const std::string& trainJob) {
    std::vector<json::object> out;
    auto list = api.object("events");
    if (!list || !list->contains("items") || !list->at("items").is_array()) return out;
    for (auto const& item : list->at("items").as_array()) {
        auto const* io = item.is_object() ? item.as_object().if_contains("involvedObject") : nullptr;
        if (io && io->is_object() && str(io->as_object().if_contains("kind")) == "TrainJob" &&
            str(io->as_object().if_contains("name")) == trainJob)
            out.push_back(item.as_object());
    }
    return out;
}

// One child the operator builds for a TrainJob: resource (kubectl's form) and owner.
struct Built {
    std::string resource;
    std::string owner;
};

std::vector<Built> exampleChildren() {
    std::vector<Built> out;
    for (auto const& job : kExampleJobs) {
        out.push_back({"jobsets.jobset.x-k8s.io/" + job, job});
        out.push_back({"configmap/" + job + "-runtime-snapshot", job});
    }
    out.push_back({"podgroups.scheduling.x-k8s.io/gang-example", "gang-example"});
    out.push_back({"podgroups.scheduling.volcano.sh/volcano-example", "volcano-example"});
    out.push_back({"configmap/deepspeed-example-mpi-hostfile", "deepspeed-example"});
    out.push_back({"secret/deepspeed-example-mpi-ssh-auth", "deepspeed-example"});
    return out;
}

// Whether `obj` names `uid` as its controlling owner.
bool controlledBy(const json::object& obj, const std::string& uid) {
    auto const* md = obj.if_contains("metadata");
    auto const* refs = md && md->is_object() ? md->as_object().if_contains("ownerReferences") : nullptr;
    if (!refs || !refs->is_array()) return false;
    for (auto const& r : refs->as_array()) {
        if (!r.is_object()) continue;
        auto const* c = r.as_object().if_contains("controller");
        if (str(r.as_object().if_contains("uid")) == uid && c && c->is_bool() && c->as_bool()) return true;
    }
    return false;
}

std::string uidOf(const ApiServer& api, const std::string& resource) {
    auto o = api.object(resource);
    BOOST_REQUIRE_MESSAGE(o.has_value(), resource << " not found");
    return str(o->at("metadata").as_object().if_contains("uid"));
}

// Metric lines of `name` as label text -> value (`name{resource="configmaps"} 3` -> {`resource="configmaps"`, 3}).
std::map<std::string, double> metricLines(const std::string& text, const std::string& name) {
    std::map<std::string, double> out;
    std::regex re("(^|\\n)" + name + "\\{([^}]*)\\} ([-+0-9.eE]+)");
    for (auto it = std::sregex_iterator(text.begin(), text.end(), re); it != std::sregex_iterator(); ++it)
        out[(*it)[2].str()] = std::stod((*it)[3].str());
    return out;
}

}  // namespace

// 1. The examples through the API server: JobSets, PodGroups, the MPI hostfile and SSH Secret,
// the runtime snapshots — server-side applied by field manager `trainer`, owned by their
// TrainJob; a TrainJob whose runtime is gone gets a Warning Event and a Created=False condition
// written through the status subresource; a finished JobSet completes its TrainJob.
BOOST_AUTO_TEST_CASE(examples_are_reconciled_through_the_api_server) {
    TempDir dir;
    ApiServer api(dir);
    install(api);

    // A TrainJob whose runtime is deleted before any controller saw it (admission refuses a
    // TrainJob naming a missing runtime, so the runtime exists when it is created).
    std::string doomed = slurp(kExamples + "/12-runtime-plain-with-initializers.yaml");
    doomed = std::regex_replace(doomed, std::regex("name: plain-with-initializers"), "name: doomed");
    BOOST_REQUIRE(contains(doomed, "name: doomed"));
    auto r = api.kubectlStdin("apply --server-side", doomed);
    BOOST_REQUIRE_MESSAGE(r.exit == 0, r.err);
    r = api.kubectlStdin("apply --server-side", trainJobYaml("orphan", "doomed"));
    BOOST_REQUIRE_MESSAGE(r.exit == 0, r.err);
    r = api.kubectl("delete trainingruntime doomed");
    BOOST_REQUIRE_MESSAGE(r.exit == 0, r.err);

    Operator op(dir, api, "run");
    op.waitReady();
    BOOST_REQUIRE_MESSAGE(eventually([&] { return op.logs("successfully acquired lease"); }), tail(op.log()));
    // certManagement put its CA into every webhook of both configurations.
    for (auto const* conf : {"validatingwebhookconfiguration/validator.trainer.kubeflow.org",
                             "mutatingwebhookconfiguration/defaulter.trainer.kubeflow.org"}) {
        auto bundles = api.kubectl(std::string("get ") + conf + " -o " +
                                   quote("jsonpath={range .webhooks[*]}[{.clientConfig.caBundle}]{end}"));
        BOOST_TEST(bundles.exit == 0, bundles.err);
        BOOST_TEST((!bundles.out.empty() && !contains(bundles.out, "[]")), conf << ": " << bundles.out);
    }
    r = api.kubectl("apply --server-side -f " + quote(copyExamples(dir)));
    BOOST_REQUIRE_MESSAGE(r.exit == 0, r.err);

    for (auto const& c : exampleChildren())
        BOOST_TEST_REQUIRE(eventually([&] { return api.exists(c.resource); }, 90s),
                           c.resource << " never appeared; operator log:\n"
                                      << tail(op.log()) << "\napiserver log:\n"
                                      << api.log());
    std::map<std::string, std::string> uids;
    for (auto const& job : kExampleJobs) uids[job] = uidOf(api, "trainjob/" + job);
    for (auto const& c : exampleChildren()) {
        auto obj = api.object(c.resource, true);
        BOOST_TEST_REQUIRE(obj.has_value(), c.resource);
        auto m = managers(*obj);
        BOOST_TEST((std::find(m.begin(), m.end(), "trainer:Apply:") != m.end()),
                   c.resource << " managedFields: " << joined(m));
        BOOST_TEST(controlledBy(*obj, uids[c.owner]), c.resource << " is not controlled by trainjob/" << c.owner);
    }
    BOOST_TEST(!hasJobSet(api, "orphan"));

    // The broken one: a Warning Event and a Created=False condition, written via /status.
    BOOST_TEST(eventually([&] {
                   for (auto const& e : eventsAbout(api, "orphan"))
                       if (str(e.if_contains("type")) == "Warning" &&
                           str(e.if_contains("reason")) == "TrainJobResourcesCreationFailed" &&
                           contains(str(e.if_contains("message")), "\"doomed\" not found"))
                           return true;
                   return false;
               }),
               "no Warning Event about trainjob/orphan; operator log:\n"
                   << tail(op.log()));
    auto table = api.kubectl("get events");
    BOOST_TEST(table.exit == 0, table.err);
    BOOST_TEST(std::regex_search(table.out, std::regex("Warning +TrainJobResourcesCreationFailed +trainjob/orphan ")),
               table.out);
    std::optional<json::object> orphan;
    BOOST_TEST(eventually([&] {
                   orphan = api.object("trainjob/orphan", true);
                   return orphan && condition(*orphan, "Created");
               }),
               "trainjob/orphan has no Created condition");
    if (orphan && condition(*orphan, "Created")) {
        auto const& c = *condition(*orphan, "Created");
        BOOST_TEST(str(c.if_contains("status")) == "False");
        BOOST_TEST(str(c.if_contains("reason")) == "TrainingRuntimeNotFound");
        auto m = managers(*orphan);
        BOOST_TEST((std::find_if(m.begin(), m.end(), [](auto const& s) { return s.ends_with(":Update:status"); }) != m.end()),
                   "no managedFields entry of a status-subresource update: " << joined(m));
    }

    // A JobSet that completes → its TrainJob is Complete (status through the status subresource).
    r = api.kubectl(
        "patch jobsets.jobset.x-k8s.io plain-example --subresource=status --type=merge -p " +
        quote(R"({"status":{"conditions":[{"type":"Completed","status":"True","reason":"AllJobsCompleted",)"
              R"("message":"jobset completed successfully","lastTransitionTime":"2025-01-01T00:00:00Z"}]}})"));
    BOOST_REQUIRE_MESSAGE(r.exit == 0, r.err);
    std::optional<json::object> done;
    BOOST_TEST(eventually([&] {
                   done = api.object("trainjob/plain-example", true);
                   auto const* c = done ? condition(*done, "Complete") : nullptr;
                   return c && str(c->if_contains("status")) == "True";
               }),
               "trainjob/plain-example never became Complete; operator log:\n"
                   << tail(op.log()));
    if (done) {
        auto m = managers(*done);
        BOOST_TEST((std::find_if(m.begin(), m.end(), [](auto const& s) { return s.ends_with(":Update:status"); }) != m.end()),
                   "plain-example managedFields: " << joined(m));
    }
    auto states = api.kubectl("get trainjobs");
    BOOST_TEST(std::regex_search(states.out, std::regex("(^|\\n)plain-example +Complete ")), states.out);

    BOOST_TEST(op.signal(SIGTERM) == 0, tail(op.log()));
}

// 2. kill -9 of the API server mid-watch, restarted on the same store and port: the operator
// keeps running, its informers back off and re-watch, and TrainJobs applied right after the
// restart and later are built; nothing built before is rebuilt.
BOOST_AUTO_TEST_CASE(the_operator_reconnects_after_the_api_server_restarts) {
    TempDir dir;
    ApiServer api(dir);
    install(api);
    applyPlainRuntime(api);
    Operator op(dir, api, "run", kNoElection, {"--zap-log-level", "debug"});
    op.waitReady();
    applyTrainJob(api, "before-restart");
    BOOST_REQUIRE_MESSAGE(eventually([&] { return hasJobSet(api, "before-restart"); }), tail(op.log()));
    auto uidBefore = uidOf(api, "jobsets.jobset.x-k8s.io/before-restart");

    const auto failedBefore = op.count("Watch failed; backing off");
    BOOST_TEST(api.kill9() == 128 + SIGKILL);
    // The event, not a pause: the informers see their watches fail and back off (a debug line).
    BOOST_TEST_REQUIRE(eventually([&] { return op.count("Watch failed; backing off") > failedBefore || !op.running(); }),
                       "the informers never noticed the API server going away:\n" << tail(op.log()));
    BOOST_TEST_REQUIRE(op.running(), "the operator exited when the API server went away:\n" << tail(op.log()));
    api.forgetKubeconfig();
    api.start();
    applyTrainJob(api, "right-after-restart");
    BOOST_TEST(eventually([&] { return hasJobSet(api, "right-after-restart"); }, 90s),
               "no JobSet for a TrainJob applied right after the restart; operator log:\n"
                   << tail(op.log()));
    applyTrainJob(api, "later");
    BOOST_TEST(eventually([&] { return hasJobSet(api, "later"); }, 60s),
               "no JobSet for a TrainJob applied after the reconnect; operator log:\n"
                   << tail(op.log()));
    BOOST_TEST(uidOf(api, "jobsets.jobset.x-k8s.io/before-restart") == uidBefore);
    BOOST_TEST(api.exists("configmap/right-after-restart-runtime-snapshot"));
    BOOST_TEST(op.running());
    BOOST_TEST(op.signal(SIGTERM) == 0, tail(op.log()));
}

// 3. With --watch-retention 5, 40 ConfigMaps of 512 KiB each compact the history past the
// operator's ConfigMap watch: the operator is stopped (SIGSTOP) meanwhile, so the API server's
// watch stream, which polls the change feed only once its last chunk was written, stalls on the
// full socket (20 MiB is far more than loopback TCP buffers hold) while later creates compact the
// feed. Resumed, the informer gets 410 Gone (or its stalled watch is cut) and relists ("Relisted"
// in the log, trainer_informer_relists_total{configmaps} up); a TrainJob applied afterwards is built.
BOOST_AUTO_TEST_CASE(informers_relist_after_the_watch_history_is_compacted) {
    TempDir dir;
    ApiServer api(dir, {"--watch-retention", "5"});
    install(api);
    applyPlainRuntime(api);
    Operator op(dir, api, "run", kNoElection);
    op.waitReady();
    BOOST_REQUIRE_MESSAGE(eventually([&] { return op.logs("Started the controllers"); }), tail(op.log()));
    // One list so far per resource (the two PodGroup kinds are two resources).
    const std::string configMaps = "resource=\"configmaps\"";
    std::map<std::string, double> before;
    BOOST_REQUIRE_MESSAGE(eventually([&] {
                              before = metricLines(op.metrics(), "trainer_informer_relists_total");
                              return before.count(configMaps) > 0;
                          }),
                          op.metrics());
    for (auto const* r : {"configmaps", "trainjobs.trainer.kubeflow.org", "podgroups.scheduling.x-k8s.io",
                          "podgroups.scheduling.volcano.sh"})
        BOOST_TEST(before[std::string("resource=\"") + r + "\""] == 1, r);
    BOOST_TEST(!op.logs("Relisted"));
    const double listsBefore = before[configMaps];

    // The token and CA from the kubeconfig, for curl's POSTs.
    auto token = api.kubectl("config view --raw -o " + quote("jsonpath={.users[0].user.token}")).out;
    auto ca = api.kubectl("config view --raw -o " + quote("jsonpath={.clusters[0].cluster.certificate-authority-data}")).out;
    BOOST_REQUIRE(!token.empty());
    BOOST_REQUIRE(sh("printf %s " + quote(ca) + " | base64 -d > " + quote(dir.file("ca.crt"))).exit == 0);
    {
        std::ofstream body(dir.file("big.json"));
        body << R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"generateName":"flood-"},"data":{"blob":")"
             << std::string(512 * 1024, 'x') << "\"}}";
        std::ofstream urls(dir.file("urls"));
        for (int i = 0; i < 40; ++i)
            urls << "url = \"" << api.server() << "/api/v1/namespaces/default/configmaps\"\noutput = \"/dev/null\"\n";
    }
    op.pause();
    auto flood = sh("curl -sS --cacert " + quote(dir.file("ca.crt")) + " -H " + quote("Authorization: Bearer " + token) +
                    " -H 'Content-Type: application/json' --data-binary @" + quote(dir.file("big.json")) +
                    " -w '%{http_code}\\n' -K " + quote(dir.file("urls")));
    op.resume();
    BOOST_TEST(flood.exit == 0, flood.err);
    size_t created = 0;
    for (size_t p = flood.out.find("201"); p != std::string::npos; p = flood.out.find("201", p + 1)) ++created;
    BOOST_TEST(created == 40u, flood.out);

    BOOST_TEST(eventually([&] { return op.logs("Relisted"); }, 60s),
               "the operator never relisted after the compaction; log:\n"
                   << tail(op.log()) << "\napiserver log:\n"
                   << api.log());
    applyTrainJob(api, "after-compaction");
    BOOST_TEST(eventually([&] { return hasJobSet(api, "after-compaction"); }, 60s), tail(op.log()));
    // The ConfigMap informer's own watch was the one left behind: it relisted.
    double listsAfter = 0;
    BOOST_TEST(eventually([&] {
                   auto after = metricLines(op.metrics(), "trainer_informer_relists_total");
                   listsAfter = after.count(configMaps) ? after.at(configMaps) : 0;
                   return listsAfter > listsBefore;
               }),
               "trainer_informer_relists_total{" << configMaps << "}: " << listsAfter << ", before the burst "
                                                 << listsBefore);
    BOOST_TEST(op.signal(SIGTERM) == 0, tail(op.log()));
}

// 4. Two controllers against one API server: one Lease holder reconciles; kill -9 of it → the
// other acquires the lease once it expired (leaseDuration 4s) and reconciles new TrainJobs.
// Events and orders, no windows: each replica acquires at most once and the final Lease counts
// one transition (never two leaders), the standby's first reconcile follows its acquisition, and
// its acquireTime is at least the dead leader's last renewTime + leaseDuration (both paused while
// that record is read, so it is the last one).
BOOST_AUTO_TEST_CASE(two_controllers_one_leader_and_a_takeover) {
    TempDir dir;
    ApiServer api(dir);
    install(api);
    applyPlainRuntime(api);
    // Started together, as a two-replica Deployment starts them.
    auto a = std::make_unique<Operator>(dir, api, "a", kShortLease);
    auto b = std::make_unique<Operator>(dir, api, "b", kShortLease);
    bool aUp = a->ready(), bUp = b->ready();
    BOOST_TEST(aUp, "replica a did not come up next to b:\n" << tail(a->log()));
    BOOST_TEST(bUp, "replica b did not come up next to a:\n" << tail(b->log()));
    // Go on with the election: a replica started again once the other is up.
    if (!aUp) a = std::make_unique<Operator>(dir, api, "a-again", kShortLease);
    if (!bUp) b = std::make_unique<Operator>(dir, api, "b-again", kShortLease);
    a->waitReady();
    b->waitReady();
    const std::string acquired = "successfully acquired lease";
    BOOST_REQUIRE_MESSAGE(eventually([&] { return a->logs(acquired) || b->logs(acquired); }),
                          "nobody acquired the lease; a:\n"
                              << tail(a->log()) << "\nb:\n"
                              << tail(b->log()));
    auto& leader = a->logs(acquired) ? a : b;
    auto& standby = a->logs(acquired) ? b : a;
    // The standby has seen the leader's lease (it logs the holder it found).
    BOOST_REQUIRE_MESSAGE(eventually([&] { return standby->logs("new leader elected"); }), tail(standby->log()));
    auto lease = [&] {
        auto r = api.kubectl("get lease trainer.kubeflow.org -n kubeflow-system -o json");
        BOOST_REQUIRE_MESSAGE(r.exit == 0, r.err);
        return json::parse(r.out).at("spec").as_object();
    };
    BOOST_TEST(!leader->leaderIdentity().empty());
    BOOST_TEST(json::value_to<std::string>(lease().at("holderIdentity")) == leader->leaderIdentity());

    applyTrainJob(api, "before-kill");
    BOOST_REQUIRE_MESSAGE(eventually([&] { return hasJobSet(api, "before-kill"); }), tail(leader->log()));
    BOOST_TEST(leader->logs("Reconciled"));

    // kill -9: nothing releases the lease. Both paused first, so the record read is the leader's
    // last renewal and nobody moves it before the kill.
    leader->pause();
    standby->pause();
    auto last = lease();
    BOOST_REQUIRE(json::value_to<std::string>(last.at("holderIdentity")) == leader->leaderIdentity());
    const auto expiry = microTime(last.at("renewTime")) +
                        std::chrono::seconds(last.at("leaseDurationSeconds").to_number<int64_t>());
    BOOST_TEST(leader->signal(SIGKILL) == 128 + SIGKILL);
    standby->resume();
    applyTrainJob(api, "after-kill");
    BOOST_REQUIRE_MESSAGE(eventually([&] { return standby->logs(acquired); }), tail(standby->log()));
    auto taken = lease();
    BOOST_TEST(json::value_to<std::string>(taken.at("holderIdentity")) == standby->leaderIdentity());
    BOOST_TEST((microTime(taken.at("acquireTime")) >= expiry), "acquired at " << taken.at("acquireTime")
                                                                            << ", before the lease expired: " << last);
    BOOST_TEST(taken.at("leaseTransitions") == 1);
    BOOST_TEST(eventually([&] { return hasJobSet(api, "after-kill"); }), tail(standby->log()));
    // One acquisition each, and the standby reconciled nothing before its own.
    BOOST_TEST(leader->count(acquired) == 1u, tail(leader->log()));
    BOOST_TEST(standby->count(acquired) == 1u, tail(standby->log()));
    BOOST_TEST(standby->first("Started the controllers") > standby->first(acquired), tail(standby->log()));
    BOOST_TEST(standby->first("Reconciled") > standby->first(acquired), tail(standby->log()));
    BOOST_TEST(standby->signal(SIGTERM) == 0, tail(standby->log()));
}

// 5. Kubeconfigs that cannot work: the operator exits non-zero, in bounded time, saying why
// (the file named; a refused connection named with its address).
BOOST_AUTO_TEST_CASE(a_bad_kubeconfig_fails_fast_and_says_why) {
    TempDir dir;
    auto closed = freePort();
    auto kubeconfig = [](const std::string& server) {
        return "apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster:\n    server: " + server +
               "\nusers:\n- name: u\n  user:\n    token: abc\ncontexts:\n- name: x\n  context: {cluster: c, user: u}\n"
               "current-context: x\n";
    };
    dir.write("closed.yaml", kubeconfig("https://127.0.0.1:" + std::to_string(closed)));
    dir.write("garbage.yaml", "clusters: [not closed\n");
    struct Case {
        std::string path;
        std::vector<std::string> mentions;
        std::vector<std::string> mustNotSay;  // misleading causes
    };
    const std::vector<Case> cases{
        {"/nonexistent/kubeconfig", {"/nonexistent/kubeconfig", "no such file"}, {}},
        {dir.file("garbage.yaml"), {dir.file("garbage.yaml")}, {}},
        {dir.file("closed.yaml"), {"127.0.0.1:" + std::to_string(closed), "refused"}, {"does not serve", "install the CRDs"}},
    };
    for (auto const& c : cases) {
        // It exits on its own: `timeout 120` is a hang guard (exit 124), not a measure of speed.
        auto r = sh("timeout 120 " + quote(kBin) + " run --kubeconfig " + quote(c.path) + " --plugin-dir " + quote(kPlugins) +
                    " --health-probe-bind-address 127.0.0.1:0 --metrics-bind-address 127.0.0.1:0");
        BOOST_TEST(r.exit != 0, c.path);
        BOOST_TEST(r.exit != 124, c.path << ": still running after 120s");
        for (auto const& m : c.mentions)
            BOOST_TEST(contains(lower(r.out + r.err), lower(m)), c.path << ": no \"" << m << "\" in:\n" << tail(r.out + r.err));
        for (auto const& m : c.mustNotSay)
            BOOST_TEST(!contains(lower(r.out + r.err), lower(m)), c.path << ": says \"" << m << "\":\n" << tail(r.out + r.err));
    }
}

// 6. /metrics of the cluster-mode operator: trainer_informer_cache_bytes per resource follows what
// the cache holds — it grows with TrainJobs, shrinks when one is deleted, and is 0 with none.
// The two TrainJobs carry annotations of 40 000 and 160 000 bytes, so each state of the cache has
// a range of its own (an object's other fields and status are a few KB): every step waits for the
// gauge to enter that state's range, whenever the gauge (refreshed every 2 s) gets there.
BOOST_AUTO_TEST_CASE(metrics_report_the_informer_cache_size) {
    TempDir dir;
    ApiServer api(dir);
    install(api);
    applyPlainRuntime(api);
    Operator op(dir, api, "run", kNoElection);
    op.waitReady();
    const std::string gauge = "trainer_informer_cache_bytes{resource=\"trainjobs.trainer.kubeflow.org\"}";
    double last = -1;
    auto reaches = [&](double low, double high) {
        return eventually([&] { return (last = op.metric(gauge).value_or(-1)) >= low && last < high; });
    };
    auto withAnnotation = [](const std::string& name, size_t bytes) {
        auto yaml = trainJobYaml(name);
        return yaml.insert(yaml.find("\nspec:"), "\n  annotations:\n    test/padding: " + std::string(bytes, 'p'));
    };
    auto apply = [&](const std::string& name, size_t bytes) {
        auto r = api.kubectlStdin("apply --server-side", withAnnotation(name, bytes));
        BOOST_REQUIRE_MESSAGE(r.exit == 0, "apply " << name << ": " << r.err);
    };
    const std::string runtimes = "trainer_informer_cache_bytes{resource=\"trainingruntimes.trainer.kubeflow.org\"}";
    BOOST_TEST(eventually([&] { return op.metric(runtimes).value_or(0) > 0; }), op.metrics());

    apply("one", 40000);
    BOOST_TEST(reaches(40000, 80000), "with TrainJob one (40 kB) the gauge reads " << last);
    apply("two", 160000);
    BOOST_TEST(reaches(200000, 300000), "with one and two (200 kB) the gauge reads " << last);
    BOOST_TEST(api.kubectl("delete trainjob one").exit == 0);
    BOOST_TEST(reaches(160000, 200000), "after deleting one, with two (160 kB) left, the gauge reads " << last);
    BOOST_TEST(api.kubectl("delete trainjob two").exit == 0);
    BOOST_TEST(reaches(0, 1), "with no TrainJob left the gauge reads " << last);
    BOOST_TEST(op.signal(SIGTERM) == 0, tail(op.log()));
}
