// End-to-end: the local executor (core/executor/local_executor.hpp). Each case starts its own
// `trainer-operator run --store <tmp>/store.db` (embedded mode, local executor on), drives it with
// real kubectl (v1.32), and looks at the machine itself: the processes (/proc), the pod network
// namespaces (`ip netns list`, `trn<slot>-<i>`, core/executor/pod_network.hpp) and the bridge.
// Processes of a case are found by a marker argument unique to the case (in the TrainJob's
// command, never on a command line of the test's own), or by their working directory under the
// operator's state directory (<store>.local/, core/executor/pod_logs.hpp).
//
// Every case ends by stopping the operator with SIGTERM and checking that nothing of it remains:
// no marker process, no process in its state directory, no namespace or bridge of its slot.
// Waits are bounded generously; nothing asserts on wall-clock durations.
#define BOOST_TEST_MODULE test_e2e_executor
#include <boost/test/unit_test.hpp>

#include <boost/json.hpp>

#include "../support/process.hpp"

#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <random>
#include <set>
#include <sstream>
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
const std::string kLocal = std::string(TRAINER_SOURCE_DIR) + "/examples/local";

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

std::string tail(const std::string& text, size_t n = 6000) { return text.size() > n ? text.substr(text.size() - n) : text; }

template <class Pred>
bool eventually(Pred p, std::chrono::milliseconds limit, std::chrono::milliseconds step = 250ms) {
    auto end = std::chrono::steady_clock::now() + limit;
    while (std::chrono::steady_clock::now() < end) {
        if (p()) return true;
        std::this_thread::sleep_for(step);
    }
    return p();
}

int exitCode(int st) { return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st); }

// A marker no other process on this machine carries.
std::string newMarker(const std::string& what) {
    std::random_device rd;
    return "trn-e2e-" + what + "-" + std::to_string(::getpid()) + "-" + std::to_string(rd() % 1000000000);
}

// ---- the machine -------------------------------------------------------------------------------

std::string cmdlineOf(const fs::path& procDir) {
    std::string s = slurp(procDir / "cmdline");
    for (auto& c : s)
        if (c == '\0') c = ' ';
    return s;
}

// Pids (other than this test's) whose command line contains `needle`.
std::vector<int> pidsWith(const std::string& needle) {
    std::vector<int> out;
    std::error_code ec;
    for (auto const& e : fs::directory_iterator("/proc", ec)) {
        auto name = e.path().filename().string();
        if (name.empty() || name.find_first_not_of("0123456789") != std::string::npos) continue;
        int pid = std::stoi(name);
        if (pid != ::getpid() && contains(cmdlineOf(e.path()), needle)) out.push_back(pid);
    }
    return out;
}

// Pids whose working directory or command line is inside `dir` (a state directory).
std::vector<int> pidsIn(const fs::path& dir) {
    std::vector<int> out;
    const std::string prefix = dir.string();
    std::error_code ec;
    for (auto const& e : fs::directory_iterator("/proc", ec)) {
        auto name = e.path().filename().string();
        if (name.empty() || name.find_first_not_of("0123456789") != std::string::npos) continue;
        std::error_code lec;
        auto cwd = fs::read_symlink(e.path() / "cwd", lec).string();
        if ((!lec && cwd.rfind(prefix, 0) == 0) || contains(cmdlineOf(e.path()), prefix)) out.push_back(std::stoi(name));
    }
    return out;
}

std::string describePids(const std::vector<int>& pids) {
    std::string out;
    for (int p : pids) out += "\n  " + std::to_string(p) + ": " + cmdlineOf(fs::path("/proc") / std::to_string(p));
    return out;
}

// The pod network namespaces of slot `slot` (`ip netns list`: "trn<k>-<i>" or "trn<k>-<i> (id: n)").
std::vector<std::string> netnsOfSlot(int slot) {
    std::vector<std::string> out;
    auto r = sh("ip netns list");
    BOOST_TEST_REQUIRE(r.exit == 0, "ip netns list: " << r.err);
    std::istringstream in(r.out);
    std::string line;
    const std::string prefix = "trn" + std::to_string(slot) + "-";
    while (std::getline(in, line)) {
        auto name = line.substr(0, line.find(' '));
        if (name.rfind(prefix, 0) == 0) out.push_back(name);
    }
    return out;
}

bool bridgeExists(int slot) { return sh("ip link show dev trn" + std::to_string(slot)).exit == 0; }

std::string join(const std::vector<std::string>& v) {
    std::string out;
    for (auto const& s : v) out += (out.empty() ? "" : " ") + s;
    return out;
}

// ---- JSON --------------------------------------------------------------------------------------

std::string str(const json::object& o, std::initializer_list<const char*> path) {
    const json::value* v = nullptr;
    const json::object* cur = &o;
    for (auto const* k : path) {
        if (!cur) return "";
        v = cur->if_contains(k);
        if (!v) return "";
        cur = v->is_object() ? &v->get_object() : nullptr;
    }
    if (!v) return "";
    if (v->is_string()) return std::string(v->get_string());
    return json::serialize(*v);
}

// The condition `type` of an object's status.conditions, or null.
const json::object* condition(const json::object& obj, const std::string& type) {
    auto const* st = obj.if_contains("status");
    auto const* conds = st && st->is_object() ? st->get_object().if_contains("conditions") : nullptr;
    if (!conds || !conds->is_array()) return nullptr;
    for (auto const& c : conds->get_array())
        if (c.is_object() && str(c.get_object(), {"type"}) == type) return &c.get_object();
    return nullptr;
}

std::string conditionStatus(const json::object& obj, const std::string& type) {
    auto const* c = condition(obj, type);
    return c ? str(*c, {"status"}) : "";
}

// ---- the operator ------------------------------------------------------------------------------

// `trainer-operator run` on a store in `dir`, in its own process group; output to <dir>/run.log.
class Operator {
public:
    explicit Operator(const TempDir& dir) : dir_(dir) {}
    ~Operator() {
        if (pid_ > 0) {
            ::kill(pid_, SIGTERM);
            if (!eventually([&] { return !running(); }, 30s, 100ms)) {
                ::kill(pid_, SIGKILL);
                ::waitpid(pid_, nullptr, 0);
            }
        }
    }
    Operator(const Operator&) = delete;
    Operator& operator=(const Operator&) = delete;

    std::string store() const { return dir_.file("store.db"); }
    fs::path stateDir() const { return store() + ".local"; }
    std::string kubeconfig() const { return dir_.file("kubeconfig"); }
    std::string log() const { return tail(slurp(dir_.file("run.log"))); }
    int slot() const { return slot_; }
    pid_t pid() const { return pid_; }

    // Starts the operator (with `extraArgs` after the usual flags) and waits for its API's /readyz
    // and its pod network slot.
    void start(const std::vector<std::string>& extraArgs = {}) {
        BOOST_REQUIRE_MESSAGE(::geteuid() == 0,
                              "the local executor e2e tests need root (network, mount and PID namespaces, "
                              "CAP_NET_ADMIN and CAP_SYS_ADMIN); run them as root, as CI does");
        BOOST_REQUIRE_MESSAGE(fs::exists(kubectlPath()),
                              "kubectl not found at " << kubectlPath()
                                                      << " (kubectl >= 1.27, which scripts/setup.sh checks for; or set KUBECTL)");
        BOOST_REQUIRE_MESSAGE(fs::exists(kBin), "trainer-operator not built: " << kBin);
        fs::create_directories(dir_.file("home"));
        fs::remove(kubeconfig());
        std::vector<std::string> args{kBin, "run", "--plugin-dir", kPlugins, "--store", store(),
                                      "--api-bind-address", "127.0.0.1:0", "--write-kubeconfig", kubeconfig(),
                                      "--health-probe-bind-address", "0", "--metrics-bind-address", "0"};
        args.insert(args.end(), extraArgs.begin(), extraArgs.end());
        std::string out = dir_.file("run.log");
        pid_ = ::fork();
        BOOST_REQUIRE(pid_ >= 0);
        if (pid_ == 0) {
            ::setpgid(0, 0);
            int o = ::open(out.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
            ::dup2(o, 1);
            ::dup2(o, 2);
            std::vector<char*> argv;
            for (auto& a : args) argv.push_back(a.data());
            argv.push_back(nullptr);
            ::execv(argv[0], argv.data());
            ::_exit(127);
        }
        BOOST_REQUIRE_MESSAGE(eventually([&] { return fs::exists(kubeconfig()) || !running(); }, 60s, 100ms) &&
                                  fs::exists(kubeconfig()),
                              "no kubeconfig within 60s (operator exit code " << exit_ << "); log:\n" << log());
        Result last;
        BOOST_REQUIRE_MESSAGE(eventually([&] {
                                  last = kubectl("get --raw /readyz");
                                  return last.exit == 0 && last.out == "ok";
                              },
                                         60s),
                              "GET /readyz never answered ok: " << last.out << last.err << "\nlog:\n" << log());
        BOOST_REQUIRE_MESSAGE(eventually([&] { return (slot_ = findSlot()) >= 0; }, 60s),
                              "the operator holds no pod network slot (/run/trainer-operator/slot-*.lock); log:\n"
                                  << log());
        slots_.insert(slot_);
    }

    bool running() {
        if (pid_ <= 0) return false;
        int st = 0;
        if (::waitpid(pid_, &st, WNOHANG) != pid_) return true;
        pid_ = -1;
        exit_ = exitCode(st);
        return false;
    }

    // SIGKILL to the operator alone (not its process group): its containers must die with it.
    void kill9() {
        BOOST_REQUIRE(running());
        ::kill(pid_, SIGKILL);
        int st = 0;
        ::waitpid(pid_, &st, 0);
        pid_ = -1;
        exit_ = exitCode(st);
    }

    // SIGTERM; the exit code (-1 when it did not exit within 90 s; then SIGKILL).
    int stop() {
        if (!running()) return exit_;
        ::kill(pid_, SIGTERM);
        if (!eventually([&] { return !running(); }, 90s, 100ms)) {
            ::kill(pid_, SIGKILL);
            ::waitpid(pid_, nullptr, 0);
            pid_ = -1;
            return -1;
        }
        return exit_;
    }

    Result kubectl(const std::string& args) const {
        return sh("HOME=" + quote(dir_.file("home")) + " " + quote(kubectlPath()) + " --kubeconfig " + quote(kubeconfig()) +
                  " --cache-dir " + quote(dir_.file("kube-cache")) + " --request-timeout=30s " + args);
    }

    void apply(const std::vector<std::string>& files) {
        std::string args;
        for (auto const& f : files) args += " -f " + quote(f);
        auto r = kubectl("apply --server-side" + args);
        BOOST_REQUIRE_MESSAGE(r.exit == 0, "kubectl apply" << args << ": " << r.err << "\nlog:\n" << log());
    }
    void applyText(const std::string& name, const std::string& yaml) { apply({dir_.write(name + ".yaml", yaml).string()}); }

    // `kubectl get <what> -o json`, or nullopt when it is not found (other errors fail).
    std::optional<json::object> get(const std::string& what) const {
        auto r = kubectl("get " + what + " -o json");
        if (r.exit != 0 && contains(r.err, "(NotFound)")) return std::nullopt;
        BOOST_TEST_REQUIRE(r.exit == 0, "kubectl get " << what << ": " << r.err);
        json::error_code ec;
        auto v = json::parse(r.out, ec);
        BOOST_TEST_REQUIRE((!ec && v.is_object()), "not JSON: " << r.out);
        return v.get_object();
    }

    // The Pods of TrainJob `name` (label jobset.sigs.k8s.io/jobset-name).
    std::vector<json::object> podsOf(const std::string& name) const {
        auto list = get("pods -l jobset.sigs.k8s.io/jobset-name=" + name);
        BOOST_TEST_REQUIRE(list.has_value());
        std::vector<json::object> out;
        for (auto const& item : list->at("items").as_array()) out.push_back(item.as_object());
        return out;
    }

    // Waits until TrainJob `name` has one of `types` True; the TrainJob then (fails when not).
    json::object waitFinished(const std::string& name, std::chrono::seconds limit) {
        std::optional<json::object> tj;
        bool done = eventually(
            [&] {
                tj = get("trainjob " + name);
                return tj && (conditionStatus(*tj, "Complete") == "True" || conditionStatus(*tj, "Failed") == "True");
            },
            limit, 500ms);
        BOOST_REQUIRE_MESSAGE(done, "TrainJob " << name << " not finished within " << limit.count() << "s: "
                                                << (tj ? json::serialize(*tj) : "absent") << "\npods:\n"
                                                << kubectl("get pods -o wide").out << "\nlog:\n"
                                                << log());
        return *tj;
    }

    // Stops the operator (SIGTERM) and checks that nothing of it remains: processes carrying one of
    // `markers` or living in its state directory, the namespaces and bridges of every slot it held.
    void stopAndCheckClean(const std::vector<std::string>& markers) {
        int code = stop();
        BOOST_TEST(code == 0, "the operator's exit code on SIGTERM: " << code << "\nlog:\n" << log());
        for (auto const& m : markers) {
            std::vector<int> left;
            BOOST_TEST(eventually([&] { return (left = pidsWith(m)).empty(); }, 60s),
                       "processes of marker " << m << " outlive the operator:" << describePids(left));
        }
        std::vector<int> left;
        BOOST_TEST(eventually([&] { return (left = pidsIn(stateDir())).empty(); }, 60s),
                   "processes in " << stateDir() << " outlive the operator:" << describePids(left));
        for (int s : slots_) {
            BOOST_TEST(netnsOfSlot(s).empty(), "namespaces of slot " << s << " left: " << join(netnsOfSlot(s)));
            BOOST_TEST(!bridgeExists(s), "the bridge trn" << s << " is left");
        }
    }

private:
    int findSlot() const {
        std::error_code ec;
        const std::string prefix = "/run/trainer-operator/slot-";
        for (auto const& e : fs::directory_iterator(fs::path("/proc") / std::to_string(pid_) / "fd", ec)) {
            std::error_code lec;
            auto target = fs::read_symlink(e.path(), lec).string();
            if (!lec && target.rfind(prefix, 0) == 0 && target.ends_with(".lock"))
                return std::stoi(target.substr(prefix.size()));
        }
        return -1;
    }

    const TempDir& dir_;
    pid_t pid_ = -1;
    int exit_ = -1;
    int slot_ = -1;
    std::set<int> slots_;
};

// ---- objects the cases write -------------------------------------------------------------------

// A runtime without an ML policy: one `node` Job whose container the TrainJob's command replaces.
// backoffLimit 2 lets the Job replace a failed Pod; a short grace period keeps stops quick.
const std::string kPlainRuntime = R"(apiVersion: trainer.kubeflow.org/v1alpha1
kind: ClusterTrainingRuntime
metadata:
  name: local-plain
spec:
  template:
    spec:
      replicatedJobs:
        - name: node
          template:
            metadata:
              labels:
                trainer.kubeflow.org/trainjob-ancestor-step: trainer
            spec:
              backoffLimit: 2
              template:
                spec:
                  restartPolicy: Never
                  terminationGracePeriodSeconds: 5
                  containers:
                    - name: node
                      image: busybox
                      command: ["/bin/false"]
)";

// The same with an httpGet readinessProbe on port 8000.
const std::string kHttpRuntime = R"(apiVersion: trainer.kubeflow.org/v1alpha1
kind: ClusterTrainingRuntime
metadata:
  name: local-http
spec:
  template:
    spec:
      replicatedJobs:
        - name: node
          template:
            metadata:
              labels:
                trainer.kubeflow.org/trainjob-ancestor-step: trainer
            spec:
              template:
                spec:
                  restartPolicy: Never
                  terminationGracePeriodSeconds: 5
                  containers:
                    - name: node
                      image: python
                      command: ["/bin/false"]
                      readinessProbe:
                        httpGet:
                          port: 8000
                          path: /
                        periodSeconds: 1
)";

// A TrainJob on local-plain whose one process sleeps for 10 minutes; the shell stays (the `wait`)
// so its command line keeps the marker ($0).
std::string sleeperJob(const std::string& name, const std::string& marker, const std::string& extraSpec = "") {
    return "apiVersion: trainer.kubeflow.org/v1alpha1\nkind: TrainJob\nmetadata:\n  name: " + name +
           "\n  namespace: default\nspec:\n" + extraSpec +
           "  runtimeRef:\n    apiGroup: trainer.kubeflow.org\n    kind: ClusterTrainingRuntime\n    name: local-plain\n"
           "  trainer:\n    numNodes: 1\n    command: [\"/bin/sh\", \"-c\", \"sleep 600 & wait\", \"" +
           marker + "\"]\n";
}

// A TrainJob on local-http: an HTTP server on port 8000 answering every GET with the marker.
std::string httpJob(const std::string& name, const std::string& marker) {
    const std::string script =
        "import http.server, sys\n"
        "class H(http.server.BaseHTTPRequestHandler):\n"
        "    def do_GET(self):\n"
        "        body = sys.argv[1].encode()\n"
        "        self.send_response(200)\n"
        "        self.send_header('Content-Length', str(len(body)))\n"
        "        self.end_headers()\n"
        "        self.wfile.write(body)\n"
        "    def log_message(self, *args):\n"
        "        pass\n"
        "http.server.HTTPServer(('', 8000), H).serve_forever()\n";
    std::string indented;
    std::istringstream in(script);
    std::string line;
    while (std::getline(in, line)) indented += "        " + line + "\n";
    return "apiVersion: trainer.kubeflow.org/v1alpha1\nkind: TrainJob\nmetadata:\n  name: " + name +
           "\n  namespace: default\nspec:\n"
           "  runtimeRef:\n    apiGroup: trainer.kubeflow.org\n    kind: ClusterTrainingRuntime\n    name: local-http\n"
           "  trainer:\n    numNodes: 1\n    command:\n      - /usr/bin/python3\n      - -c\n      - |\n" +
           indented + "      - " + marker + "\n";
}

bool anyProcess(const std::string& marker) { return !pidsWith(marker).empty(); }

// Waits for a process with `marker` (true) or for none (false).
void waitProcesses(Operator& op, const std::string& marker, bool present, std::chrono::seconds limit,
                   const std::string& when) {
    std::vector<int> pids;
    bool ok = eventually([&] { return (pids = pidsWith(marker)).empty() != present; }, limit);
    BOOST_REQUIRE_MESSAGE(ok, when << ": " << (present ? "no process with " + marker + " appeared" : "processes remain:")
                                   << (present ? "" : describePids(pids)) << "\npods:\n"
                                   << op.kubectl("get pods -o wide").out << "\nlog:\n"
                                   << op.log());
}

}  // namespace

// 1. torch DDP (examples/local): two node pods rendezvous over the pod network; the TrainJob
// completes, each pod has its IP and its rank's log.
BOOST_AUTO_TEST_CASE(torch_ddp_completes_with_two_ranks) {
    TempDir dir;
    Operator op(dir);
    op.start();
    op.apply({kLocal + "/10-runtime-torch-distributed.yaml", kLocal + "/20-trainjob-torch-ddp.yaml"});
    auto tj = op.waitFinished("torch-ddp", 300s);
    BOOST_TEST(conditionStatus(tj, "Complete") == "True", json::serialize(tj) << "\nlog:\n" << op.log());

    // jobsStatus: the one replicated Job `node`, succeeded.
    auto const* jobs = tj.at("status").as_object().if_contains("jobsStatus");
    BOOST_TEST_REQUIRE((jobs && jobs->is_array() && jobs->get_array().size() == 1), json::serialize(tj));
    auto const& node = jobs->get_array()[0].as_object();
    BOOST_TEST(str(node, {"name"}) == "node");
    BOOST_TEST(str(node, {"succeeded"}) == "1", json::serialize(node));
    BOOST_TEST(str(node, {"failed"}) == "0", json::serialize(node));

    auto pods = op.podsOf("torch-ddp");
    BOOST_TEST_REQUIRE(pods.size() == 2u, op.kubectl("get pods -o wide").out);
    std::set<std::string> ips;
    for (auto const& pod : pods) {
        auto name = str(pod, {"metadata", "name"});
        BOOST_TEST(str(pod, {"status", "phase"}) == "Succeeded", name << ": " << json::serialize(pod.at("status")));
        auto ip = str(pod, {"status", "podIP"});
        BOOST_TEST(!ip.empty(), name << " has no podIP");
        ips.insert(ip);
        BOOST_TEST(str(pod, {"spec", "nodeName"}) == "trainer-local");
        // Pod <job>-node-0-<i>-<suffix> is node rank i.
        int rank = name.rfind("torch-ddp-node-0-1-", 0) == 0 ? 1 : 0;
        auto logs = op.kubectl("logs " + name);
        BOOST_TEST(logs.exit == 0, logs.err);
        BOOST_TEST(contains(logs.out, "rank=" + std::to_string(rank) + " world_size=2"), name << ":\n" << logs.out);
        BOOST_TEST(contains(logs.out, "weights in sync across 2 ranks: True"), name << ":\n" << logs.out);
    }
    BOOST_TEST(ips.size() == 2u, "the two pods share an IP");

    auto all = sh(quote(kBin) + " logs trainjob/torch-ddp --store " + quote(op.store()));
    BOOST_TEST(all.exit == 0, all.err);
    BOOST_TEST(contains(all.out, "rank=0 world_size=2"), all.out);
    BOOST_TEST(contains(all.out, "rank=1 world_size=2"), all.out);
    op.stopAndCheckClean({});
}

// 2. OpenMPI (examples/local): mpirun in the launcher reaches sshd in the node pods; after the
// launcher succeeds the node pods are stopped and no sshd of the job remains.
BOOST_AUTO_TEST_CASE(mpi_hello_completes_and_stops_its_sshd_nodes) {
    TempDir dir;
    Operator op(dir);
    op.start();
    op.apply({kLocal + "/11-runtime-openmpi.yaml", kLocal + "/22-trainjob-mpi-hello.yaml"});
    std::vector<int> sshd;
    auto sshdOfJob = [&] {
        sshd.clear();
        for (int p : pidsIn(op.stateDir()))
            if (contains(cmdlineOf(fs::path("/proc") / std::to_string(p)), "sshd")) sshd.push_back(p);
        return sshd.empty();
    };
    // The node pods' sshd runs while the launcher does (seen before the TrainJob finishes).
    bool sawSshd = false;
    eventually(
        [&] {
            sawSshd = sawSshd || !sshdOfJob();
            auto tj = op.get("trainjob mpi-hello");
            return sawSshd || (tj && (conditionStatus(*tj, "Complete") == "True" || conditionStatus(*tj, "Failed") == "True"));
        },
        240s, 100ms);
    BOOST_TEST(sawSshd, "no sshd of mpi-hello seen running in " << op.stateDir());
    auto tj = op.waitFinished("mpi-hello", 240s);
    BOOST_TEST_REQUIRE(conditionStatus(tj, "Complete") == "True", json::serialize(tj) << "\nlog:\n" << op.log());

    std::string launcher;
    for (auto const& pod : op.podsOf("mpi-hello"))
        if (str(pod, {"metadata", "name"}).rfind("mpi-hello-launcher-", 0) == 0) launcher = str(pod, {"metadata", "name"});
    BOOST_TEST_REQUIRE(!launcher.empty(), op.kubectl("get pods").out);
    auto logs = op.kubectl("logs " + launcher);
    BOOST_TEST(logs.exit == 0, logs.err);
    BOOST_TEST(contains(logs.out, "allreduce: sum of ranks = 6 (expected 6)"), logs.out);

    // The node pods are gone or terminated, and no sshd runs in this operator's pod directories.
    bool stopped = eventually(
        [&] {
            for (auto const& pod : op.podsOf("mpi-hello")) {
                auto phase = str(pod, {"status", "phase"});
                if (str(pod, {"metadata", "name"}).rfind("mpi-hello-node-", 0) == 0 && phase != "Succeeded" && phase != "Failed")
                    return false;
            }
            return true;
        },
        60s);
    BOOST_TEST(stopped, op.kubectl("get pods -o wide").out);
    BOOST_TEST(eventually(sshdOfJob, 60s), "sshd of mpi-hello still runs:" << describePids(sshd));
    op.stopAndCheckClean({});
}

// 3. A failing script (examples/local): Failed/FailedJobs, the container terminated with exit 1.
BOOST_AUTO_TEST_CASE(failing_job_fails_with_failed_jobs) {
    TempDir dir;
    Operator op(dir);
    op.start();
    op.apply({kLocal + "/10-runtime-torch-distributed.yaml", kLocal + "/23-trainjob-failing.yaml"});
    auto tj = op.waitFinished("failing-example", 180s);
    auto const* failed = condition(tj, "Failed");
    BOOST_TEST_REQUIRE(failed, json::serialize(tj));
    BOOST_TEST(str(*failed, {"status"}) == "True");
    BOOST_TEST(str(*failed, {"reason"}) == "FailedJobs");
    BOOST_TEST(str(*failed, {"message"}).rfind("jobset failed due to one or more job failures", 0) == 0,
               str(*failed, {"message"}));
    BOOST_TEST(conditionStatus(tj, "Complete") != "True");

    auto pods = op.podsOf("failing-example");
    BOOST_TEST_REQUIRE(pods.size() == 1u, op.kubectl("get pods -o wide").out);
    auto const& pod = pods[0];
    BOOST_TEST(str(pod, {"status", "phase"}) == "Failed", json::serialize(pod.at("status")));
    auto const* statuses = pod.at("status").as_object().if_contains("containerStatuses");
    BOOST_TEST_REQUIRE((statuses && statuses->is_array() && statuses->get_array().size() == 1u),
                       json::serialize(pod.at("status")));
    auto const& cs = statuses->get_array()[0].as_object();
    BOOST_TEST(str(cs, {"state", "terminated", "exitCode"}) == "1", json::serialize(cs));
    BOOST_TEST(str(cs, {"state", "terminated", "reason"}) == "Error", json::serialize(cs));
    auto logs = op.kubectl("logs " + str(pod, {"metadata", "name"}));
    BOOST_TEST(contains(logs.out, "error: dataset not found"), logs.out << logs.err);
    op.stopAndCheckClean({});
}

// 4. Suspend stops the TrainJob's processes and sets Suspended=True; resume starts them again.
BOOST_AUTO_TEST_CASE(suspend_stops_the_processes_and_resume_restarts_them) {
    TempDir dir;
    Operator op(dir);
    op.start();
    const auto marker = newMarker("suspend");
    op.applyText("runtime", kPlainRuntime);
    op.applyText("job", sleeperJob("sleeper", marker));
    waitProcesses(op, marker, true, 120s, "before suspend");

    auto p = op.kubectl("patch trainjob sleeper --type=merge -p " + quote(R"({"spec":{"suspend":true}})"));
    BOOST_TEST_REQUIRE(p.exit == 0, p.err);
    waitProcesses(op, marker, false, 90s, "after suspend");
    std::optional<json::object> tj;
    BOOST_TEST(eventually(
                   [&] {
                       tj = op.get("trainjob sleeper");
                       return tj && conditionStatus(*tj, "Suspended") == "True";
                   },
                   60s),
               "no Suspended=True: " << (tj ? json::serialize(*tj) : "absent"));
    // Suspended: no process comes back while it stays so. The order shows it, not a pause: a
    // TrainJob applied after the suspension has its process running, the suspended one none.
    const auto later = newMarker("after-suspend");
    op.applyText("later", sleeperJob("later", later));
    waitProcesses(op, later, true, 120s, "of a TrainJob applied after the suspension");
    BOOST_TEST(!anyProcess(marker), "a process started while suspended");

    auto r = op.kubectl("patch trainjob sleeper --type=merge -p " + quote(R"({"spec":{"suspend":false}})"));
    BOOST_TEST_REQUIRE(r.exit == 0, r.err);
    waitProcesses(op, marker, true, 120s, "after resume");
    BOOST_TEST(eventually(
                   [&] {
                       tj = op.get("trainjob sleeper");
                       return tj && conditionStatus(*tj, "Suspended") == "False";
                   },
                   60s),
               "not resumed: " << (tj ? json::serialize(*tj) : "absent"));
    op.stopAndCheckClean({marker, later});
}

// 5. activeDeadlineSeconds: the TrainJob fails with DeadlineExceeded and its processes stop. No
// race between the process starting and the deadline: the deadline (1 s after creation) is
// added once the process runs, the event awaited (a field added, not changed, passes its
// immutability rule); it has passed by then, or passes at the requeue that follows.
BOOST_AUTO_TEST_CASE(active_deadline_fails_the_trainjob_and_stops_its_processes) {
    TempDir dir;
    Operator op(dir);
    op.start();
    const auto marker = newMarker("deadline");
    op.applyText("runtime", kPlainRuntime);
    op.applyText("job", sleeperJob("deadline", marker));
    waitProcesses(op, marker, true, 120s, "before the deadline");
    auto patched = op.kubectl("patch trainjob deadline --type=merge -p " + quote(R"({"spec":{"activeDeadlineSeconds":1}})"));
    BOOST_TEST_REQUIRE(patched.exit == 0, patched.err);
    std::optional<json::object> tj;
    bool failed = eventually(
        [&] {
            tj = op.get("trainjob deadline");
            return tj && conditionStatus(*tj, "Failed") == "True";
        },
        120s, 200ms);
    BOOST_TEST_REQUIRE(failed, "not Failed: " << (tj ? json::serialize(*tj) : "absent") << "\nlog:\n" << op.log());
    BOOST_TEST(str(*condition(*tj, "Failed"), {"reason"}) == "DeadlineExceeded", json::serialize(*tj));
    waitProcesses(op, marker, false, 60s, "after the deadline");
    op.stopAndCheckClean({marker});
}

// 6. Deleting a running TrainJob stops its processes and removes its pods' network namespaces.
BOOST_AUTO_TEST_CASE(deleting_a_running_trainjob_removes_its_processes_and_namespaces) {
    TempDir dir;
    Operator op(dir);
    op.start();
    const auto marker = newMarker("delete");
    op.applyText("runtime", kPlainRuntime);
    op.applyText("job", sleeperJob("doomed", marker));
    waitProcesses(op, marker, true, 120s, "before delete");
    // What the clean-up checks look for is there while the pod runs.
    BOOST_TEST(!pidsIn(op.stateDir()).empty(), "no process found in " << op.stateDir());
    auto netns = netnsOfSlot(op.slot());
    BOOST_TEST(netns.size() == 1u, "namespaces of slot " << op.slot() << " while one pod runs: " << join(netns));

    auto d = op.kubectl("delete trainjob doomed --wait=true");
    BOOST_TEST_REQUIRE(d.exit == 0, d.err);
    waitProcesses(op, marker, false, 90s, "after delete");
    BOOST_TEST(eventually([&] { return netnsOfSlot(op.slot()).empty(); }, 60s),
               "namespaces left after delete: " << join(netnsOfSlot(op.slot())));
    BOOST_TEST(eventually([&] { return op.podsOf("doomed").empty(); }, 60s), op.kubectl("get pods").out);
    op.stopAndCheckClean({marker});
}

namespace {

// Runs TrainJob `survivor` (sleeping, with `marker`) on a first operator, kills that operator with
// SIGKILL and checks its containers died with it. The pod's name and uid.
std::pair<std::string, std::string> runAndKill9(const TempDir& dir, const std::string& marker) {
    Operator first(dir);
    first.start();
    first.applyText("runtime", kPlainRuntime);
    first.applyText("job", sleeperJob("survivor", marker));
    waitProcesses(first, marker, true, 120s, "before kill -9");
    std::vector<json::object> pods;
    BOOST_TEST_REQUIRE(eventually(
        [&] {
            pods = first.podsOf("survivor");
            return pods.size() == 1u && str(pods[0], {"status", "phase"}) == "Running";
        },
        60s));
    first.kill9();
    std::vector<int> left;
    BOOST_TEST(eventually([&] { return (left = pidsWith(marker)).empty(); }, 60s),
               "containers outlive the operator's kill -9:" << describePids(left));
    BOOST_TEST(eventually([&] { return (left = pidsIn(first.stateDir())).empty(); }, 60s),
               "processes in the state directory outlive the operator's kill -9:" << describePids(left));
    return {str(pods[0], {"metadata", "name"}), str(pods[0], {"metadata", "uid"})};
}

// After the restart: the pod of the previous process is Failed (Terminated, DisruptionTarget).
void checkDisrupted(Operator& op, const std::string& name, const std::string& uid) {
    std::optional<json::object> old;
    bool marked = eventually(
        [&] {
            old = op.get("pod " + name);
            return old && str(*old, {"status", "phase"}) == "Failed";
        },
        60s);
    BOOST_TEST_REQUIRE(marked, "the old pod " << name << " after restart: " << (old ? json::serialize(*old) : "absent")
                                              << "\nlog:\n"
                                              << op.log());
    BOOST_TEST(str(*old, {"metadata", "uid"}) == uid);
    BOOST_TEST(str(*old, {"status", "reason"}) == "Terminated", json::serialize(old->at("status")));
    auto const* disruption = condition(*old, "DisruptionTarget");
    BOOST_TEST_REQUIRE(disruption, json::serialize(old->at("status")));
    BOOST_TEST(str(*disruption, {"status"}) == "True");
}

}  // namespace

// 7. kill -9 of the operator takes its containers along; on restart the old pod is Failed
// (Terminated, DisruptionTarget) and its Job replaces it.
BOOST_AUTO_TEST_CASE(kill_9_of_the_operator_kills_the_containers_and_restart_replaces_the_pod) {
    TempDir dir;
    const auto marker = newMarker("kill9");
    const auto [oldPod, oldUid] = runAndKill9(dir, marker);

    Operator second(dir);
    second.start();
    checkDisrupted(second, oldPod, oldUid);
    // backoffLimit 2: the Job makes a replacement, which runs the command again.
    bool replaced = eventually(
        [&] {
            for (auto const& p : second.podsOf("survivor"))
                if (str(p, {"metadata", "uid"}) != oldUid && str(p, {"status", "phase"}) == "Running") return true;
            return false;
        },
        120s);
    BOOST_TEST(replaced, "no running replacement: " << second.kubectl("get pods -o wide").out << "\nlog:\n" << second.log());
    waitProcesses(second, marker, true, 60s, "after restart");
    // The disrupted pod counts as the Job's one failure (no podFailurePolicy ignores it).
    auto jobs = second.get("jobs -l jobset.sigs.k8s.io/jobset-name=survivor");
    BOOST_TEST_REQUIRE(jobs.has_value());
    auto const& items = jobs->at("items").as_array();
    BOOST_TEST_REQUIRE(items.size() == 1u, json::serialize(*jobs));
    BOOST_TEST(str(items[0].as_object(), {"status", "failed"}) == "1", json::serialize(items[0].at("status")));
    auto tj = second.get("trainjob survivor");
    BOOST_TEST_REQUIRE(tj.has_value());
    BOOST_TEST(conditionStatus(*tj, "Failed") != "True", json::serialize(*tj));

    auto d = second.kubectl("delete trainjob survivor --wait=true");
    BOOST_TEST(d.exit == 0, d.err);
    waitProcesses(second, marker, false, 90s, "after delete");
    BOOST_TEST(eventually([&] { return netnsOfSlot(second.slot()).empty(); }, 60s),
               "namespaces left after delete: " << join(netnsOfSlot(second.slot())));
    second.stopAndCheckClean({marker});
}

// 8. Two TrainJobs listen on the same port at once: each pod has its own network namespace, both
// get Ready through their httpGet readinessProbe, and each answers from the host and the other pod.
BOOST_AUTO_TEST_CASE(two_trainjobs_listen_on_the_same_port) {
    TempDir dir;
    Operator op(dir);
    op.start();
    const auto markerA = newMarker("http-a"), markerB = newMarker("http-b");
    op.applyText("runtime", kHttpRuntime);
    op.applyText("job-a", httpJob("http-a", markerA));
    op.applyText("job-b", httpJob("http-b", markerB));

    auto readyPod = [&](const std::string& job, json::object& out) {
        auto pods = op.podsOf(job);
        if (pods.size() != 1u || str(pods[0], {"status", "phase"}) != "Running" ||
            conditionStatus(pods[0], "Ready") != "True")
            return false;
        out = pods[0];
        return true;
    };
    json::object a, b;
    BOOST_TEST_REQUIRE(eventually([&] { return readyPod("http-a", a) && readyPod("http-b", b); }, 120s),
                       "not both Ready:\n"
                           << op.kubectl("get pods -o wide").out << "\n"
                           << op.kubectl("get pods -o yaml").out << "\nlog:\n"
                           << op.log());
    auto ipA = str(a, {"status", "podIP"}), ipB = str(b, {"status", "podIP"});
    BOOST_TEST_REQUIRE(!ipA.empty());
    BOOST_TEST_REQUIRE(!ipB.empty());
    BOOST_TEST(ipA != ipB);

    auto curl = [](const std::string& prefix, const std::string& ip) {
        return sh(prefix + "curl --noproxy '*' -sS --max-time 10 http://" + ip + ":8000/");
    };
    // From the host (the bridge is the pods' gateway).
    auto fromHostA = curl("", ipA), fromHostB = curl("", ipB);
    BOOST_TEST(fromHostA.out == markerA, fromHostA.out << fromHostA.err);
    BOOST_TEST(fromHostB.out == markerB, fromHostB.out << fromHostB.err);
    // From inside each pod's network namespace to the other's.
    auto pidA = pidsWith(markerA), pidB = pidsWith(markerB);
    BOOST_TEST_REQUIRE(pidA.size() >= 1u);
    BOOST_TEST_REQUIRE(pidB.size() >= 1u);
    auto aToB = curl("nsenter -t " + std::to_string(pidA[0]) + " -n ", ipB);
    auto bToA = curl("nsenter -t " + std::to_string(pidB[0]) + " -n ", ipA);
    BOOST_TEST(aToB.out == markerB, aToB.out << aToB.err);
    BOOST_TEST(bToA.out == markerA, bToA.out << bToA.err);
    // Port 8000 inside A is A's own server.
    auto aSelf = curl("nsenter -t " + std::to_string(pidA[0]) + " -n ", "127.0.0.1");
    BOOST_TEST(aSelf.out == markerA, aSelf.out << aSelf.err);
    op.stopAndCheckClean({markerA, markerB});
}

// ---- the status server (TrainJobStatus feature gate) ---------------------------------------------

namespace {

// A TCP port nothing listens on right now (bound to port 0 and released).
int freePort() {
    int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    BOOST_REQUIRE(fd >= 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_ANY);
    socklen_t len = sizeof a;
    BOOST_REQUIRE(::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0);
    BOOST_REQUIRE(::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len) == 0);
    ::close(fd);
    return ntohs(a.sin_port);
}

// A Configuration moving the status server to `port` (the plugin's URL follows it).
std::string statusServerConfig(const TempDir& dir, int port) {
    return dir
        .write("config.yaml", "apiVersion: config.trainer.kubeflow.org/v1alpha1\nkind: Configuration\n"
                              "statusServer: {port: " + std::to_string(port) + "}\n")
        .string();
}

// Who listens on TCP `port` (ss lines; empty when nobody does).
std::string listenersOn(int port) {
    auto r = sh("ss -Hltn 'sport = :" + std::to_string(port) + "'");
    BOOST_TEST_REQUIRE(r.exit == 0, "ss: " << r.err);
    return r.out;
}

const std::string kStatusHost = "kubeflow-trainer-controller-manager.kubeflow-system.svc";
const std::string kWebhookSecret = "secret kubeflow-trainer-webhook-cert -n kubeflow-system";

std::string envValue(const json::object& container, const std::string& name) {
    auto const* env = container.if_contains("env");
    if (!env || !env->is_array()) return "";
    for (auto const& e : env->get_array())
        if (e.is_object() && str(e.get_object(), {"name"}) == name) return str(e.get_object(), {"value"});
    return "";
}

bool anyContainerHasEnv(const json::object& pod, const std::string& name) {
    for (auto const& c : pod.at("spec").as_object().at("containers").as_array())
        if (c.as_object().contains("env"))
            for (auto const& e : c.as_object().at("env").as_array())
                if (str(e.as_object(), {"name"}) == name) return true;
    return false;
}

}  // namespace

// 9. With the gate on, a real torchrun loop (examples/local/24) reports its progress over HTTPS
// with its projected token; status.trainerStatus ends at 100 and the TrainJob Complete. A wrong
// token is refused 403 and writes nothing; the certificate in the store's Secret survives a restart.
BOOST_AUTO_TEST_CASE(status_server_reports_torch_progress_to_100) {
    TempDir dir;
    Operator op(dir);
    const int port = freePort();
    const std::vector<std::string> flags{"--config", statusServerConfig(dir, port), "--feature-gates", "TrainJobStatus=true"};
    op.start(flags);
    BOOST_TEST_REQUIRE(contains(op.log(), "Serving TrainJob status updates"), op.log());
    BOOST_TEST(!listenersOn(port).empty(), "nothing listens on the status server's port " << port);
    // The signing key is kept in the state directory, readable by its owner only.
    struct stat st{};
    auto key = op.stateDir() / "service-account" / "service-account-signing-key.pem";
    BOOST_TEST_REQUIRE(::stat(key.c_str(), &st) == 0, key << " is missing");
    BOOST_TEST((st.st_mode & 0777) == 0600u, key << " has mode " << std::oct << (st.st_mode & 0777));

    op.apply({kLocal + "/10-runtime-torch-distributed.yaml", kLocal + "/24-trainjob-torch-progress.yaml"});
    std::set<std::string> seen;  // what polling happened to see (not asserted: timing)
    std::optional<json::object> tj;
    bool done = eventually(
        [&] {
            auto p = op.kubectl("get trainjob torch-progress -o jsonpath={.status.trainerStatus.progressPercentage}");
            if (p.exit == 0 && !p.out.empty()) seen.insert(p.out);
            tj = op.get("trainjob torch-progress");
            return tj && (conditionStatus(*tj, "Complete") == "True" || conditionStatus(*tj, "Failed") == "True");
        },
        300s, 250ms);
    BOOST_REQUIRE_MESSAGE(done, "torch-progress not finished: " << (tj ? json::serialize(*tj) : "absent") << "\nlog:\n"
                                                                << op.log());
    BOOST_TEST_REQUIRE(conditionStatus(*tj, "Complete") == "True", json::serialize(*tj) << "\nlog:\n" << op.log());
    Result progress;
    BOOST_TEST(eventually(
                   [&] {
                       progress = op.kubectl("get trainjob torch-progress -o jsonpath={.status.trainerStatus.progressPercentage}");
                       return progress.out == "100";
                   },
                   30s),
               "progressPercentage: " << progress.out << progress.err << "\nlog:\n" << op.log());
    BOOST_TEST_MESSAGE("progress values seen while polling: " << join(std::vector<std::string>(seen.begin(), seen.end())));
    tj = op.get("trainjob torch-progress");
    auto trainer = str(*tj, {"status", "trainerStatus"});
    BOOST_TEST(contains(trainer, "\"name\":\"loss\""), trainer);
    BOOST_TEST(contains(trainer, "lastUpdatedTime"), trainer);

    // The pods got the plugin's env with this operator's port; rank 0 reported before the end (its
    // first report is at step 1 of 40, so below 100) and every report was accepted.
    auto pods = op.podsOf("torch-progress");
    BOOST_TEST_REQUIRE(pods.size() == 2u, op.kubectl("get pods -o wide").out);
    std::string rank0;
    for (auto const& pod : pods) {
        auto const& c = pod.at("spec").as_object().at("containers").as_array()[0].as_object();
        BOOST_TEST(envValue(c, "KUBEFLOW_TRAINER_SERVER_URL") ==
                       "https://" + kStatusHost + ":" + std::to_string(port) +
                           "/apis/trainer.kubeflow.org/v1alpha1/namespaces/default/trainjobs/torch-progress/status",
                   json::serialize(c));
        auto name = str(pod, {"metadata", "name"});
        if (name.rfind("torch-progress-node-0-0-", 0) == 0) rank0 = name;
    }
    BOOST_TEST_REQUIRE(!rank0.empty());
    auto logs = op.kubectl("logs " + rank0);
    BOOST_TEST(contains(logs.out, "reported progress=2% (HTTP 200)"), logs.out);
    BOOST_TEST(contains(logs.out, "reported progress=100% (HTTP 200)"), logs.out);
    BOOST_TEST(!contains(logs.out, "progress report failed"), logs.out);

    // A wrong token, over TLS verified with the CA of the store's Secret: 403, nothing written.
    auto ca = op.kubectl("get " + kWebhookSecret + " -o " + quote("jsonpath={.data.ca\\.crt}"));
    BOOST_TEST_REQUIRE((ca.exit == 0 && !ca.out.empty()), ca.err);
    auto caFile = dir.file("ca.crt");
    BOOST_TEST_REQUIRE(sh("echo " + quote(ca.out) + " | base64 -d > " + quote(caFile)).exit == 0);
    auto before = op.get("trainjob torch-progress");
    const std::string url = "https://" + kStatusHost + ":" + std::to_string(port) +
                            "/apis/trainer.kubeflow.org/v1alpha1/namespaces/default/trainjobs/torch-progress/status";
    auto post = sh("curl --noproxy '*' -sS --max-time 10 -o /dev/null -w '%{http_code}' --cacert " + quote(caFile) +
                   " --resolve " + kStatusHost + ":" + std::to_string(port) + ":127.0.0.1" +
                   " -H 'Authorization: Bearer not-a-token' -H 'Content-Type: application/json'" +
                   " -d '{\"trainerStatus\":{\"progressPercentage\":7}}' " + quote(url));
    BOOST_TEST(post.out == "403", post.out << post.err);
    auto after = op.get("trainjob torch-progress");
    BOOST_TEST(str(*after, {"metadata", "resourceVersion"}) == str(*before, {"metadata", "resourceVersion"}));
    BOOST_TEST(str(*after, {"status", "trainerStatus", "progressPercentage"}) == "100");

    // A restart reuses the serving certificate kept in the store.
    auto cert = op.kubectl("get " + kWebhookSecret + " -o " + quote("jsonpath={.data.tls\\.crt}"));
    BOOST_TEST_REQUIRE((cert.exit == 0 && !cert.out.empty()), cert.err);
    BOOST_TEST(op.stop() == 0, op.log());
    op.start(flags);
    auto again = op.kubectl("get " + kWebhookSecret + " -o " + quote("jsonpath={.data.tls\\.crt}"));
    BOOST_TEST(again.out == cert.out, "the certificate was made anew on restart");
    op.stopAndCheckClean({});
}

// 10. With the gate off (the default): no status server port, no Secret, no key, and the pods
// carry no KUBEFLOW_TRAINER_SERVER_* env.
BOOST_AUTO_TEST_CASE(status_server_is_off_without_the_gate) {
    TempDir dir;
    Operator op(dir);
    const int port = freePort();
    op.start({"--config", statusServerConfig(dir, port)});
    const auto marker = newMarker("gate-off");
    op.applyText("runtime", kPlainRuntime);
    op.applyText("job", sleeperJob("gate-off", marker));
    waitProcesses(op, marker, true, 120s, "the sleeper");
    auto pods = op.podsOf("gate-off");
    BOOST_TEST_REQUIRE(pods.size() == 1u);
    BOOST_TEST(!anyContainerHasEnv(pods[0], "KUBEFLOW_TRAINER_SERVER_URL"), json::serialize(pods[0].at("spec")));
    BOOST_TEST(listenersOn(port).empty(), "something listens on " << port << ": " << listenersOn(port));
    BOOST_TEST(!contains(op.log(), "Serving TrainJob status updates"), op.log());
    auto secret = op.kubectl("get " + kWebhookSecret);
    BOOST_TEST(contains(secret.err, "(NotFound)"), secret.out << secret.err);
    BOOST_TEST(!fs::exists(op.stateDir() / "service-account"));
    op.stopAndCheckClean({marker});
}
