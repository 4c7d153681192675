// Where a plugin's code runs (the Configuration's plugins.isolation, plugins.callTimeout,
// plugins.memoryLimit, plugins.outputLimit and plugins.perPlugin; README "Plugin isolation").
// `inProcess`: dlopen'ed into the operator (the shipped plugins' default: their files are listed,
// by hash, in the plugin directory's shipped manifest). `process`: a `trainer-operator
// plugin-host` child runs it; every call has a deadline and output and memory limits, and a
// fault costs that call, never the operator (the default for every other plugin).
#pragma once

#include "core/plugin/isolation_breaker.hpp"

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>

namespace trainer::core {

enum class Isolation { InProcess, Process };
std::string_view toString(Isolation i);                         // "inProcess" | "process"
std::optional<Isolation> parseIsolation(std::string_view text);  // nullopt for anything else

// The limits of one process-isolated plugin's calls.
struct CallLimits {
    std::chrono::milliseconds callTimeout{30'000};  // one hook call, lookups included
    uint64_t memoryBytes = 2ull << 30;               // the child's resident memory
    uint64_t outputBytes = 64ull << 20;              // everything one call sends back
};

// One plugin's overrides (plugins.perPlugin.<name>), each unset to inherit the global value.
struct PluginIsolationOverride {
    std::optional<Isolation> isolation;
    std::optional<std::chrono::milliseconds> callTimeout;
    std::optional<uint64_t> memoryBytes;
    std::optional<uint64_t> outputBytes;
};

struct IsolationOptions {
    std::optional<Isolation> mode;  // plugins.isolation: every plugin; unset: by shipped-ness
    CallLimits limits;              // plugins.callTimeout, plugins.memoryLimit, plugins.outputLimit
    std::map<std::string, PluginIsolationOverride> perPlugin;  // by plugin name
    // Restart backoff and circuit of every child (not in the Configuration; tests shorten it).
    isolation::BreakerSettings breaker;
    // The program run as `<hostExecutable> plugin-host ...`; empty: $TRAINER_PLUGIN_HOST when
    // set (test programs, which are not the operator, point it at the operator binary), else
    // this process's own executable (/proc/self/exe), which is the operator.
    std::string hostExecutable;

    // The mode of plugin `name`, whose file is shipped with the operator or not.
    Isolation modeFor(const std::string& name, bool shipped) const;
    // Could any plugin of a shipped file run in a child? (Then its name is learnt in a child.)
    bool processPossibleForShipped() const;
    CallLimits limitsFor(const std::string& name) const;
};

// File name of the manifest of shipped plugins in a plugin directory: sha256sum(1) lines,
// "<hex>  <file>.so", written by the build (cmake/ShippedManifest.cmake).
inline constexpr std::string_view kShippedManifest = "shipped-plugins.sha256";

}  // namespace trainer::core
