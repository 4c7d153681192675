// Hook invocation: one call with the plugin's lock, anything crossing the boundary caught, timed;
// a process-isolated plugin's call goes to its plugin-host child instead.
#include "core/plugin/call.hpp"
#include "core/plugin/crash_context.hpp"
#include "core/plugin/isolation_client.hpp"

#include <algorithm>
#include <chrono>

namespace trainer::core {

namespace {

bool hasError(const std::vector<trn_call::Diagnostic>& ds) {
    return std::any_of(ds.begin(), ds.end(), [](auto const& d) { return d.severity == TRN_SEVERITY_ERROR; });
}

trn_status callLocked(const LoadedPlugin& plugin, Hook hook, trn_hook_fn fn, trn_call& call, std::string_view input) {
    // Crash report and /readyz (crash_context.hpp); a call waiting for a busy non-thread-safe plugin counts.
    HookScope running(plugin.name, hookName(hook));
    std::unique_lock<std::mutex> lock;
    if (plugin.serial) lock = std::unique_lock<std::mutex>(*plugin.serial);
    try {
        return fn(plugin.instance, &call, trn_str{input.data(), input.size()});
    } catch (...) {
        // A plugin built without the SDK let an exception escape (rule 7 broken).
        call.diagnostics.push_back({TRN_SEVERITY_ERROR, "",
                                    "plugin " + plugin.name + " let an exception escape from " + hookName(hook) +
                                        " (ABI rule 7); its result is discarded"});
        return TRN_ERROR;
    }
}

// A process-isolated plugin: the call runs in its plugin-host child (isolation_client.cpp).
CallResult invokeRemote(const LoadedPlugin& plugin, Hook hook, std::string_view input, const ClusterReader* cluster,
                        const PluginLogSink* logSink, const HookObserver* observer) {
    auto start = std::chrono::steady_clock::now();
    CallResult r = plugin.remote->call(plugin, hook, input, cluster, logSink);
    double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (r.status != TRN_OK && !hasError(r.diagnostics))
        r.diagnostics.push_back({TRN_SEVERITY_ERROR, "", "plugin " + plugin.name + " failed in " + hookName(hook) + " without a message"});
    if (observer && *observer) (*observer)(plugin, hook, secs, r.ok());
    return r;
}

}  // namespace

bool CallResult::ok() const { return status == TRN_OK && !hasError(diagnostics); }

CallResult invokeHook(const LoadedPlugin& plugin, Hook hook, std::string_view input, const ClusterReader* cluster,
                      const PluginLogSink* logSink, const HookObserver* observer, std::span<const MemberPlace> places) {
    CallResult r;
    if (!plugin.hooks.has(hook)) return r;
    if (plugin.remote) return invokeRemote(plugin, hook, input, cluster, logSink, observer);
    trn_call call;
    call.plugin = &plugin;
    call.logSink = logSink;
    call.cluster = cluster;
    call.input = input;
    call.places = places;
    auto start = std::chrono::steady_clock::now();
    r.status = callLocked(plugin, hook, plugin.hooks.get(hook), call, input);
    double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (r.status != TRN_OK && !hasError(call.diagnostics))
        call.diagnostics.push_back({TRN_SEVERITY_ERROR, "",
                                    "plugin " + plugin.name + " failed in " + hookName(hook) + " without a message"});
    r.diagnostics = std::move(call.diagnostics);
    r.emitted = std::move(call.emitted);
    if (observer && *observer) (*observer)(plugin, hook, secs, r.ok());
    return r;
}

}  // namespace trainer::core
