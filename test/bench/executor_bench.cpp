// What the local executor (core/executor/kubelet.hpp) costs to start a pod, against the bare
// operations underneath it: a real Kubelet on a SQLite store (synchronous=NORMAL, as api_bench:
// the writes are load, not what is measured), bare pods `date +%s.%N` with restartPolicy Never.
// Needs root (pod network namespaces).
//   executor_bench [N pods per burst] [rounds] [sequential pods per round] [container init binary]
//                  [normal|durable|tiered]
// The containers' init is what the operator runs by default (core/executor/container_init_binary.hpp:
// the trainer-container-init helper of this build tree); a 4th argument runs another, e.g. the
// operator's binary through its own `__container-init` entry, for comparison. A 5th picks the
// store's syncing: normal (the default: synchronous=NORMAL for every write), durable (every write
// synced, as the kubelet wrote before its progress went to a rederivable writer), tiered (as `run`
// writes: a pod's first status with startTime and its final one synced, the rest not).
// Measures, per round (medians over the rounds are printed):
//   burst       N pods created at once, timed from the first create until all are Succeeded
//               (store polled every 2 ms): pods per second;
//   start       one pod at a time: from just before its create to its command's first
//               instruction (the container prints CLOCK_REALTIME with `date +%s.%N`; the same
//               clock is read before the create): the executor's overhead per pod (median);
//   succeeded   one pod at a time: create to phase Succeeded seen in the store (median);
//   fork+exec   posix_spawn of /bin/true and waitpid (median of 200);
//   netns       `ip netns add` + `ip netns del` of one namespace, each a posix_spawn (median of 20).
// Every pod's log must hold exactly one timestamp: a pod run twice is reported. Prints its own
// summary, then ROW lines for scripts/bench.sh (bench_support.hpp).
#include "bench_support.hpp"

#include "core/controller/clock.hpp"
#include "core/executor/container_init_binary.hpp"
#include "core/executor/kubelet.hpp"
#include "core/executor/pod_logs.hpp"
#include "core/store/sqlite_store.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <functional>
#include <spawn.h>
#include <sstream>
#include <string>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>
#include <vector>

using namespace trainer::core;
namespace fs = std::filesystem;
using Steady = std::chrono::steady_clock;
using namespace std::chrono_literals;

extern char** environ;

namespace {

constexpr const char* kNs = "bench";
constexpr auto kTimeout = 120s;

double median(std::vector<double> v) {
    if (v.empty()) return 0;
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

double realtimeNow() {
    timespec ts{};
    ::clock_gettime(CLOCK_REALTIME, &ts);
    return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

double since(Steady::time_point t) { return std::chrono::duration<double>(Steady::now() - t).count(); }

// Runs argv (found in PATH) and waits; false when it cannot be spawned or fails.
bool spawnWait(const std::vector<std::string>& args) {
    std::vector<char*> argv;
    for (auto const& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    pid_t pid = 0;
    if (::posix_spawnp(&pid, argv[0], nullptr, nullptr, argv.data(), environ) != 0) return false;
    int st = 0;
    ::waitpid(pid, &st, 0);
    return WIFEXITED(st) && WEXITSTATUS(st) == 0;
}

// Median seconds of `n` runs of `body`.
double timeEach(int n, const std::function<bool()>& body) {
    std::vector<double> t;
    for (int i = 0; i < n; ++i) {
        auto start = Steady::now();
        if (!body()) {
            std::fprintf(stderr, "executor_bench: baseline command failed\n");
            std::exit(1);
        }
        t.push_back(since(start));
    }
    return median(t);
}

std::string readFile(const fs::path& p) {
    std::ifstream in(p);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

struct Bench {
    Store& store;
    executor::Kubelet& kubelet;
    fs::path stateDir;
    int serial = 0;
    int runTwice = 0;

    json::object createPod(const std::string& name) {
        json::object p{{"apiVersion", "v1"},
                       {"kind", "Pod"},
                       {"metadata", {{"namespace", kNs}, {"name", name}}},
                       {"spec", json::parse(R"({"restartPolicy":"Never","terminationGracePeriodSeconds":0,
                          "containers":[{"name":"c","image":"none","command":["date","+%s.%N"]}]})")}};
        auto r = store.create(p);
        if (!r.ok()) fail("create " + name + ": " + r.message);
        return r.object;
    }

    [[noreturn]] static void fail(const std::string& why) {
        std::fprintf(stderr, "executor_bench: %s\n", why.c_str());
        std::exit(1);
    }

    static std::string phaseOf(const json::object& pod) {
        auto* s = pod.if_contains("status");
        auto* p = s && s->is_object() ? s->get_object().if_contains("phase") : nullptr;
        return p && p->is_string() ? std::string(p->get_string()) : "";
    }

    fs::path logOf(const json::object& pod) const {
        auto const& md = pod.at("metadata").as_object();
        return executor::containerLogPath(stateDir, kNs, std::string(md.at("name").as_string()),
                                          std::string(md.at("uid").as_string()), "c", 0);
    }

    // The timestamp the container printed, once it has; a second line means a second run.
    std::optional<double> startedAt(const json::object& pod) {
        std::string text = readFile(logOf(pod));
        if (text.empty() || text.back() != '\n') return std::nullopt;
        if (std::count(text.begin(), text.end(), '\n') != 1) ++runTwice;
        return std::strtod(text.c_str(), nullptr);
    }

    void waitUntil(const std::function<bool()>& cond, const std::string& what) {
        auto end = Steady::now() + kTimeout;
        while (!cond()) {
            if (Steady::now() > end) fail("timed out waiting for " + what);
            std::this_thread::sleep_for(2ms);
        }
    }

    // N pods at once: seconds from the first create until all are Succeeded.
    double burst(int n) {
        auto start = Steady::now();
        for (int i = 0; i < n; ++i) createPod("burst-" + std::to_string(serial++));
        waitUntil([&] {
            int done = 0;
            for (auto const& p : store.list("v1", "Pod", kNs).value) {
                auto phase = phaseOf(p);
                if (phase == "Failed") fail("pod failed: " + json::serialize(p));
                done += phase == "Succeeded";
            }
            return done == n;
        }, "a burst of pods to succeed");
        double secs = since(start);
        for (auto const& p : store.list("v1", "Pod", kNs).value) startedAt(p);
        return secs;
    }

    // One pod: {create -> command start, create -> Succeeded seen}.
    std::pair<double, double> single() {
        const std::string name = "one-" + std::to_string(serial++);
        auto start = Steady::now();
        double created = realtimeNow();
        auto pod = createPod(name);
        ObjectKey key{"v1", "Pod", kNs, name};
        waitUntil([&] { auto p = store.get(key); return p.found() && phaseOf(p.object) == "Succeeded"; }, "pod " + name);
        double succeeded = since(start);
        auto began = startedAt(pod);
        if (!began) fail("pod " + name + " succeeded without a timestamp in its log");
        return {*began - created, succeeded};
    }

    void clear() {
        for (auto const& p : store.list("v1", "Pod", kNs).value) store.remove(keyOf(p));
        waitUntil([&] { return kubelet.activePods() == 0; }, "the kubelet to drop deleted pods");
    }
};

}  // namespace

int main(int argc, char** argv) {
    const int n = argc > 1 ? std::atoi(argv[1]) : 50;
    const int rounds = argc > 2 ? std::atoi(argv[2]) : 5;
    const int sequential = argc > 3 ? std::atoi(argv[3]) : 10;
    const std::string binary = argc > 4 ? argv[4] : "";  // "": the kubelet's own choice
    const std::string sync = argc > 5 ? argv[5] : "normal";
    if (n < 1 || rounds < 1 || sequential < 1 || (sync != "normal" && sync != "durable" && sync != "tiered"))
        Bench::fail("usage: executor_bench [N] [rounds] [sequential] [binary] [normal|durable|tiered]");
    if (::geteuid() != 0) Bench::fail("needs root (the local executor makes network namespaces)");
    if (!binary.empty() && !fs::exists(binary)) Bench::fail("no container init binary at " + binary);
    const std::string init = binary.empty() ? executor::chooseContainerInit(fs::read_symlink("/proc/self/exe").string()).path : binary;

    std::string tmpl = (fs::temp_directory_path() / "executor_bench-XXXXXX").string();
    if (!::mkdtemp(tmpl.data())) Bench::fail("mkdtemp failed");
    const fs::path dir = tmpl;
    const std::string dbPath = (dir / "store.db").string();
    SqliteStoreOptions so;
    so.durable = sync != "normal";
    auto opened = SqliteStore::open(dbPath, so);
    if (!opened.store) Bench::fail(opened.error);
    auto rederivable = opened.store->rederivableWriter();
    controller::RealClock clock;
    executor::KubeletOptions ko;
    ko.stateDir = executor::executorStateDir(dbPath);
    ko.executable = binary;
    executor::Kubelet kubelet(*opened.store, sync == "tiered" ? *rederivable : *opened.store, clock,
                              log::Logger("executor-bench"), ko);
    if (auto err = kubelet.start(); !err.empty()) Bench::fail(err);

    Bench b{*opened.store, kubelet, ko.stateDir};
    b.single();  // warm-up: page cache, the bridge's first port
    b.clear();
    std::vector<double> burstRates, starts, succeededs;
    for (int r = 0; r < rounds; ++r) {
        burstRates.push_back(n / b.burst(n));
        b.clear();
        std::vector<double> s, d;
        for (int i = 0; i < sequential; ++i) {
            auto [start, done] = b.single();
            s.push_back(start);
            d.push_back(done);
        }
        starts.push_back(median(s));
        succeededs.push_back(median(d));
        b.clear();
        std::printf("round %d: burst %.1f pods/s, start %.2f ms, succeeded %.2f ms\n", r + 1, burstRates.back(),
                    starts.back() * 1e3, succeededs.back() * 1e3);
    }
    kubelet.stop();

    const double forkExec = timeEach(200, [] { return spawnWait({"/bin/true"}); });
    int netnsSerial = 0;
    const double netns = timeEach(20, [&] {
        std::string name = "trn-bench-" + std::to_string(::getpid()) + "-" + std::to_string(netnsSerial++);
        return spawnWait({"ip", "netns", "add", name}) && spawnWait({"ip", "netns", "del", name});
    });

    const double start = median(starts), succeeded = median(succeededs), rate = median(burstRates);
    std::printf("\nexecutor_bench: %d rounds; burst of %d pods; %d sequential pods per round (medians of rounds)\n",
                rounds, n, sequential);
    std::printf("%-34s %12.1f pods/s  (%.2f ms per pod)\n", "burst: create -> all Succeeded", rate, 1e3 / rate);
    std::printf("%-34s %12.2f ms\n", "one pod: create -> command runs", start * 1e3);
    std::printf("%-34s %12.2f ms\n", "one pod: create -> Succeeded seen", succeeded * 1e3);
    std::printf("%-34s %12.3f ms\n", "fork+exec+wait of /bin/true", forkExec * 1e3);
    std::printf("%-34s %12.2f ms\n", "ip netns add + del", netns * 1e3);
    std::printf("\n%-34s %12.1fx\n", "pod start / fork+exec", start / forkExec);
    std::printf("%-34s %12.2fx\n", "pod start / netns add+del", start / netns);
    std::printf("%-34s %12.2fx\n", "burst per-pod / netns add+del", (1.0 / rate) / netns);
    std::printf("(container init %s; store %s; kubelet poll interval %lld ms; pods run twice: %d)\n", init.c_str(),
                sync.c_str(), static_cast<long long>(ko.pollInterval.count()), b.runTwice);
    // scripts/bench.sh's table: the figures the issue asks for beside the targets, without one.
    using trainer::bench::fixed;
    trainer::bench::row("executor: one pod, create -> its command runs", fixed(start * 1e3) + " ms",
                        fixed(forkExec * 1e3, 3) + " ms (fork+exec+wait)", fixed(start / forkExec, 1) + "x", "(no target)", "-");
    trainer::bench::row("executor: burst of " + std::to_string(n) + " pods, per pod to Succeeded", fixed(1e3 / rate) + " ms",
                        fixed(netns * 1e3) + " ms (ip netns add+del)", fixed((1.0 / rate) / netns) + "x", "(no target)", "-");
    std::error_code ec;
    fs::remove_all(dir, ec);
    return b.runTwice == 0 ? 0 : 1;
}
