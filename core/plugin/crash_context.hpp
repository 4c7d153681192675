// What each thread is running, for the fatal-signal report and for /readyz (issue 12 item 2,
// issue 13 item 6): the plugin and hook being called and the TrainJob being worked on, set by
// RAII scopes — one TrainJobScope around the work on one TrainJob (pipeline, controller,
// webhooks, CLI) and one HookScope around each call into a plugin (registry_invoke.cpp, and the
// loader around a file's constructors, entry point and create()).
//
// installCrashHandler() (once, from main) makes SIGSEGV, SIGBUS, SIGFPE, SIGILL and SIGABRT
// print, with write(2) only and no allocation, one line naming the signal and this thread's
// plugin, hook and TrainJob (or "no plugin hook was running"), then a backtrace
// (backtrace_symbols_fd, with the real path of every plugin loaded through /proc/self/fd/N), to
// stderr; then the signal is raised again with its default action, so the process dies of it
// (exit status 128+signal, a core dump where enabled). Where a CrashNoteScope points, the
// handler also pwrite(2)s a CrashNote (plugin, hook, signal) — the controller's poison-pill
// record (core/controller/in_flight_slots.hpp).
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <sys/types.h>
#include <vector>

namespace trainer::core {

// Field sizes of the per-thread record; longer values are cut (names are DNS labels and
// subdomains; a plugin "name" is a file path while it loads).
inline constexpr size_t kCrashPluginBytes = 256;
inline constexpr size_t kCrashHookBytes = 32;
inline constexpr size_t kCrashNamespaceBytes = 64;
inline constexpr size_t kCrashNameBytes = 256;

// This thread works on the TrainJob `ns/name` until the scope ends; the previous TrainJob (an
// enclosing scope's, or none) is restored then. Scopes nest; not copyable.
class TrainJobScope {
public:
    TrainJobScope(std::string_view ns, std::string_view name);
    ~TrainJobScope();
    TrainJobScope(const TrainJobScope&) = delete;
    TrainJobScope& operator=(const TrainJobScope&) = delete;

private:
    bool had_;
    char ns_[kCrashNamespaceBytes];
    char name_[kCrashNameBytes];
};

// This thread runs `hook` of `plugin` until the scope ends (the call's start time is kept for
// inFlightCalls()); the previous call (an enclosing scope's, or none) is restored then.
class HookScope {
public:
    HookScope(std::string_view plugin, std::string_view hook);
    ~HookScope();
    HookScope(const HookScope&) = delete;
    HookScope& operator=(const HookScope&) = delete;

private:
    bool had_;
    int64_t started_;
    char plugin_[kCrashPluginBytes];
    char hook_[kCrashHookBytes];
};

// What the crash handler writes at a CrashNoteScope's target: fixed layout, zero-filled
// strings. `magic` is kCrashNoteMagic once written.
struct CrashNote {
    char magic[8];
    int32_t signal;
    int32_t reserved;
    char plugin[kCrashPluginBytes];  // "" when no plugin hook was running
    char hook[kCrashHookBytes];
};
inline constexpr char kCrashNoteMagic[8] = {'T', 'R', 'N', 'C', 'R', 'S', 'H', '1'};

// Until the scope ends, a fatal signal on this thread also writes a CrashNote with
// pwrite(fd, note, sizeof note, offset). `fd` must stay open for the scope's life.
class CrashNoteScope {
public:
    CrashNoteScope(int fd, off_t offset);
    ~CrashNoteScope();
    CrashNoteScope(const CrashNoteScope&) = delete;
    CrashNoteScope& operator=(const CrashNoteScope&) = delete;

private:
    int fd_;
    off_t offset_;
};

// The TrainJob this thread works on ("ns/name"), "" outside every TrainJobScope.
std::string currentTrainJob();

// A plugin call running now on some thread.
struct InFlightCall {
    std::string plugin;
    std::string hook;
    std::string trainJob;  // "ns/name", "" when the call is not for one TrainJob
    std::chrono::steady_clock::duration running{};
};
// Every call inside a HookScope, on every thread, longest-running first.
std::vector<InFlightCall> inFlightCalls();
// "plugin P, hook H, TrainJob ns/name, running for 75s" (without the TrainJob part when none).
std::string describe(const InFlightCall& call);
// The stuck pipeline report (/readyz): every call running longer than `limit(plugin)`,
// described and joined with "; ", each with "(longer than <limit>)"; "" when none is.
using StuckLimit = std::function<std::chrono::milliseconds(const std::string& plugin)>;
std::string stuckCalls(const StuckLimit& limit);

// Installs the fatal-signal handler (idempotent): loads libgcc's unwinder by one backtrace()
// call first, so the handler itself never loads anything, and gives the calling thread (and
// every thread entering a scope) an alternate signal stack, so a stack overflow is reported too.
void installCrashHandler();
bool crashHandlerInstalled();
// "SIGSEGV", ... for the five signals above and a few others, else "signal N".
std::string signalName(int signal);

}  // namespace trainer::core
