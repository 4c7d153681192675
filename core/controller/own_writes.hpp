// The children a TrainJob reconcile wrote and then read back (issue 14 P4). A reconcile applies
// the TrainJob's children and then runs the status hooks, which read them; the change-feed event
// of such a write therefore tells the writing TrainJob nothing it did not see, and the watcher
// does not queue it again for that event (every other TrainJob the change concerns still is).
// Without this every new TrainJob is reconciled twice: once to build it, once more for the
// event of the JobSet it just created (an apply that changes nothing). Like kube-controller-
// manager's ControllerExpectations (pkg/controller/controller_utils.go), the controller
// remembers its own writes.
//
// Safe in the direction that matters: a record that is missing, lost or dropped costs one extra
// reconcile, never a missed one (so does a change the watcher reads before the writing reconcile
// recorded it: a few in 10,000 in controller_bench). A record is consumed by the one event it predicts (same object,
// same resourceVersion, ADDED or MODIFIED); a deletion of the object drops it; re-lists and a
// full table (`capacity`) drop them all. Thread-safe: workers record, the watcher takes.
#pragma once

#include "core/store/store.hpp"

#include <cstddef>
#include <map>
#include <mutex>
#include <optional>
#include <string>

namespace trainer::core::controller {

class OwnWrites {
public:
    explicit OwnWrites(std::size_t capacity = 1 << 16) : capacity_(capacity) {}

    // `trainJob`'s reconcile wrote `child` as `written` (the stored object, with its
    // resourceVersion) and reads it again before it ends. Ignored without a resourceVersion.
    void record(const ObjectKey& child, const json::object& written, const ObjectKey& trainJob);
    // The TrainJob whose recorded write `change` is (its record consumed), or nullopt.
    std::optional<ObjectKey> take(const Change& change);
    // Forgets every record (the watcher re-lists: every TrainJob is queued anyway).
    void clear();
    std::size_t size() const;

private:
    struct Write {
        std::string resourceVersion;
        ObjectKey trainJob;
    };
    const std::size_t capacity_;
    mutable std::mutex mu_;
    std::map<ObjectKey, Write> writes_;
};

}  // namespace trainer::core::controller
