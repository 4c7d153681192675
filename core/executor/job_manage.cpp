// manageJob of kubernetes pkg/controller/job/job_controller.go (v1.32): pod deletions take
// precedence over creations in one sync; Indexed Jobs create the lowest pending indexes.
#include "core/executor/job_sync.hpp"

#include "core/executor/workload_json.hpp"

#include <algorithm>
#include <map>

namespace trainer::core::executor::jobsync {

namespace {

using namespace workload;

// At most this many pod creations or deletions per sync (MaxPodCreateDeletePerSync).
constexpr int64_t kMaxPodCreateDeletePerSync = 500;

// Deletes `pods` after removing their finalizer, so they are not counted as failed
// (deleteJobPods).
void deleteJobPods(SyncJob& s, const std::vector<const JobPod*>& pods) {
    for (auto const* pod : pods) {
        std::string e = removeTrackingFinalizer(s.store, pod->key);
        if (e.empty()) e = deletePod(s.store, pod->key);
        s.addError(e);
        if (!e.empty()) continue;
        --s.activeCount;
        ++s.terminating;
        if (pod->ready) --s.ready;
    }
}

// activePodsForRemoval: for Indexed Jobs the pods without a valid index and all but one pod per
// repeated index, then not-ready pods before ready ones until `atLeast` are chosen.
std::vector<const JobPod*> podsForRemoval(const SyncJob& s, int64_t atLeast) {
    std::vector<const JobPod*> rm, left;
    if (s.params.indexed) {
        std::map<int64_t, std::vector<const JobPod*>> byIndex;
        for (auto const* p : s.active) {
            if (!s.validIndex(*p)) rm.push_back(p);
            else byIndex[p->index].push_back(p);
        }
        for (auto& [ix, pods] : byIndex) {
            // Keep the most advanced pod of the index (ready over not ready).
            std::stable_sort(pods.begin(), pods.end(), [](const JobPod* a, const JobPod* b) { return a->ready < b->ready; });
            rm.insert(rm.end(), pods.begin(), pods.end() - 1);
            left.push_back(pods.back());
        }
    } else {
        left = s.active;
    }
    std::stable_sort(left.begin(), left.end(), [](const JobPod* a, const JobPod* b) { return a->ready < b->ready; });
    for (size_t i = 0; static_cast<int64_t>(rm.size()) < atLeast && i < left.size(); ++i) rm.push_back(left[i]);
    if (static_cast<int64_t>(rm.size()) > kMaxPodCreateDeletePerSync) rm.resize(kMaxPodCreateDeletePerSync);
    return rm;
}

// firstPendingIndexes: the lowest `count` indexes neither succeeded nor held by an active pod
// (nor by a terminating one when only failed pods are replaced).
std::vector<int64_t> firstPendingIndexes(const SyncJob& s, int64_t count) {
    IndexSet taken = s.succeededIndexes;
    for (auto const& p : s.pods)
        if (p.index >= 0 && (isActive(p) || (s.params.onlyReplaceFailedPods && isTerminating(p)))) taken.add(p.index);
    std::vector<int64_t> out;
    for (int64_t i = 0; i < *s.params.completions && static_cast<int64_t>(out.size()) < count; ++i)
        if (!taken.has(i)) out.push_back(i);
    return out;
}

void createPods(SyncJob& s, int64_t diff) {
    std::vector<int64_t> indexes;
    if (s.params.indexed) indexes = firstPendingIndexes(s, diff);
    else indexes.assign(static_cast<size_t>(diff), -1);
    for (int64_t ix : indexes) {
        auto r = s.store.create(newJobPod(s.job, s.params, ix));
        if (!r.ok()) {
            s.addError("creating pod for " + keyOf(s.job).display() + ": " + r.message);
            break;  // slow start: stop at the first failure
        }
        ++s.activeCount;
        s.log.debug("Created pod", {{"pod", keyOf(r.object).name}});
    }
}

}  // namespace

bool ensureJobCondition(json::object& status, std::string_view type, std::string_view condStatus, std::string_view reason,
                        std::string_view message, controller::Clock::time_point now) {
    auto& conds = status["conditions"];
    if (!conds.is_array()) conds = json::array();
    std::string stamp = formatRfc3339(now);
    json::object fresh{{"type", type}, {"status", condStatus}, {"lastProbeTime", stamp}, {"lastTransitionTime", stamp}};
    if (!reason.empty()) fresh["reason"] = reason;
    if (!message.empty()) fresh["message"] = message;
    for (auto& c : conds.get_array()) {
        if (!c.is_object() || stringAt(&c.get_object(), "type") != type) continue;
        auto const& o = c.get_object();
        if (stringAt(&o, "status") == condStatus && stringAt(&o, "reason") == reason && stringAt(&o, "message") == message)
            return false;
        c = std::move(fresh);
        return true;
    }
    if (condStatus == "False") {
        if (conds.get_array().empty()) status.erase("conditions");
        return false;
    }
    conds.get_array().push_back(std::move(fresh));
    return true;
}

void manageJob(SyncJob& s) {
    if (s.params.suspend) {
        deleteJobPods(s, s.active);
        return;
    }
    int64_t want = 0;
    if (!s.params.completions) want = s.succeeded > 0 ? s.activeCount : s.params.parallelism;
    else want = std::max<int64_t>(0, std::min(*s.params.completions - s.succeeded, s.params.parallelism));
    auto toDelete = podsForRemoval(s, std::max<int64_t>(0, s.activeCount - want));
    if (!toDelete.empty()) {
        deleteJobPods(s, toDelete);
        return;
    }
    int64_t terminating = s.params.onlyReplaceFailedPods ? s.terminating : 0;
    int64_t diff = std::min(want - terminating - s.activeCount, kMaxPodCreateDeletePerSync);
    if (diff > 0) createPods(s, diff);
}

}  // namespace trainer::core::executor::jobsync
