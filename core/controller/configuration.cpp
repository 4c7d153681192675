#include "core/controller/configuration.hpp"

#include "core/controller/plugin_isolation_config.hpp"
#include "core/json/io.hpp"
#include "core/server/http.hpp"

#include <array>
#include <cctype>
#include <fstream>
#include <regex>
#include <sstream>

namespace trainer::core::controller {

namespace {

enum class T { Object, String, Int, Bool, Number, Duration, StringList, MapInt, MapBool, MapObject, MapString, Any };

// Lists with a maximum length and item length (kubebuilder markers of upstream's TLSOptions).
struct ListLimit {
    std::string_view path;
    size_t maxItems;
    size_t maxItemLength;
};
constexpr std::array<ListLimit, 2> kListLimits{{{"tls.cipherSuites", 100, 100}, {"tls.nextProtos", 10, 32}}};

// Every field the decoder accepts, by path. Anything else is an unknown field.
constexpr std::array<std::pair<std::string_view, T>, 53> kFields{{
    {"apiVersion", T::String},
    {"kind", T::String},
    {"webhook", T::Object},
    {"webhook.port", T::Int},
    {"webhook.host", T::String},
    {"webhook.certDir", T::String},
    {"leaderElection", T::Object},
    {"leaderElection.leaderElect", T::Bool},
    {"leaderElection.leaseDuration", T::Duration},
    {"leaderElection.renewDeadline", T::Duration},
    {"leaderElection.retryPeriod", T::Duration},
    {"leaderElection.resourceLock", T::String},
    {"leaderElection.resourceName", T::String},
    {"leaderElection.resourceNamespace", T::String},
    {"metrics", T::Object},
    {"metrics.bindAddress", T::String},
    {"metrics.secureServing", T::Bool},
    {"metrics.auth", T::Object},
    {"metrics.auth.enabled", T::Bool},
    {"health", T::Object},
    {"health.healthProbeBindAddress", T::String},
    {"health.readinessEndpointName", T::String},
    {"health.livenessEndpointName", T::String},
    {"controller", T::Object},
    {"controller.groupKindConcurrency", T::MapInt},
    {"certManagement", T::Object},
    {"certManagement.enable", T::Bool},
    {"certManagement.webhookServiceName", T::String},
    {"certManagement.webhookSecretName", T::String},
    {"clientConnection", T::Object},
    {"clientConnection.qps", T::Number},
    {"clientConnection.burst", T::Int},
    {"statusServer", T::Object},
    {"statusServer.port", T::Int},
    {"statusServer.qps", T::Number},
    {"statusServer.burst", T::Int},
    {"featureGates", T::MapBool},
    {"tls", T::Object},
    {"tls.minVersion", T::String},
    {"tls.cipherSuites", T::StringList},
    {"tls.nextProtos", T::StringList},
    {"plugins", T::Object},
    {"plugins.directory", T::String},
    {"plugins.enabled", T::StringList},
    {"plugins.disabled", T::StringList},
    {"plugins.config", T::MapObject},
    {"plugins.priorities", T::MapInt},
    {"plugins.sha256", T::MapString},
    // Checked by parsePluginIsolation (plugin_isolation_config.cpp).
    {"plugins.isolation", T::Any},
    {"plugins.callTimeout", T::Any},
    {"plugins.memoryLimit", T::Any},
    {"plugins.outputLimit", T::Any},
    {"plugins.perPlugin", T::MapObject},
}};

const T* fieldType(std::string_view path) {
    for (auto const& [p, t] : kFields)
        if (p == path) return &t;
    return nullptr;
}

bool isDuration(std::string_view s) {
    static const std::regex re(R"(^[-+]?(\d+(\.\d*)?(ns|us|µs|ms|s|m|h))+$|^0$)");
    return std::regex_match(std::string(s), re);
}

// Type check of one scalar/collection value; empty when fine.
std::string typeError(const json::value& v, T t) {
    auto intLike = [](const json::value& x) { return x.is_int64() || x.is_uint64(); };
    switch (t) {
    case T::Any: return "";
    case T::Object: return v.is_object() ? "" : "expected an object";
    case T::String: return v.is_string() ? "" : "expected a string";
    case T::Int: return intLike(v) ? "" : "expected an integer";
    case T::Bool: return v.is_bool() ? "" : "expected a boolean";
    case T::Number: return intLike(v) || v.is_double() ? "" : "expected a number";
    case T::Duration:
        return v.is_string() && isDuration(v.get_string()) ? "" : "expected a duration such as \"15s\"";
    case T::StringList:
        if (!v.is_array()) return "expected a list of strings";
        for (auto const& e : v.get_array())
            if (!e.is_string()) return "expected a list of strings";
        return "";
    case T::MapInt:
    case T::MapBool:
    case T::MapObject:
    case T::MapString: {
        if (!v.is_object()) return "expected a map";
        for (auto const& [k, e] : v.get_object()) {
            (void)k;
            if (t == T::MapInt && !intLike(e)) return "expected a map of integers";
            if (t == T::MapBool && !e.is_bool()) return "expected a map of booleans";
            if (t == T::MapObject && !e.is_object() && !e.is_null()) return "expected a map of objects";
            if (t == T::MapString && !e.is_string()) return "expected a map of strings";
        }
        return "";
    }
    }
    return "";
}

void checkStrict(const json::object& o, const std::string& prefix, Diagnostics& d) {
    for (auto const& [k, v] : o) {
        std::string path = prefix.empty() ? std::string(k) : prefix + "." + std::string(k);
        const T* t = fieldType(path);
        if (!t) {
            d.add(path, "unknown field \"" + path + "\"", ErrorType::NotSupported);
            continue;
        }
        if (auto e = typeError(v, *t); !e.empty()) {
            d.add(path, "Invalid value: " + e, ErrorType::TypeInvalid);
            continue;
        }
        if (*t == T::Object) checkStrict(v.get_object(), path, d);
    }
}

const json::value* at(const json::object& root, std::string_view path) {
    const json::object* cur = &root;
    while (true) {
        auto dot = path.find('.');
        auto* v = cur->if_contains(path.substr(0, dot));
        if (!v || dot == std::string_view::npos) return v;
        if (!v->is_object()) return nullptr;
        cur = &v->get_object();
        path = path.substr(dot + 1);
    }
}

int64_t asInt(const json::value& v) { return v.is_int64() ? v.get_int64() : static_cast<int64_t>(v.get_uint64()); }

template <class F>
void with(const json::object& root, std::string_view path, F&& f) {
    if (auto* v = at(root, path); v && !v->is_null()) f(*v);
}

// Go's duration units, longest match first where one is a prefix of another.
constexpr std::array<std::pair<std::string_view, double>, 8> kDurationUnits{{
    {"ns", 1}, {"us", 1e3}, {"µs", 1e3}, {"μs", 1e3}, {"ms", 1e6}, {"s", 1e9}, {"m", 60e9}, {"h", 3600e9}}};

// "15s", "500ms" or "1500us" (the largest unit that divides it) for messages.
std::string durationText(std::chrono::nanoseconds d) {
    constexpr std::array<std::pair<int64_t, std::string_view>, 3> units{{{1'000'000'000, "s"}, {1'000'000, "ms"}, {1'000, "us"}}};
    for (auto const& [n, unit] : units)
        if (d.count() % n == 0) return std::to_string(d.count() / n) + std::string(unit);
    return std::to_string(d.count()) + "ns";
}

// A number as Go's %v prints a float32/int32 (no trailing zeros).
std::string numberText(double v) {
    std::string s = std::to_string(v);
    while (!s.empty() && s.back() == '0') s.pop_back();
    if (!s.empty() && s.back() == '.') s.pop_back();
    return s;
}

void checkListLimits(const json::object& root, Diagnostics& d) {
    for (auto const& limit : kListLimits) {
        auto* v = at(root, limit.path);
        if (!v || !v->is_array()) continue;
        auto const& items = v->get_array();
        if (items.size() > limit.maxItems)
            d.add(std::string(limit.path), "Too many: " + std::to_string(items.size()) + ": must have at most " +
                                               std::to_string(limit.maxItems) + " items", ErrorType::TooMany);
        for (size_t i = 0; i < items.size(); ++i)
            if (items[i].is_string() && items[i].get_string().size() > limit.maxItemLength)
                d.add(std::string(limit.path) + "[" + std::to_string(i) + "]",
                      "Too long: may not be more than " + std::to_string(limit.maxItemLength) + " characters",
                      ErrorType::TooLong);
    }
}

// client-go's NewLeaderElector checks (JitterFactor 1.2), plus whole seconds for the Lease.
void validateLeaderElection(const Configuration& cfg, Diagnostics& d) {
    using namespace std::chrono_literals;
    if (!cfg.leaderElect) return;
    if (cfg.leaderElectionResourceLock != "leases")
        d.add("leaderElection.resourceLock",
              "Unsupported value: \"" + cfg.leaderElectionResourceLock + "\": supported values: \"leases\"",
              ErrorType::NotSupported);
    if (cfg.leaseDuration < 1s)
        d.add("leaderElection.leaseDuration", "Invalid value: \"" + durationText(cfg.leaseDuration) +
                                                  "\": must be at least 1s (a Lease records whole seconds)");
    else if (cfg.leaseDuration <= cfg.renewDeadline)
        d.add("leaderElection.leaseDuration", "Invalid value: \"" + durationText(cfg.leaseDuration) +
                                                  "\": must be greater than renewDeadline (" +
                                                  durationText(cfg.renewDeadline) + ")");
    if (cfg.renewDeadline <= 0ns)
        d.add("leaderElection.renewDeadline", "Invalid value: \"" + durationText(cfg.renewDeadline) + "\": must be greater than zero");
    else if (cfg.retryPeriod > 0ns && cfg.renewDeadline.count() <= 1.2 * double(cfg.retryPeriod.count()))
        d.add("leaderElection.renewDeadline", "Invalid value: \"" + durationText(cfg.renewDeadline) +
                                                  "\": must be greater than retryPeriod*1.2 (" +
                                                  durationText(cfg.retryPeriod) + "*1.2)");
    if (cfg.retryPeriod <= 0ns)
        d.add("leaderElection.retryPeriod", "Invalid value: \"" + durationText(cfg.retryPeriod) + "\": must be greater than zero");
    for (auto const& [path, name] : {std::pair<std::string, std::string>{"leaderElection.resourceName", cfg.leaderElectionResourceName},
                                     {"leaderElection.resourceNamespace", cfg.leaderElectionResourceNamespace}})
        if (name.size() > 253) d.add(path, "Too long: may not be more than 253 characters", ErrorType::TooLong);
}

}  // namespace

std::optional<std::chrono::nanoseconds> parseGoDuration(std::string_view s) {
    if (s == "0") return std::chrono::nanoseconds(0);
    bool negative = !s.empty() && s.front() == '-';
    if (!s.empty() && (s.front() == '-' || s.front() == '+')) s.remove_prefix(1);
    if (s.empty()) return std::nullopt;
    long double total = 0;
    while (!s.empty()) {
        size_t i = 0, dots = 0, digits = 0;
        for (; i < s.size() && (std::isdigit(static_cast<unsigned char>(s[i])) || s[i] == '.'); ++i)
            (s[i] == '.' ? dots : digits)++;
        if (digits == 0 || dots > 1) return std::nullopt;
        long double number = std::stold(std::string(s.substr(0, i)));
        s.remove_prefix(i);
        const std::pair<std::string_view, double>* unit = nullptr;
        for (auto const& u : kDurationUnits)
            if (s.starts_with(u.first) && (!unit || u.first.size() > unit->first.size())) unit = &u;
        if (!unit) return std::nullopt;
        s.remove_prefix(unit->first.size());
        total += number * unit->second;
        if (total > 9.2e18L) return std::nullopt;  // beyond int64 nanoseconds, as Go refuses
    }
    auto ns = static_cast<int64_t>(total);
    return std::chrono::nanoseconds(negative ? -ns : ns);
}

bool featureEnabled(const Configuration& cfg, std::string_view gate) {
    auto it = cfg.featureGates.find(std::string(gate));
    return it != cfg.featureGates.end() && it->second;
}

Diagnostics validateConfiguration(const Configuration& cfg) {
    Diagnostics d;
    auto port = [&](std::string path, int64_t p) {
        if (p < 1 || p > 65535) d.add(std::move(path), "Invalid value: " + std::to_string(p) + ": must be between 1 and 65535");
    };
    port("webhook.port", cfg.webhookPort);
    port("statusServer.port", cfg.statusServerPort);
    auto nonNegative = [&](std::string path, double v) {
        if (v < 0) d.add(std::move(path), "Invalid value: " + numberText(v) + ": must be greater than or equal to 0");
    };
    nonNegative("clientConnection.qps", cfg.qps);
    nonNegative("clientConnection.burst", double(cfg.burst));
    nonNegative("statusServer.qps", cfg.statusServerQps);
    nonNegative("statusServer.burst", double(cfg.statusServerBurst));
    if (cfg.metricsAuthEnabled && !cfg.metricsSecureServing)
        d.add("metrics.auth.enabled", "Invalid value: true: requires metrics.secureServing to be true");
    for (auto const& [gk, n] : cfg.groupKindConcurrency)
        if (n < 1) d.add("controller.groupKindConcurrency[" + gk + "]", "Invalid value: " + std::to_string(n) + ": must be greater than 0");
    for (auto const& [path, addr] : {std::pair<std::string, std::string>{"metrics.bindAddress", cfg.metricsBindAddress},
                                     {"health.healthProbeBindAddress", cfg.healthProbeBindAddress}}) {
        std::string err;
        if (!addr.empty() && !server::parseBindAddress(addr, err)) d.add(path, "Invalid value: \"" + addr + "\": " + err);
    }
    for (auto const& [path, name] : {std::pair<std::string, std::string>{"health.readinessEndpointName", cfg.readinessEndpointName},
                                     {"health.livenessEndpointName", cfg.livenessEndpointName}})
        if (name.empty() || name.size() > 63) d.add(path, "Invalid value: must be 1 to 63 characters");
    if (cfg.webhookHost.size() > 253) d.add("webhook.host", "Too long: may not be more than 253 characters", ErrorType::TooLong);
    for (auto const& n : cfg.plugins.enabled)
        for (auto const& m : cfg.plugins.disabled)
            if (n == m) d.add("plugins.disabled", "Invalid value: \"" + n + "\": also listed in plugins.enabled");
    for (auto const& [n, p] : cfg.plugins.priorities)
        if (p < INT32_MIN || p > INT32_MAX) d.add("plugins.priorities[" + n + "]", "Invalid value: out of int32 range");
    static const std::regex sha256Re("^[0-9a-fA-F]{64}$");
    for (auto const& [n, h] : cfg.plugins.sha256)
        if (!std::regex_match(h, sha256Re))
            d.add("plugins.sha256[" + n + "]", "Invalid value: \"" + h + "\": not a sha256 (64 hexadecimal digits)");
    validateLeaderElection(cfg, d);
    return d;
}

namespace {

// Field readers over a Configuration document that checkStrict has type-checked: each sets its
// destination when the field is present and not null.
void readString(const json::object& o, std::string_view path, std::string& dst) {
    with(o, path, [&](const json::value& v) {
        if (!v.get_string().empty()) dst = std::string(v.get_string());  // "" keeps the default
    });
}

void readBool(const json::object& o, std::string_view path, bool& dst) {
    with(o, path, [&](const json::value& v) { dst = v.get_bool(); });
}

void readNumber(const json::object& o, std::string_view path, double& dst) {
    with(o, path, [&](const json::value& v) { dst = v.is_double() ? v.get_double() : double(asInt(v)); });
}

void readList(const json::object& o, std::string_view path, std::vector<std::string>& dst) {
    with(o, path, [&](const json::value& v) {
        for (auto const& e : v.get_array()) dst.emplace_back(e.get_string());
    });
}

// apiVersion and kind; errors when either is not this Configuration's.
void checkTypeMeta(const json::object& o, Diagnostics& d) {
    auto av = o.if_contains("apiVersion");
    if (!av || !av->is_string() || av->get_string() != kConfigApiVersion)
        d.add("apiVersion", "Unsupported value: must be \"" + std::string(kConfigApiVersion) + "\"", ErrorType::NotSupported);
    auto kd = o.if_contains("kind");
    if (!kd || !kd->is_string() || kd->get_string() != kConfigKind)
        d.add("kind", "Unsupported value: must be \"" + std::string(kConfigKind) + "\"", ErrorType::NotSupported);
}

// webhook, metrics serving, health probes and the controller's concurrency.
void readServing(const json::object& o, Configuration& out) {
    with(o, "webhook.port", [&](const json::value& v) { out.webhookPort = asInt(v); });
    readString(o, "webhook.host", out.webhookHost);
    readString(o, "webhook.certDir", out.webhookCertDir);
    readString(o, "metrics.bindAddress", out.metricsBindAddress);
    readBool(o, "metrics.secureServing", out.metricsSecureServing);
    readString(o, "health.healthProbeBindAddress", out.healthProbeBindAddress);
    readString(o, "health.readinessEndpointName", out.readinessEndpointName);
    readString(o, "health.livenessEndpointName", out.livenessEndpointName);
    with(o, "controller.groupKindConcurrency", [&](const json::value& v) {
        for (auto const& [k, n] : v.get_object()) out.groupKindConcurrency[std::string(k)] = asInt(n);
    });
}

void readLeaderElection(const json::object& o, Configuration& out, Diagnostics& d) {
    readBool(o, "leaderElection.leaderElect", out.leaderElect);
    readString(o, "leaderElection.resourceName", out.leaderElectionResourceName);
    readString(o, "leaderElection.resourceNamespace", out.leaderElectionResourceNamespace);
    readString(o, "leaderElection.resourceLock", out.leaderElectionResourceLock);
    for (auto [p, dst] : {std::pair<std::string_view, std::chrono::nanoseconds*>{"leaderElection.leaseDuration", &out.leaseDuration},
                          {"leaderElection.renewDeadline", &out.renewDeadline},
                          {"leaderElection.retryPeriod", &out.retryPeriod}})
        with(o, p, [&, p = p, dst = dst](const json::value& v) {
            if (auto parsed = parseGoDuration(v.get_string())) *dst = *parsed;
            else d.add(std::string(p), "Invalid value: \"" + std::string(v.get_string()) + "\": not a valid duration");
        });
}

// Certificate management, the API client's and the status server's rates, metrics auth.
void readClients(const json::object& o, Configuration& out) {
    readBool(o, "certManagement.enable", out.certManagementEnable);
    readString(o, "certManagement.webhookServiceName", out.webhookServiceName);
    readString(o, "certManagement.webhookSecretName", out.webhookSecretName);
    readNumber(o, "clientConnection.qps", out.qps);
    with(o, "clientConnection.burst", [&](const json::value& v) { out.burst = asInt(v); });
    with(o, "statusServer.port", [&](const json::value& v) { out.statusServerPort = asInt(v); });
    readNumber(o, "statusServer.qps", out.statusServerQps);
    with(o, "statusServer.burst", [&](const json::value& v) { out.statusServerBurst = asInt(v); });
    readBool(o, "metrics.auth.enabled", out.metricsAuthEnabled);
}

void readTls(const json::object& o, Configuration& out, Diagnostics& d) {
    with(o, "tls.minVersion", [&](const json::value& v) { out.tlsMinVersion = std::string(v.get_string()); });
    readList(o, "tls.cipherSuites", out.tlsCipherSuites);
    readList(o, "tls.nextProtos", out.tlsNextProtos);
    checkListLimits(o, d);
    out.tls = server::parseTlsSettings(out.tlsMinVersion, out.tlsCipherSuites, out.tlsNextProtos, d);
}

void readPlugins(const json::object& o, Configuration& cfg, Diagnostics& d) {
    readString(o, "plugins.directory", cfg.pluginDirectory);
    PluginOptions& out = cfg.plugins;
    readList(o, "plugins.enabled", out.enabled);
    readList(o, "plugins.disabled", out.disabled);
    with(o, "plugins.config", [&](const json::value& v) {
        for (auto const& [k, c] : v.get_object()) out.configs[std::string(k)] = json::serialize(c);
    });
    with(o, "plugins.priorities", [&](const json::value& v) {
        for (auto const& [k, p] : v.get_object()) {
            int64_t n = asInt(p);
            if (n < INT32_MIN || n > INT32_MAX) d.add("plugins.priorities[" + std::string(k) + "]", "Invalid value: out of int32 range");
            else out.priorities[std::string(k)] = static_cast<int32_t>(n);
        }
    });
    with(o, "plugins.sha256", [&](const json::value& v) {
        for (auto const& [k, h] : v.get_object()) out.sha256[std::string(k)] = std::string(h.get_string());
    });
    with(o, "plugins", [&](const json::value& v) { d.append(parsePluginIsolation(v.get_object(), out.isolation)); });
}

}  // namespace

// Checked in this order, as the diagnostics come out: type meta, unknown and mistyped fields,
// then each section's values, then the whole (validateConfiguration).
Diagnostics parseConfiguration(const json::value& doc, Configuration& out) {
    Diagnostics d;
    if (!doc.is_object()) {
        d.add("", "a Configuration must be a YAML or JSON object");
        return d;
    }
    const json::object& o = doc.get_object();
    checkStrict(o, "", d);
    checkTypeMeta(o, d);
    if (!d.ok()) return d;
    readServing(o, out);
    readLeaderElection(o, out, d);
    readClients(o, out);
    with(o, "featureGates", [&](const json::value& v) {
        std::map<std::string, bool> overrides;
        for (auto const& [k, b] : v.get_object()) overrides[std::string(k)] = b.get_bool();
        out.featureGates = resolveFeatureGates(overrides, d);
    });
    readTls(o, out, d);
    readPlugins(o, out, d);
    d.append(validateConfiguration(out));
    return d;
}

Diagnostics loadConfiguration(const std::string& path, Configuration& out) {
    Diagnostics d;
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        d.add("", path + ": cannot read the configuration file");
        return d;
    }
    std::stringstream ss;
    ss << in.rdbuf();
    std::vector<json::value> docs;
    std::string err;
    if (!parseYaml(ss.str(), docs, err)) {
        d.add("", path + ": " + err);
        return d;
    }
    if (docs.size() != 1) {
        d.add("", path + ": expected exactly one Configuration document, found " + std::to_string(docs.size()));
        return d;
    }
    return parseConfiguration(docs.front(), out);
}

}  // namespace trainer::core::controller
