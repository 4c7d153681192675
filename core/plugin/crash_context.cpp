#include "core/plugin/crash_context.hpp"

#include <dlfcn.h>
#include <execinfo.h>
#include <signal.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <mutex>

namespace trainer::core {

namespace {

// One thread's current call. The owning thread writes it under `mu` (inFlightCalls() reads it
// under `mu` from other threads); the signal handler, on the owning thread, reads it without.
struct ThreadRecord {
    std::mutex mu;
    bool inHook = false;
    bool inTrainJob = false;
    int64_t hookStarted = 0;  // steady_clock nanoseconds
    char plugin[kCrashPluginBytes] = {};
    char hook[kCrashHookBytes] = {};
    char ns[kCrashNamespaceBytes] = {};
    char name[kCrashNameBytes] = {};
    int noteFd = -1;
    off_t noteOffset = 0;
};

// Never destroyed: threads may end after static destruction began.
std::mutex& recordsMutex() {
    static auto* m = new std::mutex;
    return *m;
}
std::vector<ThreadRecord*>& records() {
    static auto* v = new std::vector<ThreadRecord*>;
    return *v;
}

// The handler's way to its thread's record: a constant-initialised pointer (no TLS init call).
__attribute__((tls_model("initial-exec"))) thread_local ThreadRecord* tRecord = nullptr;

struct RecordOwner {
    ThreadRecord* rec = new ThreadRecord;
    RecordOwner() {
        std::lock_guard g(recordsMutex());
        records().push_back(rec);
        tRecord = rec;
    }
    ~RecordOwner() {
        tRecord = nullptr;
        std::lock_guard g(recordsMutex());
        std::erase(records(), rec);
        delete rec;
    }
};

ThreadRecord& record() {
    thread_local RecordOwner owner;
    return *owner.rec;
}

int64_t steadyNow() {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// Copies `s` into `dst` (capacity N), cut to N-1 bytes, NUL-terminated and zero-filled.
template <size_t N>
void copyCut(char (&dst)[N], std::string_view s) {
    size_t n = std::min(s.size(), N - 1);
    std::memcpy(dst, s.data(), n);
    std::memset(dst + n, 0, N - n);
}

std::atomic<bool> gInstalled{false};

// An alternate signal stack for the calling thread, unless it has one (a sanitizer's).
struct AltStack {
    static constexpr size_t kSize = 128 * 1024;
    void* mem = nullptr;
    AltStack() {
        stack_t old{};
        if (::sigaltstack(nullptr, &old) == 0 && !(old.ss_flags & SS_DISABLE)) return;
        void* m = ::mmap(nullptr, kSize, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (m == MAP_FAILED) return;
        stack_t ss{};
        ss.ss_sp = m;
        ss.ss_size = kSize;
        if (::sigaltstack(&ss, nullptr) != 0) {
            ::munmap(m, kSize);
            return;
        }
        mem = m;
    }
    ~AltStack() {
        if (!mem) return;
        stack_t ss{};
        ss.ss_flags = SS_DISABLE;
        ::sigaltstack(&ss, nullptr);
        ::munmap(mem, kSize);
    }
};

void ensureAltStack() {
    if (!gInstalled.load(std::memory_order_relaxed)) return;
    thread_local AltStack stack;
    (void)stack;
}

constexpr int kFatalSignals[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT};

const char* rawSignalName(int sig) {
    switch (sig) {
    case SIGSEGV: return "SIGSEGV";
    case SIGBUS: return "SIGBUS";
    case SIGFPE: return "SIGFPE";
    case SIGILL: return "SIGILL";
    case SIGABRT: return "SIGABRT";
    case SIGTERM: return "SIGTERM";
    case SIGKILL: return "SIGKILL";
    case SIGINT: return "SIGINT";
    default: return nullptr;
    }
}

// ---- what the handler may use: write(2) into fixed buffers, nothing that allocates ----

void writeAll(int fd, const char* p, size_t n) {
    while (n > 0) {
        ssize_t w = ::write(fd, p, n);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) return;
        p += w;
        n -= static_cast<size_t>(w);
    }
}

struct Line {
    char buf[1024];
    size_t n = 0;
    void put(const char* s) {
        while (s && *s && n < sizeof buf) buf[n++] = *s++;
    }
    void number(uint64_t v, unsigned base) {
        char digits[32];
        size_t k = 0;
        do {
            digits[k++] = "0123456789abcdef"[v % base];
            v /= base;
        } while (v && k < sizeof digits);
        while (k > 0 && n < sizeof buf) buf[n++] = digits[--k];
    }
    void signal(int sig) {
        if (const char* name = rawSignalName(sig)) return put(name);
        put("signal ");
        number(static_cast<uint64_t>(sig), 10);
    }
    void flush() {
        writeAll(STDERR_FILENO, buf, n);
        n = 0;
    }
};

void writeNote(const ThreadRecord& r, int sig) {
    CrashNote note;
    std::memset(&note, 0, sizeof note);
    std::memcpy(note.magic, kCrashNoteMagic, sizeof note.magic);
    note.signal = sig;
    if (r.inHook) {
        std::memcpy(note.plugin, r.plugin, sizeof note.plugin);
        std::memcpy(note.hook, r.hook, sizeof note.hook);
    }
    ssize_t ignored = ::pwrite(r.noteFd, &note, sizeof note, r.noteOffset);
    (void)ignored;
}

// backtrace_symbols_fd, then the real file of every frame's object loaded through
// /proc/self/fd/N (plugins are dlopen'ed through their one open descriptor).
void writeBacktrace() {
    Line l;
    l.put("trainer-operator: backtrace (most recent call first):\n");
    l.flush();
    void* frames[64];
    int n = ::backtrace(frames, 64);
    ::backtrace_symbols_fd(frames, n, STDERR_FILENO);
    static constexpr char kProcFd[] = "/proc/self/fd/";
    const char* named[64];
    int namedCount = 0;
    for (int i = 0; i < n; ++i) {
        Dl_info di{};
        if (!::dladdr(frames[i], &di) || !di.dli_fname || std::strncmp(di.dli_fname, kProcFd, sizeof kProcFd - 1) != 0)
            continue;
        bool seen = false;
        for (int k = 0; k < namedCount && !seen; ++k) seen = std::strcmp(named[k], di.dli_fname) == 0;
        if (seen) continue;
        named[namedCount++] = di.dli_fname;
        char target[512];
        ssize_t len = ::readlink(di.dli_fname, target, sizeof target - 1);
        if (len <= 0) continue;
        target[len] = '\0';
        l.put("  ");
        l.put(di.dli_fname);
        l.put(" is ");
        l.put(target);
        l.put("\n");
        l.flush();
    }
}

std::atomic<int> gReporting{0};

void onFatalSignal(int sig, siginfo_t* info, void*) {
    const int savedErrno = errno;
    if (gReporting.exchange(1) != 0) {
        // Another thread is reporting; its re-raise with the default action ends the process.
        for (;;) ::pause();
    }
    const ThreadRecord* r = tRecord;
    Line l;
    l.put("trainer-operator: fatal signal ");
    l.signal(sig);
    if (info && (sig == SIGSEGV || sig == SIGBUS)) {
        l.put(" (fault address 0x");
        l.number(reinterpret_cast<uintptr_t>(info->si_addr), 16);
        l.put(")");
    }
    if (r && r->inHook) {
        l.put(" in plugin ");
        l.put(r->plugin);
        l.put(", hook ");
        l.put(r->hook);
    } else {
        l.put(" (no plugin hook was running)");
    }
    if (r && r->inTrainJob) {
        l.put(", TrainJob ");
        l.put(r->ns);
        l.put("/");
        l.put(r->name);
    }
    l.put("\n");
    l.flush();
    if (r && r->noteFd >= 0) writeNote(*r, sig);
    writeBacktrace();
    // Die of the same signal: blocked while this handler runs, it is delivered with the
    // default action as soon as the handler returns.
    struct sigaction dfl{};
    dfl.sa_handler = SIG_DFL;
    sigemptyset(&dfl.sa_mask);
    ::sigaction(sig, &dfl, nullptr);
    ::raise(sig);
    errno = savedErrno;
}

}  // namespace

std::string currentTrainJob() {
    auto& r = record();
    std::lock_guard g(r.mu);
    if (!r.inTrainJob) return {};
    return std::string(r.ns, ::strnlen(r.ns, sizeof r.ns)) + "/" + std::string(r.name, ::strnlen(r.name, sizeof r.name));
}

TrainJobScope::TrainJobScope(std::string_view ns, std::string_view name) {
    ensureAltStack();
    auto& r = record();
    std::lock_guard g(r.mu);
    had_ = r.inTrainJob;
    std::memcpy(ns_, r.ns, sizeof ns_);
    std::memcpy(name_, r.name, sizeof name_);
    copyCut(r.ns, ns);
    copyCut(r.name, name);
    r.inTrainJob = true;
}

TrainJobScope::~TrainJobScope() {
    auto& r = record();
    std::lock_guard g(r.mu);
    std::memcpy(r.ns, ns_, sizeof ns_);
    std::memcpy(r.name, name_, sizeof name_);
    r.inTrainJob = had_;
}

HookScope::HookScope(std::string_view plugin, std::string_view hook) {
    ensureAltStack();
    auto& r = record();
    std::lock_guard g(r.mu);
    had_ = r.inHook;
    started_ = r.hookStarted;
    std::memcpy(plugin_, r.plugin, sizeof plugin_);
    std::memcpy(hook_, r.hook, sizeof hook_);
    copyCut(r.plugin, plugin);
    copyCut(r.hook, hook);
    r.hookStarted = steadyNow();
    r.inHook = true;
}

HookScope::~HookScope() {
    auto& r = record();
    std::lock_guard g(r.mu);
    std::memcpy(r.plugin, plugin_, sizeof plugin_);
    std::memcpy(r.hook, hook_, sizeof hook_);
    r.hookStarted = started_;
    r.inHook = had_;
}

CrashNoteScope::CrashNoteScope(int fd, off_t offset) {
    auto& r = record();
    std::lock_guard g(r.mu);
    fd_ = r.noteFd;
    offset_ = r.noteOffset;
    r.noteFd = fd;
    r.noteOffset = offset;
}

CrashNoteScope::~CrashNoteScope() {
    auto& r = record();
    std::lock_guard g(r.mu);
    r.noteFd = fd_;
    r.noteOffset = offset_;
}

std::vector<InFlightCall> inFlightCalls() {
    const int64_t now = steadyNow();
    std::vector<InFlightCall> out;
    {
        std::lock_guard g(recordsMutex());
        for (auto* r : records()) {
            std::lock_guard rg(r->mu);
            if (!r->inHook) continue;
            InFlightCall c;
            c.plugin = r->plugin;
            c.hook = r->hook;
            if (r->inTrainJob) c.trainJob = std::string(r->ns) + "/" + r->name;
            c.running = std::chrono::nanoseconds(now - r->hookStarted);
            out.push_back(std::move(c));
        }
    }
    std::stable_sort(out.begin(), out.end(), [](auto const& a, auto const& b) { return a.running > b.running; });
    return out;
}

namespace {
// "0.4s", "3.0s", "75s".
std::string secondsText(std::chrono::steady_clock::duration d) {
    double secs = std::chrono::duration<double>(d).count();
    char buf[32];
    std::snprintf(buf, sizeof buf, secs < 10 ? "%.1fs" : "%.0fs", secs);
    return buf;
}
}  // namespace

std::string describe(const InFlightCall& call) {
    std::string out = "plugin " + call.plugin + ", hook " + call.hook;
    if (!call.trainJob.empty()) out += ", TrainJob " + call.trainJob;
    return out + ", running for " + secondsText(call.running);
}

std::string stuckCalls(const StuckLimit& limit) {
    std::string out;
    for (auto const& c : inFlightCalls()) {
        const auto max = limit(c.plugin);
        if (c.running <= max) continue;
        out += (out.empty() ? "" : "; ") + describe(c) + " (longer than " + secondsText(max) + ")";
    }
    return out;
}

void installCrashHandler() {
    static std::once_flag once;
    std::call_once(once, [] {
        void* warm[2];
        ::backtrace(warm, 2);  // loads libgcc's unwinder now, never inside the handler
        gInstalled = true;
        ensureAltStack();
        struct sigaction sa{};
        sa.sa_sigaction = &onFatalSignal;
        sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
        sigemptyset(&sa.sa_mask);
        for (int s : kFatalSignals) ::sigaction(s, &sa, nullptr);
    });
}

bool crashHandlerInstalled() { return gInstalled.load(); }

std::string signalName(int signal) {
    if (const char* n = rawSignalName(signal)) return n;
    return "signal " + std::to_string(signal);
}

}  // namespace trainer::core
