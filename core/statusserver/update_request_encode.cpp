// The request's outgoing forms (see update_request.hpp): the stored trainerStatus and the echo.
#include "core/statusserver/go_json.hpp"
#include "core/statusserver/update_request.hpp"

namespace trainer::core::statusserver {

json::object trainerStatusObject(const TrainerStatusUpdate& s) {
    json::object out;
    if (s.progressPercentage) out["progressPercentage"] = *s.progressPercentage;
    if (s.estimatedRemainingSeconds) out["estimatedRemainingSeconds"] = *s.estimatedRemainingSeconds;
    if (!s.metrics.empty()) {
        json::array metrics;
        for (const auto& m : s.metrics) metrics.push_back(json::object{{"name", m.name}, {"value", m.value}});
        out["metrics"] = std::move(metrics);
    }
    if (!s.lastUpdatedTime.isZero()) out["lastUpdatedTime"] = formatGoRfc3339(s.lastUpdatedTime);
    return out;
}

namespace {

std::string encodeMetric(const Metric& m) {
    std::string out = "{";
    if (!m.name.empty()) out += "\"name\":" + goQuote(m.name);
    if (!m.value.empty()) out += std::string(m.name.empty() ? "" : ",") + "\"value\":" + goQuote(m.value);
    return out + "}";
}

// TrainerStatus in field order; lastUpdatedTime is a struct, so omitempty never drops it.
std::string encodeTrainerStatus(const TrainerStatusUpdate& s) {
    std::string out = "{";
    if (s.progressPercentage) out += "\"progressPercentage\":" + std::to_string(*s.progressPercentage) + ",";
    if (s.estimatedRemainingSeconds)
        out += "\"estimatedRemainingSeconds\":" + std::to_string(*s.estimatedRemainingSeconds) + ",";
    if (!s.metrics.empty()) {
        out += "\"metrics\":[";
        for (std::size_t i = 0; i < s.metrics.size(); ++i) out += (i ? "," : "") + encodeMetric(s.metrics[i]);
        out += "],";
    }
    out += "\"lastUpdatedTime\":";
    out += s.lastUpdatedTime.isZero() ? "null" : "\"" + formatGoRfc3339(s.lastUpdatedTime) + "\"";
    return out + "}";
}

}  // namespace

std::string encodeUpdateRequest(const UpdateRequest& request) {
    if (!request.trainerStatus) return "{}\n";
    return "{\"trainerStatus\":" + encodeTrainerStatus(*request.trainerStatus) + "}\n";
}

}  // namespace trainer::core::statusserver
