// The operator's side of a process-isolated plugin (isolation_client.hpp).
#include "core/plugin/isolation_client.hpp"

#include "core/plugin/crash_context.hpp"
#include "core/plugin/isolation_descriptor.hpp"
#include "core/plugin/isolation_wire.hpp"

#include <boost/json.hpp>

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstring>
#include <fstream>

extern char** environ;

namespace trainer::core::isolation {

namespace {

using Clock = std::chrono::steady_clock;

// Room for the frame header and the field lengths around the limited payload.
constexpr size_t kFrameOverhead = 4096;

std::string signalName(int sig) {
    const char* abbrev = ::sigabbrev_np(sig);
    return abbrev ? std::string("SIG") + abbrev : "signal " + std::to_string(sig);
}

std::string describeWait(int status) {
    if (WIFSIGNALED(status)) return "was killed by " + signalName(WTERMSIG(status));
    if (WIFEXITED(status)) return "exited with status " + std::to_string(WEXITSTATUS(status));
    return "stopped";
}

std::optional<int32_t> toInt(const std::string& s) {
    int32_t v = 0;
    auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec != std::errc() || p != s.data() + s.size()) return std::nullopt;
    return v;
}

std::string seconds(Clock::duration d) {
    auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(d).count();
    if (ms < 0) ms = 0;
    return std::to_string(ms / 1000) + "." + std::to_string((ms % 1000) / 100) + "s";
}

struct MemoryWatch {
    pid_t pid;
    uint64_t limit;
    bool exceeded = false;
    uint64_t seen = 0;
};

bool withinMemory(void* arg) {
    auto* w = static_cast<MemoryWatch*>(arg);
    auto rss = residentBytes(w->pid);
    if (!rss) return true;
    w->seen = *rss;
    w->exceeded = *rss > w->limit;
    return !w->exceeded;
}

}  // namespace

std::optional<uint64_t> residentBytes(pid_t pid) {
    std::ifstream in("/proc/" + std::to_string(pid) + "/statm");
    uint64_t size = 0, resident = 0;
    if (!(in >> size >> resident)) return std::nullopt;
    return resident * static_cast<uint64_t>(::sysconf(_SC_PAGESIZE));
}

struct RemotePlugin::Outcome {
    bool ok = false;         // the exchange ended with Done
    int32_t status = TRN_OK;  // Done's trn_status
    std::string reason;      // failure: crash | timeout | memory | output | protocol
    std::string what;        // failure: what happened, a sentence fragment
};

RemotePlugin::RemotePlugin(ChildSpec spec) : spec_(std::move(spec)), breaker_(spec_.breaker) {}

RemotePlugin::~RemotePlugin() {
    std::lock_guard<std::mutex> g(mu_);
    if (pid_ > 0) {
        // Closing the socket lets the child destroy its instance (rule 8) and exit; a child that
        // does not within two seconds is killed.
        ::shutdown(fd_, SHUT_RDWR);
        int st = 0;
        for (int i = 0; i < 200 && ::waitpid(pid_, &st, WNOHANG) == 0; ++i) ::usleep(10'000);
        if (::waitpid(pid_, &st, WNOHANG) == 0) reap(true);
        else {
            pid_ = -1;
            ::close(fd_);
        }
    }
    if (spec_.fileFd >= 0) ::close(spec_.fileFd);
}

std::optional<std::string> RemotePlugin::spawn() {
    int sv[2];
    if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0)
        return std::string("socketpair failed: ") + std::strerror(errno);
    // Above the numbers the child gets (3, 4), so the dup2s below never meet their own source.
    int childSock = ::fcntl(sv[1], F_DUPFD_CLOEXEC, 16);
    int childFile = ::fcntl(spec_.fileFd, F_DUPFD_CLOEXEC, 16);
    ::close(sv[1]);
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, childSock, 3);
    posix_spawn_file_actions_adddup2(&fa, childFile, 4);
    posix_spawn_file_actions_addclosefrom_np(&fa, 5);
    const std::string mem = std::to_string(spec_.limits.memoryBytes), parent = std::to_string(::getpid());
    std::vector<std::string> args{spec_.executable, "plugin-host", "--socket-fd", "3", "--file-fd", "4",
                                  "--path", spec_.path, "--memory-limit", mem, "--parent-pid", parent};
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    pid_t pid = -1;
    int rc = ::posix_spawn(&pid, spec_.executable.c_str(), &fa, nullptr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&fa);
    ::close(childSock);
    ::close(childFile);
    if (rc != 0) {
        ::close(sv[0]);
        return "cannot start " + spec_.executable + " plugin-host: " + std::strerror(rc);
    }
    pid_ = pid;
    fd_ = sv[0];
    return std::nullopt;
}

std::string RemotePlugin::reap(bool kill) {
    if (pid_ <= 0) return "is not running";
    if (kill) ::kill(pid_, SIGKILL);
    int st = 0;
    pid_t r;
    while ((r = ::waitpid(pid_, &st, 0)) < 0 && errno == EINTR) {
    }
    pid_ = -1;
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
    if (r < 0) return "could not be waited for";
    // Killed by us with nothing of its own to report: say so plainly.
    if (kill && WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL) return "was killed by the operator";
    return describeWait(st);
}

std::optional<detail::Refusal> RemotePlugin::readDescription(LoadedPlugin& described, bool& lifecycle) {
    FrameReader reader(fd_, spec_.limits.outputBytes + kFrameOverhead);
    Frame f;
    MemoryWatch watch{pid_, spec_.limits.memoryBytes};
    auto rs = reader.read(f, Clock::now() + spec_.limits.callTimeout, &withinMemory, &watch);
    if (rs != WireStatus::Ok) {
        std::string why = rs == WireStatus::Timeout ? "did not describe its plugin within " + seconds(spec_.limits.callTimeout)
                          : watch.exceeded           ? "exceeded its memory limit while loading"
                                                     : reap(rs != WireStatus::Closed);
        if (pid_ > 0) reap(true);
        return detail::Refusal{"its code failed while loading in a plugin-host child (the child " + why + ")", "probe_failed"};
    }
    if (f.type == FrameType::Refused && f.fields.size() == 2) {
        reap(true);
        return detail::Refusal{f.fields[0], f.fields[1]};
    }
    if (f.type != FrameType::Described || f.fields.size() != 1) {
        reap(true);
        return detail::Refusal{"its plugin-host child broke the protocol before describing the plugin", "protocol_violation"};
    }
    if (auto r = undescribe(f.fields[0], described, lifecycle)) {
        reap(true);
        return r;
    }
    return std::nullopt;
}

std::optional<detail::Refusal> RemotePlugin::start(ChildSpec spec, LoadedPlugin& described, bool& lifecycle,
                                                   std::unique_ptr<RemotePlugin>& out) {
    std::unique_ptr<RemotePlugin> rp(new RemotePlugin(std::move(spec)));
    std::lock_guard<std::mutex> g(rp->mu_);
    if (auto err = rp->spawn()) return detail::Refusal{*err, "probe_failed"};
    if (auto r = rp->readDescription(described, lifecycle)) return r;
    out = std::move(rp);
    return std::nullopt;
}

RemotePlugin::Outcome RemotePlugin::exchange(std::string frame, Clock::time_point deadline, const ClusterReader* cluster,
                                             const PluginLogSink* sink, const std::string& pluginName, CallResult& into) {
    auto failed = [](std::string reason, std::string what) { return Outcome{false, TRN_ERROR, std::move(reason), std::move(what)}; };
    if (!writeAll(fd_, frame, deadline)) return failed("protocol", "stopped reading its input");
    FrameReader reader(fd_, spec_.limits.outputBytes + kFrameOverhead);
    MemoryWatch watch{pid_, spec_.limits.memoryBytes};
    size_t output = 0;
    for (Frame f;;) {
        auto rs = reader.read(f, deadline, &withinMemory, &watch);
        if (watch.exceeded)
            return failed("memory", "exceeded its memory limit of " + std::to_string(spec_.limits.memoryBytes) +
                                        " bytes (resident " + std::to_string(watch.seen) + ")");
        if (rs == WireStatus::Timeout) return failed("timeout", "did not return within " + seconds(spec_.limits.callTimeout));
        if (rs == WireStatus::TooLarge)
            return failed("output", "sent " + std::to_string(reader.announced()) + " bytes at once, over its output limit of " +
                                        std::to_string(spec_.limits.outputBytes));
        if (rs == WireStatus::Closed) return failed("crash", "");
        if (rs != WireStatus::Ok) return failed("protocol", std::string("sent a ") + toString(rs) + " frame");
        for (auto const& x : f.fields) output += x.size();
        if (output > spec_.limits.outputBytes)
            return failed("output", "sent more than its output limit of " + std::to_string(spec_.limits.outputBytes) + " bytes");
        switch (f.type) {
        case FrameType::Log:
            if (f.fields.size() != 2 || !toInt(f.fields[0])) return failed("protocol", "sent a malformed log frame");
            if (sink && *sink) (*sink)(pluginName, *toInt(f.fields[0]), f.fields[1]);
            break;
        case FrameType::Diagnostic:
            if (f.fields.size() != 3 || !toInt(f.fields[0])) return failed("protocol", "sent a malformed diagnostic frame");
            into.diagnostics.push_back({*toInt(f.fields[0]), std::move(f.fields[1]), std::move(f.fields[2])});
            break;
        case FrameType::Emit:
            if (f.fields.size() != 1) return failed("protocol", "sent a malformed emit frame");
            into.emitted.push_back(std::move(f.fields[0]));
            break;
        case FrameType::Lookup: {
            if (f.fields.size() != 4) return failed("protocol", "sent a malformed lookup frame");
            // Found: the object; Error: why the read failed (the child reports it as the host does).
            auto obj = cluster ? cluster->get(ObjectKey{f.fields[0], f.fields[1], f.fields[2], f.fields[3]})
                               : core::ReadResult::absent();
            int32_t code = obj.found() ? TRN_LOOKUP_FOUND : obj.failed() ? TRN_LOOKUP_ERROR : TRN_LOOKUP_NOT_FOUND;
            Frame reply{FrameType::LookupReply,
                        {std::to_string(code), obj.found() ? boost::json::serialize(obj.object) : obj.message}};
            if (!writeAll(fd_, encodeFrame(reply), deadline)) return failed("protocol", "stopped reading lookup answers");
            break;
        }
        case FrameType::Done:
            if (f.fields.size() != 1 || !toInt(f.fields[0])) return failed("protocol", "sent a malformed done frame");
            return Outcome{true, *toInt(f.fields[0]), "", ""};
        default: return failed("protocol", "sent an unexpected frame");
        }
    }
}

std::optional<detail::Refusal> RemotePlugin::create(const std::string& plugin, const std::string& config,
                                                    const PluginLogSink* sink) {
    std::lock_guard<std::mutex> g(mu_);
    CallResult r;
    auto out = exchange(encodeFrame(Frame{FrameType::Create, {config}}), Clock::now() + spec_.limits.callTimeout,
                        nullptr, sink, plugin, r);
    if (!out.ok) {
        std::string what = out.what.empty() ? reap(false) : out.what;
        if (pid_ > 0) reap(true);
        return detail::Refusal{"its create function failed in its plugin-host child (the child " + what + ")", "create_failed"};
    }
    if (out.status != TRN_OK) {
        std::string why;
        for (auto const& d : r.diagnostics)
            if (d.severity == TRN_SEVERITY_ERROR) why += (why.empty() ? "" : "; ") + d.message;
        reap(true);
        return detail::Refusal{"its create function failed" + (why.empty() ? std::string() : ": " + why), "create_failed"};
    }
    for (auto const& d : r.diagnostics)
        if (sink && *sink) (*sink)(plugin, TRN_LOG_WARN, (d.path.empty() ? "" : d.path + ": ") + d.message);
    config_ = config;
    return std::nullopt;
}

// A new child for a plugin whose last one failed: the same file (re-hashed), the same
// descriptor, created with the same configuration. The error text when any of it fails.
std::optional<std::string> RemotePlugin::restart(const LoadedPlugin& plugin, const PluginLogSink* sink) {
    if (detail::sha256Fd(spec_.fileFd) != spec_.sha256) return std::string("its file changed since it was loaded");
    if (auto err = spawn()) return err;
    LoadedPlugin again;
    bool lifecycle = false;
    if (auto r = readDescription(again, lifecycle)) return r->why;
    if (again.name != plugin.name || again.claims != plugin.claims || again.hooks.size() != plugin.hooks.size()) {
        reap(true);
        return std::string("the restarted child described a different plugin");
    }
    CallResult r;
    auto out = exchange(encodeFrame(Frame{FrameType::Create, {config_}}), Clock::now() + spec_.limits.callTimeout,
                        nullptr, sink, plugin.name, r);
    if (!out.ok || out.status != TRN_OK) {
        std::string what = out.ok ? "create failed" : out.what.empty() ? reap(false) : out.what;
        if (pid_ > 0) reap(true);
        return "the restarted child " + what;
    }
    return std::nullopt;
}

void RemotePlugin::notify(const std::string& plugin, std::string_view event, std::string_view reason) const {
    if (observer_ && *observer_) (*observer_)(plugin, event, reason);
}

CallResult RemotePlugin::fail(const std::string& plugin, Hook hook, std::string_view reason, const std::string& what) {
    const auto now = Clock::now();
    const bool wasOpen = breaker_.isOpen(now);
    suspect_ = currentTrainJob();
    breaker_.recordFailure(now, "its plugin-host child " + what + " in " + hookName(hook) +
                                    (suspect_.empty() ? "" : " on TrainJob " + suspect_));
    notify(plugin, "failure", reason);
    if (!wasOpen && breaker_.isOpen(now)) notify(plugin, "circuit", "open");
    CallResult r;
    r.status = TRN_ERROR;
    r.diagnostics.push_back({TRN_SEVERITY_ERROR, "",
                             "plugin " + plugin + " failed in " + hookName(hook) + ": its plugin-host child " + what +
                                 "; the call's result is discarded"});
    return r;
}

// Why a call fails at once while the child is gone, or nullopt when it may start a new one. A
// restart backoff holds only the TrainJob the last failure happened on: others restart at once.
std::optional<std::string> RemotePlugin::refusal(const std::string& plugin, Hook hook, Clock::time_point now) {
    const std::string prefix = "plugin " + plugin + " failed in " + hookName(hook) + ": ";
    switch (breaker_.admit(now)) {
    case Breaker::Verdict::Open:
        return prefix + "it is unavailable, its circuit is open after " + std::to_string(breaker_.consecutiveFailures()) +
               " consecutive failures (last: " + breaker_.lastFailure() + "); next attempt in " + seconds(breaker_.until() - now);
    case Breaker::Verdict::Backoff:
        if (currentTrainJob() != suspect_) return std::nullopt;
        return prefix + "it is restarting after a failure (" + breaker_.lastFailure() + "); next attempt in " +
               seconds(breaker_.until() - now);
    case Breaker::Verdict::Allow: break;
    }
    return std::nullopt;
}

CallResult RemotePlugin::call(const LoadedPlugin& plugin, Hook hook, std::string_view input, const ClusterReader* cluster,
                              const PluginLogSink* sink) {
    std::lock_guard<std::mutex> g(mu_);
    const auto now = Clock::now();
    if (pid_ <= 0) {
        if (auto why = refusal(plugin.name, hook, now)) {
            CallResult r;
            r.status = TRN_ERROR;
            r.diagnostics.push_back({TRN_SEVERITY_ERROR, "", *why});
            return r;
        }
        notify(plugin.name, "restart", "");
        if (auto err = restart(plugin, sink)) return fail(plugin.name, hook, "startup", *err);
    }
    CallResult r;
    Frame frame{FrameType::Call, {hookName(hook), std::string(input)}};
    auto out = exchange(encodeFrame(frame), now + spec_.limits.callTimeout, cluster, sink, plugin.name, r);
    if (!out.ok) {
        std::string what = out.what.empty() ? reap(false) : out.what;
        if (pid_ > 0) reap(true);
        return fail(plugin.name, hook, out.reason, what);
    }
    const bool wasTripped = breaker_.tripped();  // the trial call after an open period succeeded
    breaker_.recordSuccess();
    if (wasTripped) notify(plugin.name, "circuit", "closed");
    r.status = out.status;
    return r;
}

void RemotePlugin::discard() {
    std::lock_guard<std::mutex> g(mu_);
    if (pid_ > 0) reap(true);
}

bool RemotePlugin::circuitOpen() const {
    std::lock_guard<std::mutex> g(mu_);
    return breaker_.isOpen(Clock::now());
}

pid_t RemotePlugin::childPid() const {
    std::lock_guard<std::mutex> g(mu_);
    return pid_;
}

}  // namespace trainer::core::isolation
