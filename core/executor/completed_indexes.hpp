// A set of completion indexes kept as ordered intervals, printed as a Job's
// status.completedIndexes ("0-2,4,6,7"): kubernetes pkg/controller/job/indexed_job_utils.go
// (orderedIntervals). Two adjacent indexes print as "6,7", three or more as a range.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace trainer::core::executor {

class IndexSet {
public:
    // Parses `text`, dropping indexes >= `completions` and corrupted intervals (as upstream does).
    static IndexSet parse(std::string_view text, int64_t completions);
    void add(int64_t index);
    bool has(int64_t index) const;
    int64_t total() const;
    std::string toString() const;
    const std::vector<std::pair<int64_t, int64_t>>& intervals() const { return intervals_; }

private:
    std::vector<std::pair<int64_t, int64_t>> intervals_;  // sorted, disjoint, non-adjacent
};

}  // namespace trainer::core::executor
