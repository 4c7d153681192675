#include "core/statusserver/update_request.hpp"

#include "core/statusserver/go_json.hpp"

#include <limits>

namespace trainer::core::statusserver {

namespace {

using Error = std::string;  // empty = decoded

std::string typeName(const json::value& v) {
    switch (v.kind()) {
        case json::kind::null: return "null";
        case json::kind::bool_: return "bool";
        case json::kind::string: return "string";
        case json::kind::array: return "array";
        case json::kind::object: return "object";
        default: return "number";
    }
}

Error typeError(const json::value& v, std::string_view field, std::string_view goType) {
    return "json: cannot unmarshal " + typeName(v) + " into Go struct field " + std::string(field) + " of type " +
           std::string(goType);
}

// A *int32 member: null unsets it; only an integer literal within int32 fits.
Error decodeInt32(const json::value& v, std::string_view field, std::optional<int32_t>& out) {
    if (v.is_null()) {
        out.reset();
        return {};
    }
    constexpr int64_t lo = std::numeric_limits<int32_t>::min(), hi = std::numeric_limits<int32_t>::max();
    if (v.is_int64() && v.get_int64() >= lo && v.get_int64() <= hi) {
        out = static_cast<int32_t>(v.get_int64());
        return {};
    }
    if (v.is_uint64() && v.get_uint64() <= static_cast<uint64_t>(hi)) {
        out = static_cast<int32_t>(v.get_uint64());
        return {};
    }
    return typeError(v, field, "int32");
}

// A string member: null leaves it as it is.
Error decodeString(const json::value& v, std::string_view field, std::string& out) {
    if (v.is_null()) return {};
    if (!v.is_string()) return typeError(v, field, "string");
    out = sanitizeUtf8(v.get_string());
    return {};
}

// metav1.Time.UnmarshalJSON: null is the zero time; otherwise a string in RFC 3339.
Error decodeTime(const json::value& v, GoTime& out) {
    if (v.is_null()) {
        out = GoTime{};
        return {};
    }
    if (!v.is_string()) return typeError(v, "TrainerStatus.trainerStatus.lastUpdatedTime", "string");
    auto t = parseGoRfc3339(sanitizeUtf8(v.get_string()));
    if (!t) return "parsing time " + goQuote(v.get_string()) + " as RFC 3339: cannot parse";
    out = *t;
    return {};
}

// A Metric element: null leaves it empty; an object sets name/value.
Error decodeMetric(const json::value& v, Metric& out) {
    if (v.is_null()) return {};
    if (!v.is_object()) return typeError(v, "TrainerStatus.trainerStatus.metrics", "v1alpha1.Metric");
    for (const auto& kv : v.get_object()) {
        Error e;
        if (keyMatches(kv.key(), "name")) e = decodeString(kv.value(), "Metric.trainerStatus.metrics.name", out.name);
        else if (keyMatches(kv.key(), "value")) e = decodeString(kv.value(), "Metric.trainerStatus.metrics.value", out.value);
        if (!e.empty()) return e;
    }
    return {};
}

// []Metric: null empties it; an array replaces it.
Error decodeMetrics(const json::value& v, std::vector<Metric>& out) {
    out.clear();
    if (v.is_null()) return {};
    if (!v.is_array()) return typeError(v, "TrainerStatus.trainerStatus.metrics", "[]v1alpha1.Metric");
    for (const auto& item : v.get_array()) {
        out.emplace_back();
        if (auto e = decodeMetric(item, out.back()); !e.empty()) return e;
    }
    return {};
}

Error decodeTrainerStatus(const json::object& o, TrainerStatusUpdate& out) {
    for (const auto& kv : o) {
        const json::value& v = kv.value();
        Error e;
        if (keyMatches(kv.key(), "progressPercentage"))
            e = decodeInt32(v, "TrainerStatus.trainerStatus.progressPercentage", out.progressPercentage);
        else if (keyMatches(kv.key(), "estimatedRemainingSeconds"))
            e = decodeInt32(v, "TrainerStatus.trainerStatus.estimatedRemainingSeconds", out.estimatedRemainingSeconds);
        else if (keyMatches(kv.key(), "metrics"))
            e = decodeMetrics(v, out.metrics);
        else if (keyMatches(kv.key(), "lastUpdatedTime"))
            e = decodeTime(v, out.lastUpdatedTime);
        if (!e.empty()) return e;
    }
    return {};
}

// The request: null leaves it empty; an object's trainerStatus (a pointer) is decoded into the
// value a previous member with a matching key allocated, as Go does.
Error decodeRequest(const json::value& v, UpdateRequest& out) {
    if (v.is_null()) return {};
    if (!v.is_object()) return "json: cannot unmarshal " + typeName(v) + " into Go value of type v1alpha1.UpdateTrainJobStatusRequest";
    for (const auto& kv : v.get_object()) {
        if (!keyMatches(kv.key(), "trainerStatus")) continue;
        if (kv.value().is_null()) {
            out.trainerStatus.reset();
            continue;
        }
        if (!kv.value().is_object())
            return typeError(kv.value(), "UpdateTrainJobStatusRequest.trainerStatus", "v1alpha1.TrainerStatus");
        if (!out.trainerStatus) out.trainerStatus.emplace();
        if (auto e = decodeTrainerStatus(kv.value().get_object(), *out.trainerStatus); !e.empty()) return e;
    }
    return {};
}

}  // namespace

DecodeResult decodeUpdateRequest(std::string_view body) {
    json::parse_options po;
    po.max_depth = 10000;  // Go's scanner limit (maxNestingDepth)
    po.allow_invalid_utf8 = true;  // Go replaces invalid bytes with U+FFFD (sanitizeUtf8)
    // Nested values are freed with the resource at once: destroying a 10000-deep array
    // element by element would recurse that deep.
    json::monotonic_resource memory;
    json::stream_parser parser(json::storage_ptr(), po);
    parser.reset(&memory);
    std::string text = replaceLoneSurrogates(body);
    json::error_code ec;
    parser.write_some(text.data(), text.size(), ec);
    if (!ec && !parser.done()) parser.finish(ec);
    DecodeResult r;
    if (ec) {
        r.error = ec == json::error::incomplete && text.find_first_not_of(" \t\r\n") == std::string::npos
                      ? "EOF"
                      : "invalid JSON: " + ec.message();
        return r;
    }
    json::value v = parser.release();
    UpdateRequest req;
    r.error = decodeRequest(v, req);
    if (r.error.empty()) r.request = std::move(req);
    return r;
}

}  // namespace trainer::core::statusserver
