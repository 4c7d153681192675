// End-to-end: container logs. Real kubectl (v1.32) `logs` against `trainer-operator apiserver`
// (the API alone: no controller or kubelet touches the Pods), and `trainer-operator logs` on the
// same store. The test writes Pods and their statuses straight into the SQLite store, as the
// local executor's kubelet does, and the log files where it keeps them:
// <store>.local/pods/<ns>_<pod>_<uid>/<container>/<restartCount>.log (core/executor/pod_logs.hpp).
// One API server serves every case; each case creates the Pods it reads.
#define BOOST_TEST_MODULE test_e2e_api_logs
#include <boost/test/unit_test.hpp>

#include "../support/process.hpp"
#include "core/store/sqlite_store.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <thread>
#include <vector>

namespace fs = std::filesystem;
using namespace std::chrono_literals;
using namespace trainer::core;

namespace {

using trainer::test::Result;
using trainer::test::sh;
using trainer::test::slurp;
using trainer::test::TempDir;

const std::string kBin = TRAINER_BIN;

std::string kubectlPath() {
    const char* e = std::getenv("KUBECTL");
    return e && *e ? e : "/usr/bin/kubectl";
}

std::string quote(const std::string& s) {
    std::string out = "'";
    for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return out + "'";
}

bool contains(const std::string& text, const std::string& needle) { return text.find(needle) != std::string::npos; }

// Polls `p` until true; the limit only bounds a failure, nothing asserts how long it took.
template <class Pred>
bool eventually(Pred p, std::chrono::milliseconds limit = 60s, std::chrono::milliseconds step = 100ms) {
    auto end = std::chrono::steady_clock::now() + limit;
    while (std::chrono::steady_clock::now() < end) {
        if (p()) return true;
        std::this_thread::sleep_for(step);
    }
    return p();
}

int exitCode(int st) { return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st); }

// A child process in its own process group, stdout and stderr to files; killed when dropped.
class Child {
public:
    Child(std::vector<std::string> args, const std::string& out, const std::string& err) {
        pid_ = ::fork();
        BOOST_REQUIRE(pid_ >= 0);
        if (pid_ == 0) {
            ::setpgid(0, 0);
            int o = ::open(out.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
            int e = out == err ? o : ::open(err.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
            ::dup2(o, 1);
            ::dup2(e, 2);
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
    // Waits up to `limit` for the process to exit on its own: its exit code, or -1.
    int waitExit(std::chrono::milliseconds limit) {
        eventually([&] { return !running(); }, limit, 50ms);
        return running() ? -1 : exit_;
    }

private:
    pid_t pid_ = -1;
    int exit_ = -1;
};

// `trainer-operator apiserver` on a fresh store, the store opened by the test too.
class Server {
public:
    static Server& get() {
        static std::unique_ptr<Server> instance;
        if (!instance) {
            instance = std::make_unique<Server>();
            instance->start();
        }
        BOOST_REQUIRE_MESSAGE(instance->ready_, "the API server did not start (see the first failure)");
        return *instance;
    }

    Result kubectl(const std::string& args) const {
        return sh("HOME=" + quote(dir.file("home")) + " " + quote(kubectlPath()) + " --kubeconfig " + quote(kubeconfig) +
                  " --cache-dir " + quote(dir.file("kube-cache")) + " --request-timeout=30s " + args);
    }
    Result operatorLogs(const std::string& args) const {
        return sh(quote(kBin) + " logs --store " + quote(storePath) + " " + args);
    }
    std::unique_ptr<Child> spawn(std::vector<std::string> argv, const std::string& name) const {
        return std::make_unique<Child>(std::move(argv), dir.file(name + ".out"), dir.file(name + ".err"));
    }
    std::vector<std::string> kubectlArgv(std::vector<std::string> args) const {
        std::vector<std::string> argv{kubectlPath(), "--kubeconfig", kubeconfig, "--cache-dir", dir.file("kube-cache")};
        argv.insert(argv.end(), args.begin(), args.end());
        return argv;
    }
    std::string output(const std::string& name) const { return slurp(dir.file(name + ".out")); }
    std::string errors(const std::string& name) const { return slurp(dir.file(name + ".err")); }

    // A Pod with `containers` in state `state` (restartCount 0) and optional labels; its uid.
    std::string addPod(const std::string& name, const std::vector<std::string>& containers, const std::string& state,
                       json::object labels = {}) {
        json::array cs;
        for (auto const& c : containers) cs.push_back(json::object{{"name", c}, {"image", "busybox"}});
        auto r = store->create(json::object{
            {"apiVersion", "v1"},
            {"kind", "Pod"},
            {"metadata", json::object{{"name", name}, {"namespace", "default"}, {"labels", std::move(labels)}}},
            {"spec", json::object{{"containers", std::move(cs)}, {"nodeName", "trainer-local"}}}});
        BOOST_REQUIRE_MESSAGE(r.ok(), r.message);
        setState(name, containers, state);
        return std::string(r.object.at("metadata").at("uid").as_string());
    }
    void setState(const std::string& pod, const std::vector<std::string>& containers, const std::string& state) {
        json::array statuses;
        for (auto const& c : containers) {
            json::object detail;
            if (state == "waiting") detail["reason"] = "ContainerCreating";
            if (state == "terminated") detail["exitCode"] = 0;
            statuses.push_back(json::object{{"name", c}, {"restartCount", 0}, {"state", json::object{{state, detail}}}});
        }
        auto obj = store->get(ObjectKey{"v1", "Pod", "default", pod}).object;
        obj["status"] = json::object{{"containerStatuses", std::move(statuses)}};
        auto r = store->updateStatus(obj);
        BOOST_REQUIRE_MESSAGE(r.ok(), r.message);
    }
    // Appends to the current (restartCount 0) log of a container, where the kubelet writes it.
    void append(const std::string& pod, const std::string& uid, const std::string& container, const std::string& text) {
        fs::path p = storePath + ".local";
        p = p / "pods" / ("default_" + pod + "_" + uid) / container / "0.log";
        fs::create_directories(p.parent_path());
        std::ofstream(p, std::ios::app | std::ios::binary) << text;
    }

    TempDir dir;
    std::string storePath = dir.file("store.db");
    std::string kubeconfig = dir.file("kubeconfig");
    std::unique_ptr<SqliteStore> store;

private:
    void start() {
        BOOST_REQUIRE_MESSAGE(fs::exists(kubectlPath()),
                              "kubectl not found at " << kubectlPath()
                                                      << " (kubectl >= 1.27, which scripts/setup.sh checks for; or set KUBECTL)");
        BOOST_REQUIRE_MESSAGE(fs::exists(kBin), "trainer-operator not built: " << kBin);
        fs::create_directories(dir.file("home"));
        api_ = std::make_unique<Child>(std::vector<std::string>{kBin, "apiserver", "--store", storePath,
                                                                "--api-bind-address", "127.0.0.1:0",
                                                                "--write-kubeconfig", kubeconfig},
                                       dir.file("apiserver.log"), dir.file("apiserver.log"));
        BOOST_REQUIRE_MESSAGE(eventually([&] { return fs::exists(kubeconfig) || !api_->running(); }) && fs::exists(kubeconfig),
                              "no kubeconfig; log:\n" << slurp(dir.file("apiserver.log")));
        Result last;
        BOOST_REQUIRE_MESSAGE(eventually([&] {
                                  last = kubectl("get --raw /readyz");
                                  return last.exit == 0 && last.out == "ok";
                              }),
                              "not ready: " << last.err << "\nlog:\n" << slurp(dir.file("apiserver.log")));
        auto opened = SqliteStore::open(storePath);
        BOOST_REQUIRE_MESSAGE(opened.store, opened.error);
        store = std::move(opened.store);
        ready_ = true;
    }

    std::unique_ptr<Child> api_;
    bool ready_ = false;
};

}  // namespace

BOOST_AUTO_TEST_CASE(kubectl_logs_of_a_pod_and_a_named_container) {
    auto& s = Server::get();
    auto uid = s.addPod("solo", {"main"}, "running");
    s.append("solo", uid, "main", "line one\nline two\nline three\n");
    auto r = s.kubectl("logs solo");
    BOOST_TEST(r.exit == 0, r.err);
    BOOST_TEST(r.out == "line one\nline two\nline three\n");

    auto tail = s.kubectl("logs --tail=1 solo");
    BOOST_TEST(tail.exit == 0, tail.err);
    BOOST_TEST(tail.out == "line three\n");
    BOOST_TEST(s.kubectl("logs pod/solo --limit-bytes=4").out == "line");

    auto duo = s.addPod("duo", {"a", "b"}, "running");
    s.append("duo", duo, "a", "from a\n");
    s.append("duo", duo, "b", "from b\n");
    auto b = s.kubectl("logs duo -c b");
    BOOST_TEST(b.exit == 0, b.err);
    BOOST_TEST(b.out == "from b\n");
    // Without -c kubectl picks the first container itself and says so.
    auto first = s.kubectl("logs duo");
    BOOST_TEST(first.out == "from a\n");
    BOOST_TEST(contains(first.err, "Defaulted container \"a\""), first.err);
}

BOOST_AUTO_TEST_CASE(kubectl_logs_errors) {
    auto& s = Server::get();
    auto missing = s.kubectl("logs nope");
    BOOST_TEST(missing.exit == 1);
    // kubectl reads the Pod first: `error: error from server (NotFound): pods "nope" not found in namespace "default"`.
    BOOST_TEST(contains(missing.err, "(NotFound): pods \"nope\" not found"), missing.err);
    s.addPod("pending", {"main"}, "waiting");
    auto waiting = s.kubectl("logs pending");
    BOOST_TEST(waiting.exit == 1);
    BOOST_TEST(contains(waiting.err, "Error from server (BadRequest): container \"main\" in pod \"pending\" is waiting to "
                                     "start: ContainerCreating"),
               waiting.err);
    auto other = s.kubectl("logs solo -c nope");
    BOOST_TEST(other.exit == 1);
    BOOST_TEST(contains(other.err, "container nope is not valid for pod solo"), other.err);
}

BOOST_AUTO_TEST_CASE(kubectl_logs_follow_ends_when_the_container_terminates) {
    auto& s = Server::get();
    auto uid = s.addPod("follow", {"main"}, "running");
    s.append("follow", uid, "main", "first\n");
    auto k = s.spawn(s.kubectlArgv({"logs", "-f", "follow"}), "follow");
    BOOST_REQUIRE_MESSAGE(eventually([&] { return contains(s.output("follow"), "first\n") || !k->running(); }),
                          "kubectl logs -f printed nothing: " << s.errors("follow"));
    BOOST_TEST(k->running(), "kubectl logs -f ended early: " << s.errors("follow"));
    s.append("follow", uid, "main", "second\n");
    BOOST_TEST(eventually([&] { return contains(s.output("follow"), "second\n"); }), s.output("follow"));
    s.append("follow", uid, "main", "third\n");
    s.setState("follow", {"main"}, "terminated");
    BOOST_TEST(k->waitExit(60s) == 0, s.errors("follow"));
    BOOST_TEST(s.output("follow") == "first\nsecond\nthird\n");
}

BOOST_AUTO_TEST_CASE(operator_logs_of_a_pod) {
    auto& s = Server::get();
    auto r = s.operatorLogs("solo");
    BOOST_TEST(r.exit == 0, r.err);
    BOOST_TEST(r.out == "line one\nline two\nline three\n");
    BOOST_TEST(s.operatorLogs("solo --tail 2").out == "line two\nline three\n");
    BOOST_TEST(s.operatorLogs("duo -c b").out == "from b\n");
    auto missing = s.operatorLogs("nope");
    BOOST_TEST(missing.exit == 1);
    BOOST_TEST(missing.err == "error: pods \"nope\" not found\n");
    auto unchosen = s.operatorLogs("duo");
    BOOST_TEST(unchosen.exit == 1);
    BOOST_TEST(unchosen.err == "error: a container name must be specified for pod duo, choose one of: [a b]\n");
    auto waiting = s.operatorLogs("pending");
    BOOST_TEST(waiting.exit == 1);
    BOOST_TEST(waiting.err == "error: container \"main\" in pod \"pending\" is waiting to start: ContainerCreating\n");
}

BOOST_AUTO_TEST_CASE(operator_logs_of_a_trainjob) {
    auto& s = Server::get();
    auto job = s.store->create(json::object{{"apiVersion", "trainer.kubeflow.org/v1alpha1"},
                                            {"kind", "TrainJob"},
                                            {"metadata", json::object{{"name", "tj"}, {"namespace", "default"}}},
                                            {"spec", json::object{{"runtimeRef", json::object{{"name", "r"}}}}}});
    BOOST_REQUIRE_MESSAGE(job.ok(), job.message);
    json::object label{{"jobset.sigs.k8s.io/jobset-name", "tj"}};
    auto n1 = s.addPod("tj-node-0-1", {"node"}, "running", label);
    auto n0 = s.addPod("tj-node-0-0", {"node"}, "running", label);
    auto init = s.addPod("tj-init-0-0", {"model", "dataset"}, "running", label);
    s.addPod("other-0", {"node"}, "running", json::object{{"jobset.sigs.k8s.io/jobset-name", "other"}});
    s.append("tj-node-0-0", n0, "node", "rank 0\n");
    s.append("tj-node-0-1", n1, "node", "rank 1\nno newline");
    s.append("tj-init-0-0", init, "model", "model ready\n");
    s.append("tj-init-0-0", init, "dataset", "dataset ready\n");
    auto r = s.operatorLogs("trainjob/tj");
    BOOST_TEST(r.exit == 0, r.err);
    BOOST_TEST(r.out == "[tj-init-0-0/model] model ready\n[tj-init-0-0/dataset] dataset ready\n"
                        "[tj-node-0-0] rank 0\n[tj-node-0-1] rank 1\n[tj-node-0-1] no newline\n");
    BOOST_TEST(s.operatorLogs("trainjob/tj --tail 1 -c node").out == "[tj-node-0-0] rank 0\n[tj-node-0-1] no newline\n");
    auto missing = s.operatorLogs("trainjob/nope");
    BOOST_TEST(missing.exit == 1);
    BOOST_TEST(missing.err == "error: trainjobs.trainer.kubeflow.org \"nope\" not found\n");

    // -f follows every container at once and ends when all have terminated.
    auto f = s.spawn({kBin, "logs", "--store", s.storePath, "-f", "trainjob/tj"}, "tj-follow");
    BOOST_REQUIRE(eventually([&] { return contains(s.output("tj-follow"), "[tj-node-0-0] rank 0\n") || !f->running(); }));
    s.append("tj-node-0-0", n0, "node", "epoch 1\n");
    BOOST_TEST(eventually([&] { return contains(s.output("tj-follow"), "[tj-node-0-0] epoch 1\n"); }), s.output("tj-follow"));
    BOOST_TEST(f->running(), s.errors("tj-follow"));
    s.setState("tj-node-0-0", {"node"}, "terminated");
    s.setState("tj-node-0-1", {"node"}, "terminated");
    s.setState("tj-init-0-0", {"model", "dataset"}, "terminated");
    BOOST_TEST(f->waitExit(60s) == 0, s.errors("tj-follow"));
    auto out = s.output("tj-follow");
    for (auto line : {"[tj-init-0-0/model] model ready\n", "[tj-init-0-0/dataset] dataset ready\n",
                      "[tj-node-0-0] rank 0\n", "[tj-node-0-0] epoch 1\n", "[tj-node-0-1] rank 1\n",
                      "[tj-node-0-1] no newline\n"})
        BOOST_TEST(contains(out, line), line << " missing in:\n" << out);
    BOOST_TEST(!contains(out, "other"), out);
}

BOOST_AUTO_TEST_CASE(get_pods_prints_kubectls_columns) {
    auto& s = Server::get();
    auto r = sh(quote(kBin) + " get pods --store " + quote(s.storePath));
    BOOST_TEST(r.exit == 0, r.err);
    BOOST_TEST(r.out.starts_with("NAME "), r.out);
    for (auto col : {"READY", "STATUS", "RESTARTS", "AGE"}) BOOST_TEST(contains(r.out.substr(0, r.out.find('\n')), col), r.out);
    BOOST_TEST(contains(r.out, "solo "), r.out);
}
