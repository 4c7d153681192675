// The Configuration's plugin isolation settings (plugin_isolation_config.hpp).
#include "core/controller/plugin_isolation_config.hpp"

#include "core/controller/configuration.hpp"

#include <trainer/quantity.hpp>

#include <array>
#include <string_view>

namespace trainer::core::controller {

namespace json = boost::json;

namespace {

void readMode(const json::value& v, const std::string& path, std::optional<Isolation>& out, Diagnostics& d) {
    if (auto m = v.is_string() ? parseIsolation(v.get_string()) : std::nullopt) out = *m;
    else
        d.add(path, "Unsupported value: " + (v.is_string() ? "\"" + std::string(v.get_string()) + "\"" : json::serialize(v)) +
                        ": supported values: \"inProcess\", \"process\"",
              ErrorType::NotSupported);
}

void readTimeout(const json::value& v, const std::string& path, std::optional<std::chrono::milliseconds>& out,
                 Diagnostics& d) {
    auto parsed = v.is_string() ? parseGoDuration(v.get_string()) : std::nullopt;
    if (!parsed || *parsed < std::chrono::milliseconds(1))
        d.add(path, "Invalid value: " + json::serialize(v) + ": must be a duration of at least 1ms such as \"30s\"");
    else out = std::chrono::duration_cast<std::chrono::milliseconds>(*parsed);
}

void readBytes(const json::value& v, const std::string& path, std::optional<uint64_t>& out, Diagnostics& d) {
    auto q = sdk::Quantity::fromJson(v);
    if (!q || q->ceilToInt() < 4096)
        d.add(path, "Invalid value: " + json::serialize(v) + ": must be a quantity of at least 4Ki such as \"2Gi\"");
    else out = static_cast<uint64_t>(q->ceilToInt());
}

// One set of settings: the top level (`perPlugin` aside) or one plugin's.
void readOverride(const json::object& o, const std::string& prefix, PluginIsolationOverride& out, Diagnostics& d,
                  bool strict) {
    for (auto const& [k, v] : o) {
        const std::string path = prefix + std::string(k);
        if (k == "isolation") readMode(v, path, out.isolation, d);
        else if (k == "callTimeout") readTimeout(v, path, out.callTimeout, d);
        else if (k == "memoryLimit") readBytes(v, path, out.memoryBytes, d);
        else if (k == "outputLimit") readBytes(v, path, out.outputBytes, d);
        else if (strict) d.add(path, "unknown field \"" + path + "\"", ErrorType::NotSupported);
    }
}

}  // namespace

Diagnostics parsePluginIsolation(const json::object& plugins, IsolationOptions& out) {
    Diagnostics d;
    PluginIsolationOverride top;
    readOverride(plugins, "plugins.", top, d, false);
    out.mode = top.isolation;
    if (top.callTimeout) out.limits.callTimeout = *top.callTimeout;
    if (top.memoryBytes) out.limits.memoryBytes = *top.memoryBytes;
    if (top.outputBytes) out.limits.outputBytes = *top.outputBytes;
    auto* per = plugins.if_contains("perPlugin");
    if (!per || !per->is_object()) return d;
    for (auto const& [name, v] : per->get_object()) {
        const std::string prefix = "plugins.perPlugin[" + std::string(name) + "].";
        if (!v.is_object()) {
            d.add(prefix.substr(0, prefix.size() - 1), "Invalid value: expected an object", ErrorType::TypeInvalid);
            continue;
        }
        readOverride(v.get_object(), prefix, out.perPlugin[std::string(name)], d, true);
    }
    return d;
}

}  // namespace trainer::core::controller
