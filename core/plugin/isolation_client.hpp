// The operator's side of a process-isolated plugin: the `trainer-operator plugin-host` child it
// runs in, spawned with the trusted file's descriptor (so the child loads exactly the hashed
// bytes), and each hook call over the wire (isolation_wire.hpp) with a deadline, an output limit
// and a resident-memory limit. A crash, hang, limit breach or protocol violation kills the child
// and becomes one error diagnostic naming the plugin and the hook; the next call starts a new
// child after the breaker's backoff, and repeated failures open the circuit
// (isolation_breaker.hpp). Calls to one child are serialised. Thread-safe.
#pragma once

#include "core/plugin/call.hpp"
#include "core/plugin/isolation_breaker.hpp"
#include "core/plugin/isolation_options.hpp"
#include "core/plugin/registry_internal.hpp"

#include <sys/types.h>

#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

namespace trainer::core::isolation {

// Observes isolation events for metrics: ("failure", reason) with reason crash | timeout |
// memory | output | protocol | startup, ("restart", ""), ("circuit", "open" | "closed").
using IsolationObserver = std::function<void(const std::string& plugin, std::string_view event, std::string_view reason)>;

// How to start a child for one plugin file.
struct ChildSpec {
    std::string executable;  // runs `<executable> plugin-host ...`
    int fileFd = -1;         // the trusted file (owned by the RemotePlugin once started)
    std::string path;        // the file's path, for messages
    std::string sha256;      // what the file hashed to when it was checked
    CallLimits limits;
    BreakerSettings breaker;
};

class RemotePlugin {
public:
    ~RemotePlugin();
    RemotePlugin(const RemotePlugin&) = delete;
    RemotePlugin& operator=(const RemotePlugin&) = delete;

    // Starts a child for `spec` and reads what it found in the file into `described` (hooks
    // with null functions) and `lifecycle`; a Refusal when the child crashed while loading the
    // file, refused it (ABI checks), or broke the protocol. Takes ownership of spec.fileFd.
    static std::optional<detail::Refusal> start(ChildSpec spec, LoadedPlugin& described, bool& lifecycle,
                                                std::unique_ptr<RemotePlugin>& out);

    // Runs create() in the child with `config`; a Refusal naming why it failed (the plugin's
    // error diagnostics, a crash). Remembered: a restarted child is created the same way.
    // Its warnings go to `sink` under `plugin`'s name.
    std::optional<detail::Refusal> create(const std::string& plugin, const std::string& config, const PluginLogSink* sink);

    // One hook call; never throws. `plugin` is the operator's view of this plugin.
    CallResult call(const LoadedPlugin& plugin, Hook hook, std::string_view input, const ClusterReader* cluster,
                    const PluginLogSink* sink);

    // Kills the child at once (a probe's: its instance is discarded with its process, no destroy()).
    void discard();
    void setObserver(const IsolationObserver* observer) { observer_ = observer; }
    // The limits of the calls from now on (the plugin's own, once its name is known).
    void setLimits(const CallLimits& limits) {
        std::lock_guard<std::mutex> g(mu_);
        spec_.limits = limits;
    }
    // The breaker's view, for messages and tests.
    bool circuitOpen() const;
    pid_t childPid() const;
    const CallLimits& limits() const { return spec_.limits; }

private:
    explicit RemotePlugin(ChildSpec spec);
    struct Outcome;
    std::optional<std::string> spawn();  // error text when the child could not be started
    std::optional<detail::Refusal> readDescription(LoadedPlugin& described, bool& lifecycle);
    std::optional<std::string> restart(const LoadedPlugin& plugin, const PluginLogSink* sink);
    Outcome exchange(std::string frame, std::chrono::steady_clock::time_point deadline, const ClusterReader* cluster,
                     const PluginLogSink* sink, const std::string& pluginName, CallResult& into);
    std::string reap(bool kill);  // kills (when asked) and waits for the child: "killed by SIGSEGV"
    CallResult fail(const std::string& plugin, Hook hook, std::string_view reason, const std::string& what);
    std::optional<std::string> refusal(const std::string& plugin, Hook hook, std::chrono::steady_clock::time_point now);
    void notify(const std::string& plugin, std::string_view event, std::string_view reason) const;

    ChildSpec spec_;
    std::string config_;
    pid_t pid_ = -1;
    int fd_ = -1;
    Breaker breaker_;
    std::string suspect_;  // the TrainJob ("ns/name") of the last failure, "" when none was set
    const IsolationObserver* observer_ = nullptr;
    mutable std::mutex mu_;
};

// The child's resident memory in bytes (from /proc/<pid>/statm); nullopt when it cannot be read.
std::optional<uint64_t> residentBytes(pid_t pid);

}  // namespace trainer::core::isolation
