#include "scripts.hpp"

#include "templates.hpp"

#include <array>
#include <vector>

namespace trainer::plugins::flux {
namespace {

// Where the flux view lives in the flux-installer image (upstream generateInitEntrypoint).
constexpr std::string_view kFluxRoot = "/opt/view";

// UTF-8 encodings of the runes Go's unicode.IsSpace accepts.
constexpr std::array<std::string_view, 25> kSpaces{
    " ",            "\t",           "\n",           "\v",           "\f",           "\r",
    "\xC2\x85",     "\xC2\xA0",     "\xE1\x9A\x80", "\xE2\x80\x80", "\xE2\x80\x81", "\xE2\x80\x82",
    "\xE2\x80\x83", "\xE2\x80\x84", "\xE2\x80\x85", "\xE2\x80\x86", "\xE2\x80\x87", "\xE2\x80\x88",
    "\xE2\x80\x89", "\xE2\x80\x8A", "\xE2\x80\xA8", "\xE2\x80\xA9", "\xE2\x80\xAF", "\xE2\x81\x9F",
    "\xE3\x80\x80"};

size_t leadingSpace(std::string_view s) {
    for (auto sp : kSpaces)
        if (s.starts_with(sp)) return sp.size();
    return 0;
}
size_t trailingSpace(std::string_view s) {
    for (auto sp : kSpaces)
        if (s.ends_with(sp)) return sp.size();
    return 0;
}

// Appends the strings of a JSON array (non-strings are skipped; the CRD schema allows none).
void appendStrings(std::vector<std::string_view>& out, const json::array& a) {
    for (auto const& v : a)
        if (v.is_string()) out.emplace_back(v.as_string());
}

}  // namespace

bool BrokerSettings::set(std::string_view name, std::string_view value) {
    std::string* target = name == kEnvViewImage       ? &viewImage
                          : name == kEnvNetworkDevice ? &networkDevice
                          : name == kEnvQueuePolicy   ? &queuePolicy
                                                      : nullptr;
    if (target) *target = std::string(value);
    return target != nullptr;
}

const json::object* trainerContainer(const sdk::Info& info) {
    const json::object* ps = info.podSetByAncestor("trainer");
    return ps ? sdk::Info::container(*ps, "node") : nullptr;
}

BrokerSettings brokerSettings(const sdk::Info& info) {
    BrokerSettings s;
    if (const json::object* c = trainerContainer(info))
        if (const json::array* env = sdk::getArray(*c, "env"))
            for (auto const& e : *env) {
                if (!e.is_object()) continue;
                auto name = sdk::getString(e.as_object(), "name");
                auto value = sdk::getString(e.as_object(), "value");
                if (name && value) s.set(*name, *value);
            }
    if (const json::object* trainer = info.trainer())
        if (const json::array* env = sdk::getArray(*trainer, "env"))
            for (auto const& e : *env) {
                if (!e.is_object()) continue;
                if (auto name = sdk::getString(e.as_object(), "name"))
                    s.set(*name, sdk::getString(e.as_object(), "value").value_or(""));
            }
    return s;
}

std::string generateRange(int64_t size, int64_t start) {
    if (size == 1) return std::to_string(start);
    return std::to_string(start) + "-" + std::to_string(start + size - 1);
}

std::string generateHostlist(std::string_view prefix, int64_t size) {
    return std::string(prefix) + "-node-0-[" + generateRange(size, 0) + "]";
}

std::string sprintfS(std::string_view format, std::initializer_list<std::string_view> args) {
    std::string out;
    auto next = args.begin();
    for (size_t i = 0; i < format.size(); ++i) {
        if (format[i] != '%' || i + 1 == format.size()) {
            out += format[i];
            continue;
        }
        char verb = format[++i];
        if (verb == '%') out += '%';
        else if (verb != 's') out.append(1, '%').append(1, verb);
        else if (next != args.end()) out.append(*next++);
        else out += "%!s(MISSING)";
    }
    return out;
}

std::string_view trimSpace(std::string_view s) {
    for (size_t n; (n = leadingSpace(s)) != 0;) s.remove_prefix(n);
    for (size_t n; (n = trailingSpace(s)) != 0;) s.remove_suffix(n);
    return s;
}

std::string originalCommand(const sdk::Info& info) {
    std::vector<std::string_view> parts;
    const json::object* trainer = info.trainer();
    const json::array* command = trainer ? sdk::getArray(*trainer, "command") : nullptr;
    const json::object* container = trainerContainer(info);
    if (!command && container) command = sdk::getArray(*container, "command");
    if (command) appendStrings(parts, *command);
    if (const json::array* args = trainer ? sdk::getArray(*trainer, "args") : nullptr) appendStrings(parts, *args);
    std::string joined;
    for (size_t i = 0; i < parts.size(); ++i) joined.append(i ? " " : "").append(parts[i]);
    return std::string(trimSpace(joined));
}

std::string brokerConfig(std::string_view name, std::string_view ns, std::string_view hosts,
                         const BrokerSettings& settings) {
    const std::string fqdn = std::string(name) + "." + std::string(ns) + ".svc.cluster.local";
    const std::string bind = "tcp://" + settings.networkDevice + ":%p";
    const std::string connect = "tcp://%h." + fqdn + ":%p";
    return sprintfS(brokerTemplate(), {bind, connect, hosts, settings.queuePolicy});
}

std::string initScript(std::string_view name, std::string_view ns, int64_t nodes, const BrokerSettings& settings) {
    const std::string mainHost = std::string(name) + "-0";
    const std::string hosts = generateHostlist(name, nodes);
    return sprintfS(initTemplate(), {kFluxRoot, mainHost, hosts, brokerConfig(name, ns, hosts, settings)});
}

std::string entrypointScript(std::string_view name, int64_t nodes, int64_t tasksPerNode, int64_t gpusPerNode) {
    const std::string mainHost = std::string(name) + "-node-0-0";
    std::string flags = "-N " + std::to_string(nodes) + " -n " + std::to_string(tasksPerNode * nodes);
    std::string rspec = "--cores=" + generateRange(tasksPerNode, 0);
    if (gpusPerNode > 0) {
        flags += " -g " + std::to_string(gpusPerNode);
        rspec += " --gpu=" + generateRange(gpusPerNode, 0);
    }
    return sprintfS(entrypointTemplate(), {rspec, mainHost, flags});
}

}  // namespace trainer::plugins::flux
