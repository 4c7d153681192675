// Who the operator is and which feature gates are on: the data the Framework adds to every
// Info as its `operator` member (sdk/docs/info.md), and the gates behind `featureGate:<Name>`
// claims (sdk/docs/abi.md rule 12). Plugins learn the operator's identity from this data only;
// core never names a plugin.
#pragma once

#include "core/plugin/registry.hpp"

#include <boost/json.hpp>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace trainer::core {

namespace json = boost::json;

struct OperatorSettings {
    std::string operatorNamespace = "kubeflow-system";                // upstream cert.GetOperatorNamespace()
    std::string serviceName = "kubeflow-trainer-controller-manager";  // certManagement.webhookServiceName
    std::string webhookSecretName = "kubeflow-trainer-webhook-cert";  // certManagement.webhookSecretName
    int64_t statusServerPort = 10443;                                 // statusServer.port
    // The effective value of every gate the operator knows (core/controller/feature_gates.hpp
    // resolveFeatureGates of the Configuration's featureGates). Empty: every gate is off.
    std::map<std::string, bool> featureGates;
};

// The Info member: {"namespace","serviceName","webhookSecretName","statusServer":{"port"},
// "featureGates":{...}}.
json::object operatorInfoMember(const OperatorSettings& settings);

inline constexpr std::string_view kFeatureGateClaimPrefix = "featureGate:";
// The gate a `featureGate:<Name>` claim names (a view into `claim`), or nullopt for any other claim.
std::optional<std::string_view> featureGateOfClaim(std::string_view claim);
// The gates `plugin` claims, in claim order.
std::vector<std::string> claimedFeatureGates(const LoadedPlugin& plugin);
// Are all of `plugin`'s claimed gates on in `gates`? A gate missing from `gates` is off.
bool featureGatesOpen(const LoadedPlugin& plugin, const std::map<std::string, bool>& gates);
// The same, with the gates of an Info's `operator.featureGates` (off when absent).
bool featureGatesOpen(const LoadedPlugin& plugin, const json::object& featureGates);
// The gates `plugin` claims that `settings` does not know (never on; worth a load warning).
std::vector<std::string> unknownFeatureGates(const LoadedPlugin& plugin, const OperatorSettings& settings);

}  // namespace trainer::core
