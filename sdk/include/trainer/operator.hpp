// The operator block of the Info document (sdk/docs/info.md, member `operator`): who the
// operator is (namespace, Service, webhook certificate Secret, status server port) and the
// effective value of every feature gate it knows. Header-only.
#pragma once

#include <trainer/plugin.hpp>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>

namespace trainer::sdk {

// The prefix of a feature-gate claim: a plugin claiming "featureGate:<Name>" runs only while
// the operator has gate <Name> on (sdk/docs/abi.md rule 12).
inline constexpr std::string_view kFeatureGateClaimPrefix = "featureGate:";

// Info.operator, read leniently: a member of the wrong type reads as absent.
struct OperatorInfo {
    std::string ns;                           // operator.namespace
    std::string serviceName;                  // operator.serviceName
    std::string webhookSecretName;            // operator.webhookSecretName
    std::optional<int64_t> statusServerPort;  // operator.statusServer.port
    std::map<std::string, bool, std::less<>> featureGates;  // operator.featureGates
};

// The Info's operator block, or nullopt when the Info has none (a host older than this member).
// From the `operator` member itself.
inline std::optional<OperatorInfo> operatorInfoOf(const json::object* op) {
    if (!op) return std::nullopt;
    OperatorInfo out;
    out.ns = std::string(getString(*op, "namespace").value_or(""));
    out.serviceName = std::string(getString(*op, "serviceName").value_or(""));
    out.webhookSecretName = std::string(getString(*op, "webhookSecretName").value_or(""));
    if (const json::object* ss = getObject(*op, "statusServer")) out.statusServerPort = getInt(*ss, "port");
    if (const json::object* gates = getObject(*op, "featureGates"))
        for (auto const& kv : *gates)
            if (kv.value().is_bool()) out.featureGates[std::string(kv.key())] = kv.value().as_bool();
    return out;
}
inline std::optional<OperatorInfo> operatorInfo(const json::object& infoDoc) {
    return operatorInfoOf(getObject(infoDoc, "operator"));
}
inline std::optional<OperatorInfo> operatorInfo(const Info& info) { return operatorInfoOf(info.objectMember("operator")); }

// The effective value of feature gate `name` in an Info's `operator` member (nullptr: absent):
// false when the operator does not know it.
inline bool featureGateEnabledIn(const json::object* op, std::string_view name) {
    const json::object* gates = op ? getObject(*op, "featureGates") : nullptr;
    return gates && getBool(*gates, name).value_or(false);
}
// The same from a whole Info document or an Info: false too when it has no operator block.
inline bool featureGateEnabled(const json::object& infoDoc, std::string_view name) {
    return featureGateEnabledIn(getObject(infoDoc, "operator"), name);
}
inline bool featureGateEnabled(const Info& info, std::string_view name) {
    return featureGateEnabledIn(info.objectMember("operator"), name);
}

}  // namespace trainer::sdk
