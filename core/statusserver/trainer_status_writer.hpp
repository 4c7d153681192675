// Writes status.trainerStatus of one TrainJob through the store seam, as upstream's server-side
// apply by field manager "trainer-status" (ForceOwnership) leaves it
// (https://github.com/kubeflow/trainer/blob/master/pkg/statusserver/server.go): the new
// trainerStatus replaces the old one whole (a member the request omits is gone, as upstream's
// integration test "Should overwrite existing status, not merge" checks), every other status
// field and the rest of the object stay as they are.
#pragma once

#include "core/store/store.hpp"

#include <string>
#include <string_view>

namespace trainer::core::statusserver {

enum class WriteOutcome {
    Written,   // stored (or already equal: nothing to write)
    NotFound,  // no such TrainJob (404 "Train job not found")
    Invalid,   // the new object breaks the CRD schema (422, `message` as the API server words it)
    Error,     // the store failed or conflicts never settled (500; `message` is for the log)
};

struct WriteResult {
    WriteOutcome outcome = WriteOutcome::Written;
    std::string message;
};

// Read, replace status.trainerStatus, validate against the TrainJob CRD (only errors under
// status.trainerStatus count: the rest of the object is unchanged, and the API server ratchets
// unchanged fields), updateStatus conditional on the resourceVersion read; a Conflict re-reads and
// retries, at most `maxAttempts` times in all. Nothing is written unless the result is Written.
// A read that fails is Error (500). A NotFound read is confirmed, since a reader may lag (the
// informer cache of cluster mode misses a TrainJob just created), by a write transaction that
// cannot succeed (resourceVersion "0", which no stored object carries): NotFound there is
// absence, Conflict (or kube-apiserver's 422) means it exists now, Error is a store failure.
WriteResult writeTrainerStatus(Store& store, std::string_view ns, std::string_view name, const json::object& trainerStatus,
                               int maxAttempts);

}  // namespace trainer::core::statusserver
