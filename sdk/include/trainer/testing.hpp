// A fake host for plugin unit tests: hands a Context to a hook and records what the plugin
// said (diagnostics, logs, emitted documents). Cluster state for lookup() is a list of
// objects the test provides. Not thread-safe; one Host per test. Header-only.
//
// To see what the edits make of the Info, or to run your plugin through the operator's own
// registry and pipeline (claims, activation, conflicts with other plugins, the objects built),
// use <trainer/testing/real_host.hpp> (library TrainerSDK::testing); sdk/docs/testing.md says
// which to use when. The readers at the end of this file work on the documents of both.
#pragma once

#include <trainer/plugin.hpp>

#include <dlfcn.h>

#include <optional>
#include <string>
#include <vector>

namespace trainer::sdk::testing {

struct Diagnostic {
    int32_t severity;
    std::string path;
    std::string message;
    // Which input the path is in when it is not the TrainJob ("TrainingRuntime default/x"), as the
    // operator prints it before the path; empty for plugin diagnostics (real_host.hpp fills it).
    std::string origin = {};
};

class Host {
public:
    Host() {
        api_.struct_size = sizeof(trn_host_api);
        api_.log = &logFn;
        api_.diagnostic = &diagFn;
        api_.emit = &emitFn;
        api_.lookup = &lookupFn;
    }
    Host(const Host&) = delete;
    Host& operator=(const Host&) = delete;

    // Objects lookup() can find.
    std::vector<json::object> cluster;
    // When set, every lookup fails as the operator's does when it cannot read the cluster:
    // TRN_LOOKUP_ERROR plus an error diagnostic "cluster read of <kind> <ns>/<name> failed: <this>".
    std::optional<std::string> lookupFailure;
    // What the plugin reported.
    std::vector<Diagnostic> diagnostics;
    std::vector<std::string> logs;
    std::vector<json::value> emitted;

    // A Context whose callbacks record into this Host.
    Context context(std::string_view plugin = "test") { return Context(&api_, self(), plugin); }
    const trn_host_api* api() const { return &api_; }

    // Loads a built plugin (.so) as the operator does (RTLD_NOW | RTLD_LOCAL, never unloaded)
    // and performs the handshake with this host's callbacks and ABI range 1.0-1.<current>.
    // Returns the descriptor, or nullptr with `error` set. The Host must outlive its use.
    const trn_plugin_descriptor* load(const std::string& path, std::string& error) {
        void* lib = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
        if (!lib) {
            const char* why = ::dlerror();
            error = "dlopen " + path + ": " + (why ? why : "unknown error");
            return nullptr;
        }
        auto entry = reinterpret_cast<trn_plugin_entry_fn>(::dlsym(lib, TRN_ENTRY_SYMBOL));
        if (!entry) {
            error = path + " has no entry point " TRN_ENTRY_SYMBOL;
            return nullptr;
        }
        info_ = trn_host_info{sizeof(trn_host_info), TRN_ABI_ENCODE(TRN_ABI_MAJOR, 0), TRN_ABI_VERSION,
                              toAbi("sdk-testing"), &api_};
        const trn_plugin_descriptor* d = entry(&info_);
        if (!d) error = path + ": the entry point returned no descriptor";
        return d;
    }
    trn_call* call() { return self(); }

    std::vector<Diagnostic> errors() const { return filter(TRN_SEVERITY_ERROR); }
    std::vector<Diagnostic> warnings() const { return filter(TRN_SEVERITY_WARNING); }
    void clear() {
        diagnostics.clear();
        logs.clear();
        emitted.clear();
    }

private:
    trn_call* self() { return reinterpret_cast<trn_call*>(this); }
    static Host& of(trn_call* c) { return *reinterpret_cast<Host*>(c); }
    std::vector<Diagnostic> filter(int32_t sev) const {
        std::vector<Diagnostic> out;
        for (auto const& d : diagnostics)
            if (d.severity == sev) out.push_back(d);
        return out;
    }
    static void logFn(trn_call* c, int32_t, trn_str m) { of(c).logs.emplace_back(fromAbi(m)); }
    static void diagFn(trn_call* c, int32_t sev, trn_str path, trn_str msg) {
        of(c).diagnostics.push_back({sev, std::string(fromAbi(path)), std::string(fromAbi(msg))});
    }
    static void emitFn(trn_call* c, trn_str doc) { of(c).emitted.push_back(json::parse(fromAbi(doc))); }
    static int32_t lookupFn(trn_call* c, trn_str av, trn_str kind, trn_str ns, trn_str name, trn_str* out) {
        Host& h = of(c);
        if (h.lookupFailure) {
            std::string what = "cluster read of " + std::string(fromAbi(kind)) + " " + std::string(fromAbi(ns)) +
                               (fromAbi(ns).empty() ? "" : "/") + std::string(fromAbi(name)) + " failed: " + *h.lookupFailure;
            h.diagnostics.push_back({TRN_SEVERITY_ERROR, "", std::move(what)});
            return TRN_LOOKUP_ERROR;
        }
        for (auto const& o : h.cluster) {
            auto md = getObject(o, "metadata");
            if (getString(o, "apiVersion").value_or("") == fromAbi(av) &&
                getString(o, "kind").value_or("") == fromAbi(kind) && md &&
                getString(*md, "namespace").value_or("") == fromAbi(ns) &&
                getString(*md, "name").value_or("") == fromAbi(name)) {
                h.lookupBuffer_ = json::serialize(o);
                *out = toAbi(h.lookupBuffer_);
                return TRN_LOOKUP_FOUND;
            }
        }
        return TRN_LOOKUP_NOT_FOUND;
    }

    trn_host_api api_{};
    trn_host_info info_{};
    std::string lookupBuffer_;
};

// ---- Reading an Info document or a built object in assertions ----

// Container `name` of PodSet `podSet` in an Info document (`init`: an init container), or nullptr.
inline const json::object* podSetContainer(const json::object& info, std::string_view podSet, std::string_view name,
                                           bool init = false) {
    auto* ps = findByKey(getArray(info, "podSets"), "name", podSet);
    if (!ps) return nullptr;
    return init ? Info::initContainer(*ps, name) : Info::container(*ps, name);
}
// The names of a container's env vars, in order.
inline std::vector<std::string> envNames(const json::object& container) {
    std::vector<std::string> out;
    if (auto* env = getArray(container, "env"))
        for (auto const& e : *env)
            if (e.is_object()) out.emplace_back(getString(e.as_object(), "name").value_or(""));
    return out;
}
// The `value` of env var `name` of a container; "<unset>" when it has no such var, "<valueFrom>"
// when the var is set by valueFrom (read it with findByKey(getArray(c, "env"), "name", name)).
inline std::string envValue(const json::object& container, std::string_view name) {
    auto* e = findByKey(getArray(container, "env"), "name", name);
    if (!e) return "<unset>";
    if (auto v = getString(*e, "value")) return std::string(*v);
    return e->contains("valueFrom") ? "<valueFrom>" : "";
}
// The containerPort of each of a container's ports, in order.
inline std::vector<int64_t> containerPorts(const json::object& container) {
    std::vector<int64_t> out;
    if (auto* ports = getArray(container, "ports"))
        for (auto const& p : *ports)
            if (p.is_object()) out.push_back(getInt(p.as_object(), "containerPort").value_or(-1));
    return out;
}

}  // namespace trainer::sdk::testing
