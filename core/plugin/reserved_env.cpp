#include "core/plugin/reserved_env.hpp"

#include "core/json/io.hpp"
#include "core/plugin/claims.hpp"

#include <optional>
#include <set>
#include <string>
#include <string_view>

namespace trainer::core {

namespace {

const json::array* trainerEnv(const json::object& trainJob) {
    auto* spec = trainJob.if_contains("spec");
    auto* trainer = spec && spec->is_object() ? spec->as_object().if_contains("trainer") : nullptr;
    auto* env = trainer && trainer->is_object() ? trainer->as_object().if_contains("env") : nullptr;
    return env && env->is_array() ? &env->as_array() : nullptr;
}

std::optional<std::string_view> entryName(const json::value& entry) {
    if (!entry.is_object()) return std::nullopt;
    auto* n = entry.as_object().if_contains("name");
    if (!n || !n->is_string()) return std::nullopt;
    return std::string_view(n->as_string());
}

bool claimed(const LoadedPlugin& plugin, std::string_view name) {
    for (auto const& c : plugin.claims)
        if (claimCovers(c, kEnvClaimPrefix, name)) return true;
    return false;
}

// The plugin's `envRefusal:` message, when it has one.
std::optional<std::string> refusalMessage(const LoadedPlugin& plugin) {
    for (auto const& c : plugin.claims)
        if (c.substr(0, kEnvRefusalClaimPrefix.size()) == kEnvRefusalClaimPrefix)
            return toValidUtf8(c.substr(kEnvRefusalClaimPrefix.size()));  // plugin text: untrusted
    return std::nullopt;
}

std::string withName(std::string message, std::string_view name) {
    static constexpr std::string_view kPlaceholder = "{name}";
    for (size_t at = message.find(kPlaceholder); at != std::string::npos;
         at = message.find(kPlaceholder, at + name.size()))
        message.replace(at, kPlaceholder.size(), name);
    return message;
}

}  // namespace

Diagnostics refuseClaimedEnv(const LoadedPlugin& plugin, const json::object& trainJob) {
    Diagnostics d;
    const json::array* env = trainerEnv(trainJob);
    if (!env) return d;
    if (auto message = refusalMessage(plugin)) {
        for (size_t i = 0; i < env->size(); ++i)
            if (auto name = entryName((*env)[i]); name && claimed(plugin, *name))
                d.add("spec.trainer.env[" + std::to_string(i) + "]", withName(*message, *name), ErrorType::Forbidden);
        return d;
    }
    std::set<std::string> names;  // sorted and unique, as Go's sets.List
    for (auto const& e : *env)
        if (auto name = entryName(e); name && claimed(plugin, *name)) names.emplace(*name);
    if (names.empty()) return d;
    std::string list;
    for (auto const& n : names) list += (list.empty() ? "" : " ") + n;
    d.add("spec.trainer.env", "must not have reserved envs, invalid envs configured: [" + list + "]");
    return d;
}

}  // namespace trainer::core
