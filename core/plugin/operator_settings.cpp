#include "core/plugin/operator_settings.hpp"

#include <algorithm>

namespace trainer::core {

json::object operatorInfoMember(const OperatorSettings& settings) {
    json::object gates;
    for (auto const& [name, on] : settings.featureGates) gates[name] = on;
    return json::object{{"namespace", settings.operatorNamespace},
                        {"serviceName", settings.serviceName},
                        {"webhookSecretName", settings.webhookSecretName},
                        {"statusServer", json::object{{"port", settings.statusServerPort}}},
                        {"featureGates", std::move(gates)}};
}

std::optional<std::string_view> featureGateOfClaim(std::string_view claim) {
    if (!claim.starts_with(kFeatureGateClaimPrefix)) return std::nullopt;
    return claim.substr(kFeatureGateClaimPrefix.size());
}

std::vector<std::string> claimedFeatureGates(const LoadedPlugin& plugin) {
    std::vector<std::string> out;
    for (auto const& c : plugin.claims)
        if (auto g = featureGateOfClaim(c)) out.emplace_back(*g);
    return out;
}

// Both run for every plugin in every phase of every TrainJob (issue 14): they read the claims in
// place rather than through claimedFeatureGates' vector of copies.
bool featureGatesOpen(const LoadedPlugin& plugin, const std::map<std::string, bool>& gates) {
    for (auto const& c : plugin.claims)
        if (auto g = featureGateOfClaim(c)) {
            auto it = gates.find(std::string(*g));
            if (it == gates.end() || !it->second) return false;
        }
    return true;
}

bool featureGatesOpen(const LoadedPlugin& plugin, const json::object& featureGates) {
    for (auto const& c : plugin.claims)
        if (auto g = featureGateOfClaim(c)) {
            auto* v = featureGates.if_contains(*g);
            if (!v || !v->is_bool() || !v->as_bool()) return false;
        }
    return true;
}

std::vector<std::string> unknownFeatureGates(const LoadedPlugin& plugin, const OperatorSettings& settings) {
    std::vector<std::string> out;
    for (auto const& g : claimedFeatureGates(plugin))
        if (!settings.featureGates.count(g) && std::find(out.begin(), out.end(), g) == out.end()) out.push_back(g);
    return out;
}

}  // namespace trainer::core
