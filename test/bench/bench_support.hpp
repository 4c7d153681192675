// What the benchmarks of issue 14 share: medians, child processes timed with their peak RSS,
// files, and the one line format scripts/bench.sh collects into its table:
//   ROW<TAB>benchmark<TAB>measured<TAB>reference<TAB>ratio<TAB>target<TAB>met
// (every field already formatted; `met` is yes, no or "-" for a figure without a target).
#pragma once

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char** environ;

namespace trainer::bench {

using Clock = std::chrono::steady_clock;

inline double secondsSince(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

// CPU seconds (user + system) this process has used so far. On a machine shared with other work,
// CPU time is what a measurement can compare: wall time also counts the waits for a core.
inline double cpuSeconds() {
    timespec ts{};
    ::clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

// The median (the mean of the two middle values for an even count); 0 for none.
inline double median(std::vector<double> v) {
    if (v.empty()) return 0;
    std::sort(v.begin(), v.end());
    size_t m = v.size() / 2;
    return v.size() % 2 ? v[m] : (v[m - 1] + v[m]) / 2;
}

// "1.23" style numbers for the table.
inline std::string fixed(double v, int decimals = 2) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
    return buf;
}

// One row of scripts/bench.sh's table (stdout, flushed: a later crash keeps it).
inline void row(const std::string& benchmark, const std::string& measured, const std::string& reference,
                const std::string& ratio, const std::string& target, const std::string& met) {
    std::printf("ROW\t%s\t%s\t%s\t%s\t%s\t%s\n", benchmark.c_str(), measured.c_str(), reference.c_str(), ratio.c_str(),
                target.c_str(), met.c_str());
    std::fflush(stdout);
}
inline std::string yesNo(bool b) { return b ? "yes" : "no"; }

[[noreturn]] inline void fail(const std::string& what) {
    std::fprintf(stderr, "benchmark failed: %s\n", what.c_str());
    std::exit(1);
}

inline std::string readFile(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) fail("cannot read " + path);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

inline void writeFile(const std::string& path, const std::string& text) {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out << text;
    if (!out) fail("cannot write " + path);
}

// A fresh private directory (mode 0700) under $TMPDIR, removed by the caller when wanted.
inline std::string tempDir(const std::string& prefix) {
    std::string pattern = (std::filesystem::temp_directory_path() / (prefix + ".XXXXXX")).string();
    if (!::mkdtemp(pattern.data())) fail("mkdtemp: " + std::string(std::strerror(errno)));
    return pattern;
}

// Starts argv[0] (a path) with standard input from /dev/null and standard output and error to the
// files `out` and `err` (empty: inherited; the same name: one file, as `2>&1`). A program that
// cannot be started fails the benchmark here. posix_spawn, not fork: the child borrows this
// process's memory until it execs, so the parent's pages are not made copy-on-write (after a
// fork, the floors measured here would pay a page fault for every page they write).
inline pid_t spawn(const std::vector<std::string>& argv, const std::string& out, const std::string& err) {
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    if (!out.empty()) posix_spawn_file_actions_addopen(&fa, 1, out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (!err.empty() && err == out)
        posix_spawn_file_actions_adddup2(&fa, 1, 2);
    else if (!err.empty())
        posix_spawn_file_actions_addopen(&fa, 2, err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    std::vector<char*> args;
    for (auto const& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    pid_t pid = -1;
    int rc = posix_spawn(&pid, args[0], &fa, nullptr, args.data(), environ);
    posix_spawn_file_actions_destroy(&fa);
    if (rc != 0) fail("cannot start " + argv[0] + ": " + std::strerror(rc));
    return pid;
}

// spawn() for a server the benchmark stops itself: it gets SIGTERM when the thread that started it
// ends (util-linux's setpriv --pdeathsig, which then execs the server in its place), so a
// benchmark that fails, is interrupted or is killed leaves no server behind. Start servers from
// the main thread.
inline pid_t spawnServer(const std::vector<std::string>& argv, const std::string& out, const std::string& err) {
    constexpr const char* kSetpriv = "/usr/bin/setpriv";
    if (::access(argv.at(0).c_str(), X_OK) != 0) fail("cannot start " + argv[0] + ": " + std::strerror(errno));
    std::vector<std::string> wrapped{kSetpriv, "--pdeathsig", "TERM", "--"};
    wrapped.insert(wrapped.end(), argv.begin(), argv.end());
    return spawn(wrapped, out, err);
}

struct ChildRun {
    int exitCode = -1;     // -1 when killed by a signal
    double seconds = 0;    // wall time from spawn to exit
    double cpuSeconds = 0; // user + system CPU time of the child
    double maxRssMb = 0;   // the child's peak RSS (ru_maxrss)
};

// Waits for `pid` (spawned at `start`), with its resource usage.
inline ChildRun waitChild(pid_t pid, Clock::time_point start) {
    ChildRun r;
    int status = 0;
    struct rusage ru {};
    while (::wait4(pid, &status, 0, &ru) < 0)
        if (errno != EINTR) fail("wait4: " + std::string(std::strerror(errno)));
    r.seconds = secondsSince(start);
    r.exitCode = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    r.maxRssMb = static_cast<double>(ru.ru_maxrss) / 1024.0;
    r.cpuSeconds = static_cast<double>(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
                   static_cast<double>(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1e-6;
    return r;
}

inline ChildRun runChild(const std::vector<std::string>& argv, const std::string& out, const std::string& err) {
    auto start = Clock::now();
    return waitChild(spawn(argv, out, err), start);
}

// Flag parsing for the benchmark programs: --name VALUE pairs and bare --switches.
class Flags {
public:
    Flags(int argc, char** argv) : args_(argv + 1, argv + argc) {}
    std::string get(const std::string& name, const std::string& fallback) const {
        for (size_t i = 0; i + 1 < args_.size(); ++i)
            if (args_[i] == "--" + name) return args_[i + 1];
        return fallback;
    }
    long number(const std::string& name, long fallback) const {
        std::string v = get(name, "");
        if (v.empty()) return fallback;
        char* end = nullptr;
        long n = std::strtol(v.c_str(), &end, 10);
        if (!end || *end) fail("--" + name + ": not a number: " + v);
        return n;
    }
    bool has(const std::string& name) const { return std::find(args_.begin(), args_.end(), "--" + name) != args_.end(); }

private:
    std::vector<std::string> args_;
};

}  // namespace trainer::bench
