// P4 of issue 14: the TrainJob controller on the embedded store, from stored TrainJob to applied
// JobSet, as `trainer-operator run --store S --local-executor=false` (no API, no webhooks, no
// executor; leader election off; everything else the defaults, durable store included).
//   controller_bench [--sizes 1000,10000] [--full] [--runs R] [--runtime torch|mpi] [--operator BIN]
//                    [--plugin-dir DIR]
// --full adds N = 100,000 (the size; about 5 minutes at the target rate).
// cold    N TrainJobs stored before the controller starts (written through the store API into a
//         prepared file, copied for every run): seconds from the controller's spawn until the
//         store holds N JobSets. Throughput = N / seconds. The per-TrainJob cost compared across
//         sizes is the steady part, from the first JobSet to the last (start-up excluded), so the
//         flatness figure is not flattered by a fixed start-up cost spread over more TrainJobs.
// stream  the controller started on a store holding only the runtime; once it logs that its
//         workers started, this process creates N TrainJobs through the store API as fast as it
//         can (one transaction each, as N applies): seconds from the first create until N JobSets.
// rss     the controller's VmHWM when the last JobSet appears, against the JSON bytes of every
//         object in its store then (what it reads and writes; the embedded controller keeps no
//         informer cache).
// The store is polled read-only every few milliseconds through its change feed (as
// reconcile_bench.py's JobSetCounter). Medians of R runs (default 5).
#include "bench_objects.hpp"

#include <sqlite3.h>

#include <map>
#include <thread>

using namespace trainer;
using namespace trainer::bench;

namespace {

constexpr const char* kJobSetApi = "jobset.x-k8s.io/v1alpha2";

// JobSets in a store, cheaply per poll: the count once, then the ADDED JobSets of the change feed.
class JobSetCounter {
public:
    explicit JobSetCounter(const std::string& path) {
        if (sqlite3_open_v2(("file:" + path + "?mode=ro").c_str(), &db_, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, nullptr))
            fail("open " + path + " read-only");
        sqlite3_busy_timeout(db_, 10000);
        since_ = scalar("SELECT coalesce(max(revision), 0) FROM changes");
        count_ = scalar("SELECT count(*) FROM objects WHERE api_version='" + std::string(kJobSetApi) + "' AND kind='JobSet'");
    }
    ~JobSetCounter() { sqlite3_close_v2(db_); }
    long poll() {
        long upto = scalar("SELECT coalesce(max(revision), 0) FROM changes");
        count_ += scalar("SELECT count(*) FROM changes WHERE revision > " + std::to_string(since_) +
                         " AND revision <= " + std::to_string(upto) + " AND type = 0 AND api_version = '" + kJobSetApi +
                         "' AND kind = 'JobSet'");
        since_ = upto;
        return count_;
    }
    // Bytes of JSON of every stored object.
    long bodyBytes() { return scalar("SELECT coalesce(sum(length(body)), 0) FROM objects"); }

private:
    long scalar(const std::string& sql) {
        for (;;) {
            sqlite3_stmt* s = nullptr;
            int rc = sqlite3_prepare_v2(db_, sql.c_str(), -1, &s, nullptr);
            if (rc == SQLITE_OK) rc = sqlite3_step(s);
            long v = rc == SQLITE_ROW ? static_cast<long>(sqlite3_column_int64(s, 0)) : 0;
            sqlite3_finalize(s);
            if (rc == SQLITE_ROW) return v;
            if (rc != SQLITE_BUSY && rc != SQLITE_LOCKED) fail(std::string("sqlite: ") + sqlite3_errmsg(db_));
            std::this_thread::sleep_for(std::chrono::milliseconds(1));
        }
    }
    sqlite3* db_ = nullptr;
    long since_ = 0, count_ = 0;
};

double vmHwmMb(pid_t pid) {
    std::ifstream in("/proc/" + std::to_string(pid) + "/status");
    std::string line;
    while (std::getline(in, line))
        if (line.rfind("VmHWM:", 0) == 0) return std::atof(line.c_str() + 6) / 1024.0;
    return 0;
}

struct Setup {
    std::string op, plugins, dir, config;
    const Runtime* runtime = nullptr;
};

struct Run {
    double seconds = 0;       // spawn (cold) or first create (stream) until N JobSets
    double steadyUs = 0;      // per TrainJob, first JobSet to last
    double rssMb = 0;
    double jsonMb = 0;
    double writesPerSecond = 0;  // stream: the creator's rate
};

pid_t startController(const Setup& s, const std::string& store, const std::string& log) {
    return spawnServer({s.op, "run", "--store", store, "--plugin-dir", s.plugins, "--config", s.config,
                        "--local-executor=false", "--api-bind-address", "0", "--health-probe-bind-address", "0",
                        "--metrics-bind-address", "0"},
                       log, log);
}

void stopController(pid_t pid) {
    ::kill(pid, SIGTERM);
    int status = 0;
    ::waitpid(pid, &status, 0);
}

// The controller log's first line that says `text`, or empty.
std::string firstLogLine(const std::string& log, const std::string& text) {
    std::ifstream in(log);
    std::string line;
    while (std::getline(in, line))
        if (line.find(text) != std::string::npos) return line;
    return {};
}

// Polls until N JobSets (or the limit); fills seconds (from `start`), steadyUs and rss. Fails at
// once when the controller exits, and when no JobSet has come for kStall while its log reports
// reconcile errors (every reconcile failing, e.g. a wrong --plugin-dir), quoting the first; the
// log is read only then, once a second, not at every poll.
void waitForJobSets(const std::string& store, const std::string& log, pid_t pid, long n, Clock::time_point start, Run& r) {
    constexpr double kStall = 30;
    JobSetCounter counter(store);
    const double limit = std::max(300.0, n * 0.01);
    const auto interval = std::chrono::milliseconds(n <= 2000 ? 2 : 10);
    Clock::time_point first{}, progress = Clock::now(), logRead{};
    long atFirst = 0, last = 0;
    auto progressText = [&](long count) { return std::to_string(count) + " of " + std::to_string(n) + " JobSets"; };
    for (long count = 0; count < n;) {
        std::this_thread::sleep_for(interval);
        count = counter.poll();
        if (count > 0 && first == Clock::time_point{}) {
            first = Clock::now();
            atFirst = count;
        }
        if (count != last) last = count, progress = Clock::now();
        int status = 0;
        if (::waitpid(pid, &status, WNOHANG) == pid) fail("the controller exited early (status " + std::to_string(status) + ")");
        if (secondsSince(progress) > kStall && secondsSince(logRead) >= 1) {
            logRead = Clock::now();
            if (auto line = firstLogLine(log, "\"Reconciler error\""); !line.empty())
                fail("no JobSet for " + std::to_string(static_cast<int>(kStall)) + " s (" + progressText(count) +
                     "); the controller's first reconcile error (" + log + "): " + line);
        }
        if (secondsSince(start) > limit) fail("timed out with " + progressText(count));
    }
    r.seconds = secondsSince(start);
    r.rssMb = vmHwmMb(pid);
    r.steadyUs = n > atFirst ? secondsSince(first) * 1e6 / static_cast<double>(n - atFirst) : 0;
    r.jsonMb = counter.bodyBytes() / 1048576.0;
}

void copyFile(const std::string& from, const std::string& to) {
    std::filesystem::copy_file(from, to, std::filesystem::copy_options::overwrite_existing);
}

Run coldRun(const Setup& s, const std::string& prepared, long n, int i) {
    const std::string store = s.dir + "/cold.db";
    for (auto suffix : {"", "-wal", "-shm"}) std::filesystem::remove(store + suffix);
    copyFile(prepared, store);
    Run r;
    auto start = Clock::now();
    const std::string log = s.dir + "/cold-" + std::to_string(n) + "-" + std::to_string(i) + ".log";
    pid_t pid = startController(s, store, log);
    waitForJobSets(store, log, pid, n, start, r);
    stopController(pid);
    return r;
}

Run streamRun(const Setup& s, const std::string& empty, long n, int i) {
    const std::string store = s.dir + "/stream.db", log = s.dir + "/stream-" + std::to_string(n) + "-" + std::to_string(i) + ".log";
    for (auto suffix : {"", "-wal", "-shm"}) std::filesystem::remove(store + suffix);
    copyFile(empty, store);
    pid_t pid = startController(s, store, log);
    for (auto t = Clock::now(); firstLogLine(log, "\"Starting workers\"").empty();) {
        if (secondsSince(t) > 60) fail("the controller did not start its workers within 60 s");
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    Run r;
    auto start = Clock::now();
    std::thread writer([&] {
        auto db = openStore(store);
        seed(*db, *s.runtime, 0, n, false);
        r.writesPerSecond = n / secondsSince(start);
    });
    waitForJobSets(store, log, pid, n, start, r);
    writer.join();
    stopController(pid);
    return r;
}

}  // namespace

int main(int argc, char** argv) {
    Flags flags(argc, argv);
    Setup s;
    s.op = flags.get("operator", std::string(TRAINER_BINARY_DIR) + "/bin/trainer-operator");
    s.plugins = flags.get("plugin-dir", TRAINER_PLUGIN_BUILD_DIR);
    s.runtime = &runtimeById(flags.get("runtime", "torch"));
    const int runs = static_cast<int>(flags.number("runs", 5));
    std::vector<long> sizes;
    for (std::string list = flags.get("sizes", "1000,10000") + ","; !list.empty();) {
        auto comma = list.find(',');
        if (comma > 0) sizes.push_back(std::stol(list.substr(0, comma)));
        list.erase(0, comma + 1);
    }
    if (flags.has("full")) sizes.push_back(100000);
    std::sort(sizes.begin(), sizes.end());
    if (sizes.empty() || sizes.front() < 1 || runs < 1) fail("--sizes and --runs must be positive");
    s.dir = tempDir("controller_bench");
    s.config = s.dir + "/config.yaml";
    writeFile(s.config, "apiVersion: config.trainer.kubeflow.org/v1alpha1\nkind: Configuration\n"
                        "leaderElection:\n  leaderElect: false\n");
    const std::string empty = s.dir + "/empty.db";
    openStore(empty)->create(json::object{{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", {{"name", "default"}}}});
    create(*openStore(empty), runtimeObject(*s.runtime));

    std::map<long, double> steady;  // median per-TrainJob cost by size
    Run largest;
    for (long n : sizes) {
        const std::string prepared = s.dir + "/prepared-" + std::to_string(n) + ".db";
        copyFile(empty, prepared);
        auto t = Clock::now();
        seed(*openStore(prepared), *s.runtime, 0, n, false);
        std::fprintf(stderr, "N=%ld: %ld TrainJobs written through the store API in %.1f s\n", n, n, secondsSince(t));
        std::vector<Run> cold;
        for (int i = 0; i < runs; ++i) cold.push_back(coldRun(s, prepared, n, i));
        std::filesystem::remove(prepared);
        std::vector<double> secs, us, rss, json;
        for (auto const& r : cold) secs.push_back(r.seconds), us.push_back(r.steadyUs), rss.push_back(r.rssMb), json.push_back(r.jsonMb);
        const double rate = n / median(secs);
        steady[n] = median(us);
        std::fprintf(stderr, "N=%ld cold: %s s; steady %s us/TrainJob; RSS %s MB for %s MB of JSON\n", n,
                     fixed(median(secs)).c_str(), fixed(median(us), 1).c_str(), fixed(median(rss), 1).c_str(),
                     fixed(median(json), 1).c_str());
        row("P4 cold start N=" + std::to_string(n) + ": TrainJobs/s", fixed(rate, 0) + "/s", "2000/s (target)",
            fixed(rate / 2000) + "x", ">= 1.00x", yesNo(rate >= 2000));
        if (n == sizes.back()) {
            const double m = median(rss), j = median(json);
            row("P4 controller peak RSS, N=" + std::to_string(n), fixed(m, 1) + " MB", fixed(j, 1) + " MB (stored JSON)",
                fixed(m / j) + "x", "<= 1.50x", yesNo(m / j <= 1.5));
        }
    }
    if (sizes.size() > 1) {
        const long lo = sizes.front(), hi = sizes.back();
        const double ratio = steady[hi] / steady[lo];
        row("P4 per-TrainJob cost N=" + std::to_string(hi) + " vs N=" + std::to_string(lo), fixed(steady[hi], 1) + " us",
            fixed(steady[lo], 1) + " us", fixed(ratio, 3) + "x", "<= 1.20x", yesNo(ratio <= 1.2));  // 3 decimals: 1.2004 is not met
    }
    const long streamN = std::min<long>(sizes.back(), 10000);
    std::vector<Run> stream;
    for (int i = 0; i < runs; ++i) stream.push_back(streamRun(s, empty, streamN, i));
    std::vector<double> secs, writes;
    for (auto const& r : stream) secs.push_back(r.seconds), writes.push_back(r.writesPerSecond);
    const double rate = streamN / median(secs);
    std::fprintf(stderr, "stream N=%ld: %s s; creates at %s/s\n", streamN, fixed(median(secs)).c_str(),
                 fixed(median(writes), 0).c_str());
    row("P4 steady stream N=" + std::to_string(streamN) + ": TrainJobs/s", fixed(rate, 0) + "/s", "2000/s (target)",
        fixed(rate / 2000) + "x", ">= 1.00x", yesNo(rate >= 2000));
    if (flags.has("keep")) std::fprintf(stderr, "kept %s\n", s.dir.c_str());
    else std::filesystem::remove_all(s.dir);
    return 0;
}
