// P3 of issue 14: start-up with 200 generated plugins against a bare dlopen of the same 200 files.
//   startup_bench [--plugins N] [--runs R] [--template FILE] [--operator BIN] [--isolated] [--profile]
// Setup (not timed): N copies of the template plugin (generated_plugin.cpp, built by CMake), each
// with its own name and claim written over the template's markers, mode 0755 in a fresh 0700
// directory, listed in that directory's shipped manifest (shipped-plugins.sha256), as plugins
// built and shipped with the operator are: they load in the operator's process.
// Measured as CPU time (the machines this runs on are shared: wall time counts the waits for a
// core), each in a fresh child process (a library stays loaded once opened), alternating:
//   bare      dlopen(RTLD_NOW | RTLD_LOCAL) of every file;
//   by fd     the same through /proc/self/fd/N of each file opened and fstat'ed first, as the
//             registry's trust model loads (core/plugin/registry_library.cpp): the floor of any
//             registry that keeps the model, reported beside the target's ratio (no target);
//   registry  PluginRegistry::loadDirectory of the directory: trust checks, hashes and manifest,
//             dlopen, entry point, descriptor, claims, create(); every plugin must load. The
//             files are first left to settle (core/plugin/hash_cache.hpp), as installed plugins
//             are; the measured start-up is a later one, its hashes from the directory's cache,
//             and a first start-up (the cache removed: every file read) is reported beside it.
// Medians of R runs (default 5); the first run of each is a warm-up (page cache). Every child runs
// on the CPU the benchmark started on: on these shared 2-CPU machines one CPU can be a third
// slower than the other for minutes, and children alternating between them swung the ratio from
// 1.0x to 1.4x from one run to the next.
// --profile times only the later start-up, R times, and prints its median: the run to record
// with `perf record -D <ms>` (after the settle wait) without the bare dlopen and the first start-up.
// --isolated also times the same files without the manifest: not shipped, so each is probed and
// kept in its own plugin-host child (README "Plugin isolation"); wall time, without a target.
#include "bench_support.hpp"

#include "core/plugin/hash_cache.hpp"
#include "core/plugin/registry.hpp"

#include <openssl/evp.h>

#include <dlfcn.h>
#include <fcntl.h>
#include <sched.h>
#include <sys/stat.h>

#include <functional>

using namespace trainer;
using namespace trainer::bench;

namespace {

std::string sha256Hex(const std::string& bytes) {
    unsigned char md[EVP_MAX_MD_SIZE];
    unsigned int len = 0;
    if (EVP_Digest(bytes.data(), bytes.size(), md, &len, EVP_sha256(), nullptr) != 1) fail("sha256");
    static const char* digits = "0123456789abcdef";
    std::string out;
    for (unsigned i = 0; i < len; ++i) (out += digits[md[i] >> 4]) += digits[md[i] & 15];
    return out;
}

// Replaces every occurrence of `marker` (ending in XXXXX) with the same text ending in `number`.
size_t rewrite(std::string& bytes, const std::string& marker, const std::string& number) {
    std::string with = marker.substr(0, marker.size() - 5) + number;
    size_t count = 0;
    for (size_t at = bytes.find(marker); at != std::string::npos; at = bytes.find(marker, at + with.size()), ++count)
        bytes.replace(at, with.size(), with);
    return count;
}

// N copies of the template in `dir`; the manifest lists them when `manifest`.
std::vector<std::string> generate(const std::string& templ, const std::string& dir, int n, bool manifest) {
    const std::string bytes = readFile(templ);
    std::vector<std::string> files;
    std::string lines;
    for (int i = 0; i < n; ++i) {
        char number[16];
        std::snprintf(number, sizeof number, "%05d", i);
        std::string copy = bytes;
        if (!rewrite(copy, "bench-gen-XXXXX", number) || !rewrite(copy, "BENCH_GEN_XXXXX", number))
            fail(templ + " does not hold the name and claim markers");
        const std::string name = std::string("gen-") + number + ".so";
        files.push_back(dir + "/" + name);
        writeFile(files.back(), copy);
        ::chmod(files.back().c_str(), 0755);
        lines += sha256Hex(copy) + "  " + name + "\n";
    }
    if (manifest) writeFile(dir + "/shipped-plugins.sha256", lines);
    return files;
}

// Runs `work` in a fresh child process; its result (seconds) comes back through a pipe.
double inChild(const std::function<double()>& work) {
    int fds[2];
    if (::pipe(fds) != 0) fail("pipe");
    std::fflush(nullptr);
    pid_t pid = ::fork();
    if (pid < 0) fail("fork");
    if (pid == 0) {
        ::close(fds[0]);
        double s = work();
        ssize_t w = ::write(fds[1], &s, sizeof s);
        ::_exit(w == static_cast<ssize_t>(sizeof s) ? 0 : 1);
    }
    ::close(fds[1]);
    double s = -1;
    ssize_t got = ::read(fds[0], &s, sizeof s);
    ::close(fds[0]);
    int status = 0;
    ::waitpid(pid, &status, 0);
    if (got != static_cast<ssize_t>(sizeof s) || !WIFEXITED(status) || WEXITSTATUS(status) != 0 || s < 0)
        fail("a measuring child failed (status " + std::to_string(status) + ")");
    return s;
}

double bareDlopen(const std::vector<std::string>& files) {
    const double start = cpuSeconds();
    for (auto const& f : files)
        if (!::dlopen(f.c_str(), RTLD_NOW | RTLD_LOCAL)) {
            std::fprintf(stderr, "dlopen %s: %s\n", f.c_str(), ::dlerror());
            return -1;
        }
    return cpuSeconds() - start;
}

// The trust model's floor: each file opened (O_NOFOLLOW) and fstat'ed, then loaded through its
// descriptor's /proc/self/fd name, as core/plugin/registry_trust.cpp and registry_library.cpp do.
double fdDlopen(const std::vector<std::string>& files) {
    const double start = cpuSeconds();
    for (auto const& f : files) {
        const int fd = ::open(f.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
        struct stat st {};
        if (fd < 0 || ::fstat(fd, &st) != 0) return -1;
        const std::string via = "/proc/self/fd/" + std::to_string(fd);  // kept open: each name stays its file's
        if (!::dlopen(via.c_str(), RTLD_NOW | RTLD_LOCAL)) {
            std::fprintf(stderr, "dlopen %s (%s): %s\n", via.c_str(), f.c_str(), ::dlerror());
            return -1;
        }
    }
    return cpuSeconds() - start;
}

// CPU time of the load (wall time for `wall`: plugin-host children's work is not ours).
double registryLoad(const std::string& dir, size_t expected, const std::string& op, bool wall = false) {
    core::PluginOptions options;
    options.isolation.hostExecutable = op;  // `trainer-operator plugin-host` runs the children
    const double cpu = cpuSeconds();
    const auto start = Clock::now();
    core::PluginRegistry registry;
    registry.loadDirectory(dir, options);
    // Measured before the registry's destruction, which is not start-up.
    double s = wall ? secondsSince(start) : cpuSeconds() - cpu;
    for (auto const& r : registry.rejected()) std::fprintf(stderr, "rejected: %s\n", r.reason.c_str());
    if (registry.plugins().size() != expected || !registry.rejected().empty()) return -1;
    return s;
}

}  // namespace

int main(int argc, char** argv) {
    Flags flags(argc, argv);
    const int n = static_cast<int>(flags.number("plugins", 200));
    const int runs = static_cast<int>(flags.number("runs", 5));
    const std::string templ = flags.get("template", BENCH_GENERATED_PLUGIN);
    const std::string op = flags.get("operator", std::string(TRAINER_BINARY_DIR) + "/bin/trainer-operator");
    if (n < 1 || runs < 1) fail("--plugins and --runs must be at least 1");

    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(std::max(0, ::sched_getcpu()), &one);
    if (::sched_setaffinity(0, sizeof one, &one) != 0) fail("sched_setaffinity");  // children inherit it
    const std::string dir = tempDir("startup_bench");
    const auto files = generate(templ, dir, n, /*manifest=*/true);
    // Installed plugins are not written the moment the operator starts: wait until the files
    // are older than the hash cache's settle time, or none would ever be remembered.
    ::sleep(static_cast<unsigned>(std::chrono::seconds(core::detail::kHashCacheSettle).count()) + 1);
    const std::string cache = dir + "/" + std::string(core::detail::kHashCacheFile);
    std::vector<double> bare, byFd, reg, cold;
    if (flags.has("profile")) {
        for (int i = 0; i < runs; ++i) reg.push_back(1e3 * inChild([&] { return registryLoad(dir, files.size(), op); }));
        std::fprintf(stderr, "registry %.2f ms (median of %d)\n", median(reg), runs);
        std::filesystem::remove_all(dir);
        return 0;
    }
    for (int i = 0; i <= runs; ++i) {
        double b = inChild([&] { return bareDlopen(files); });
        double f = inChild([&] { return fdDlopen(files); });
        std::filesystem::remove(cache);  // a first start-up: every file read and hashed
        double c = inChild([&] { return registryLoad(dir, files.size(), op); });
        double r = inChild([&] { return registryLoad(dir, files.size(), op); });  // a later one
        if (i == 0) continue;  // warm-up
        bare.push_back(b * 1e3);
        byFd.push_back(f * 1e3);
        cold.push_back(c * 1e3);
        reg.push_back(r * 1e3);
    }
    const double b = median(bare), f = median(byFd), r = median(reg), c = median(cold);
    const std::string what = "P3 start-up, " + std::to_string(n) + " generated plugins";
    std::fprintf(stderr, "%s: %.1f MB of plugin files; registry %.1f ms (first start-up %.1f ms), bare dlopen %.1f ms, through /proc/self/fd %.1f ms\n",
                 what.c_str(), n * readFile(files.front()).size() / 1048576.0, r, c, b, f);
    row(what + " (shipped, in-process): CPU", fixed(r, 1) + " ms", fixed(b, 1) + " ms (bare dlopen)", fixed(r / b, 3) + "x",
        "<= 1.30x", yesNo(r / b <= 1.3));
    row(what + ", dlopen through /proc/self/fd (the trust model's floor): CPU", fixed(f, 1) + " ms",
        fixed(b, 1) + " ms (bare dlopen)", fixed(f / b) + "x", "(no target)", "-");
    row(what + " (shipped, in-process) against that floor: CPU", fixed(r, 1) + " ms", fixed(f, 1) + " ms (through /proc/self/fd)",
        fixed(r / f) + "x", "(no target)", "-");
    row(what + ", first start-up (no hash cache yet): CPU", fixed(c, 1) + " ms", fixed(b, 1) + " ms (bare dlopen)",
        fixed(c / b) + "x", "(no target)", "-");
    if (flags.has("isolated")) {
        std::filesystem::remove(dir + "/shipped-plugins.sha256");
        std::vector<double> iso;
        for (int i = 0; i < std::max(1, runs / 2); ++i) iso.push_back(1e3 * inChild([&] { return registryLoad(dir, files.size(), op, true); }));
        const double s = median(iso);
        row(what + " (not shipped: plugin-host children): wall", fixed(s, 1) + " ms", fixed(b, 1) + " ms (bare dlopen)",
            fixed(s / b) + "x", "(no target)", "-");
    }
    std::filesystem::remove_all(dir);
    return 0;
}
