// The per-runtime part of an Info (issue 14). Of the TrainJob, buildInfo
// (core/runtime/info_builder.hpp) reads only whether `spec` and `spec.trainer` are objects,
// `spec.runtimePatches` and `spec.trainer.resourcesPerNode`: every member of the Info but
// `trainJob` follows from the runtime and those inputs. A skeleton is that Info without its
// `trainJob`, with its text around where the TrainJob's goes. Admission makes one per runtime
// object and inputs and splices each TrainJob into it (Framework::validate) instead of building
// and serialising the runtime's members again for every TrainJob.
#pragma once

#include "core/api/errors.hpp"
#include "core/plugin/member_place.hpp"

#include <boost/json.hpp>

#include <cstddef>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace trainer::core {

namespace json = boost::json;

struct InfoSkeleton {
    json::object members;         // buildInfo's members but `trainJob`, in buildInfo's order
    std::size_t trainJobAt = 0;   // the index of `trainJob` among buildInfo's members
    Diagnostics diagnostics;      // buildInfo's: warnings only (an Info with errors has no skeleton)
    std::string head;             // json::serialize of the Info up to the TrainJob's value
    std::string tail;             // after the TrainJob's value, without the closing brace
    // Where the members lie (info_text.hpp): in `head` (the last is `trainJob`, whose value
    // begins at head.size() and whose size is the TrainJob text's), and in `tail` from its start.
    // Both empty when a name was not plain.
    std::vector<MemberPlace> headPlaces, tailPlaces;
};

// What buildInfo reads of a TrainJob, as a TrainJob: `spec` (as it is when not an object) with
// only `runtimePatches` and `trainer` (as it is when not an object, else only resourcesPerNode).
json::object infoInputsOf(const json::object& trainJob);

// The skeleton of buildInfo(trainJob, runtime); null when buildInfo reports errors (in `diag`).
std::shared_ptr<const InfoSkeleton> makeInfoSkeleton(const json::object& trainJob, const json::object& runtime,
                                                     Diagnostics& diag);

// buildInfo(trainJob, runtime) from the skeleton made of that runtime and infoInputsOf(trainJob):
// its members with `trainJob` in its place.
json::object assembleInfo(const InfoSkeleton& skeleton, const json::object& trainJob);

// Skeletons remembered by runtime object and TrainJob inputs; thread-safe, at most kEntries (the
// oldest is replaced). A runtime is the object a reader shares (ClusterReader::share): the same
// pointer is the same, unchanged object, and an entry holds it, so the pointer is not reused.
// A runtime read by copy (a snapshot's) is a new object each time and is not remembered.
class InfoSkeletons {
public:
    static constexpr std::size_t kEntries = 16;

    // The skeleton for `trainJob` on `runtime`, remembered or made (makeInfoSkeleton); its
    // warnings are added to `diag`. Null, with the errors in `diag`, when buildInfo fails.
    std::shared_ptr<const InfoSkeleton> get(const std::shared_ptr<const json::object>& runtime,
                                            const json::object& trainJob, Diagnostics& diag);

    // How many skeletons were made and how many lookups found one (a test's window).
    std::size_t made() const;
    std::size_t found() const;

private:
    struct Entry {
        std::shared_ptr<const json::object> runtime;
        json::object inputs;
        std::shared_ptr<const InfoSkeleton> skeleton;
    };
    mutable std::mutex mu_;
    std::vector<Entry> entries_;
    std::size_t next_ = 0;  // the entry replaced next once all kEntries are taken
    std::size_t made_ = 0, found_ = 0;
};

}  // namespace trainer::core
