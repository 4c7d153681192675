// The request body, upstream's UpdateTrainJobStatusRequest, decoded and encoded as Go's
// encoding/json does it for that type
// (https://github.com/kubeflow/trainer/blob/master/pkg/apis/trainer/v1alpha1/trainjob_types.go,
// https://github.com/kubeflow/trainer/blob/master/pkg/statusserver/server.go).
#pragma once

#include <boost/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace trainer::core::statusserver {

namespace json = boost::json;

// A metav1.Time: seconds since the Unix epoch (UTC) and nanoseconds, any year Go's RFC 3339
// parser accepts. The zero value of Go's time.Time (0001-01-01T00:00:00Z) stands for "absent".
struct GoTime {
    int64_t seconds = -62135596800;  // 0001-01-01T00:00:00Z
    int32_t nanos = 0;
    bool isZero() const { return seconds == -62135596800 && nanos == 0; }
};

// Go's time.Parse(time.RFC3339, s): "YYYY-MM-DDTHH:MM:SS[.digits](Z|±hh:mm)" with an upper-case
// T and Z, a real calendar date, hours 0-23, minutes and seconds 0-59; nullopt otherwise.
std::optional<GoTime> parseGoRfc3339(std::string_view s);
// metav1.Time's JSON form: UTC, whole seconds ("2025-01-23T10:30:45Z").
std::string formatGoRfc3339(const GoTime& t);

struct Metric {
    std::string name;
    std::string value;
};

// TrainerStatus as the request carries it.
struct TrainerStatusUpdate {
    std::optional<int32_t> progressPercentage;
    std::optional<int32_t> estimatedRemainingSeconds;
    std::vector<Metric> metrics;
    GoTime lastUpdatedTime;  // zero when absent or null
};

struct UpdateRequest {
    std::optional<TrainerStatusUpdate> trainerStatus;  // absent or null: nothing to write
};

// The body decoded as json.NewDecoder(body).Decode(&req) does: the first JSON value only (what
// follows it is not read), unknown members ignored, keys matched case-insensitively, duplicate
// keys: the last wins, null leaves a field unset, nesting up to 10000 levels. Type errors
// (a string for an int32, a fraction, an int32 overflow, a non-RFC 3339 time ...) and malformed
// JSON are errors; `error` says why (for the log; the client only sees "Invalid payload").
struct DecodeResult {
    std::optional<UpdateRequest> request;
    std::string error;
};
DecodeResult decodeUpdateRequest(std::string_view body);

// status.trainerStatus as upstream's apply configuration writes it (toApplyConfig): metrics with
// both members even when empty, metrics omitted when there are none, lastUpdatedTime omitted when
// zero (the API server prunes its null; the CRD's CEL rule then refuses the object).
json::object trainerStatusObject(const TrainerStatusUpdate& status);

// The 200 body: the parsed request re-encoded by Go's json.Encoder (omitempty members left out,
// HTML-safe escapes, a trailing newline).
std::string encodeUpdateRequest(const UpdateRequest& request);

}  // namespace trainer::core::statusserver
