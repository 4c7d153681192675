// trackJobStatusAndRemoveFinalizers, flushUncountedAndRemoveFinalizers and enactJobFinished of
// kubernetes pkg/controller/job/job_controller.go (v1.32): a finished pod is first recorded in
// status.uncountedTerminatedPods (or, Indexed and succeeded, in completedIndexes), then its
// finalizer goes, then it moves to the succeeded/failed counters; the final Complete/Failed
// condition waits until nothing is uncounted and no pod is terminating.
#include "core/executor/job_sync.hpp"

#include "core/executor/workload_json.hpp"

#include <algorithm>
#include <set>

namespace trainer::core::executor::jobsync {

namespace {

using namespace workload;

bool contains(const std::vector<std::string>& v, const std::string& s) { return std::find(v.begin(), v.end(), s) != v.end(); }

json::array toArray(const std::vector<std::string>& v) {
    json::array a;
    for (auto const& s : v) a.emplace_back(s);
    return a;
}

void writeUncounted(SyncJob& s) {
    json::object u;
    if (!s.uncountedSucceeded.empty()) u["succeeded"] = toArray(s.uncountedSucceeded);
    if (!s.uncountedFailed.empty()) u["failed"] = toArray(s.uncountedFailed);
    s.status["uncountedTerminatedPods"] = std::move(u);
}

// Chooses the pods whose finalizer can go and records them as uncounted.
std::vector<const JobPod*> collectFinishedPods(SyncJob& s) {
    std::vector<const JobPod*> release;
    bool jobDeleted = hasDeletionTimestamp(s.job);
    bool finishingAsFailure = s.finished && s.finished->type != "SuccessCriteriaMet";
    for (auto const& pod : s.pods) {
        if (!pod.tracked) continue;
        bool failed = isPodFailed(pod, s.params.onlyReplaceFailedPods);
        if (!(jobDeleted || s.finished || pod.phase == "Succeeded" || failed)) continue;
        release.push_back(&pod);
        if (pod.phase == "Succeeded" && !contains(s.uncountedFailed, pod.uid)) {
            if (s.params.indexed) continue;  // counted through completedIndexes
            if (!contains(s.uncountedSucceeded, pod.uid)) s.uncountedSucceeded.push_back(pod.uid);
        } else if (failed || finishingAsFailure) {
            if (!contains(s.uncountedFailed, pod.uid) && (!s.params.indexed || s.validIndex(pod)))
                s.uncountedFailed.push_back(pod.uid);
        }
    }
    return release;
}

// Records the interim condition and turns `finished` into the final one.
void recordInterimCondition(SyncJob& s) {
    if (!s.finished) return;
    auto now = s.clock.now();
    auto& f = *s.finished;
    if (f.type == "FailureTarget") {
        ensureJobCondition(s.status, "FailureTarget", "True", f.reason, f.message, now);
        f.type = "Failed";
    } else if (f.type == "SuccessCriteriaMet") {
        if (!conditionTrue(&s.status, "SuccessCriteriaMet"))
            ensureJobCondition(s.status, "SuccessCriteriaMet", "True", f.reason, f.message, now);
        f.type = "Complete";
    }
}

// Moves uncounted pods whose finalizer is gone to the counters.
void countReleased(SyncJob& s, const std::set<std::string>& stillTracked) {
    auto moveOut = [&](std::vector<std::string>& uids, std::string_view counter) {
        int64_t moved = 0;
        std::erase_if(uids, [&](const std::string& uid) { return !stillTracked.contains(uid) && ++moved; });
        if (moved > 0) s.status[counter] = intAt(&s.status, counter).value_or(0) + moved;
    };
    moveOut(s.uncountedSucceeded, "succeeded");
    moveOut(s.uncountedFailed, "failed");
    writeUncounted(s);
}

bool enactFinished(SyncJob& s) {
    if (!s.finished || !s.uncountedSucceeded.empty() || !s.uncountedFailed.empty() || s.terminating > 0) return false;
    auto now = s.clock.now();
    ensureJobCondition(s.status, s.finished->type, "True", s.finished->reason, s.finished->message, now);
    if (s.finished->type == "Complete") s.status["completionTime"] = formatRfc3339(now);
    s.log.info("Job finished", {{"condition", s.finished->type}, {"reason", s.finished->reason}});
    return true;
}

}  // namespace

bool flushStatus(SyncJob& s) {
    auto* current = objectAt(&s.job, "status");
    if (current && *current == s.status) return true;
    json::object next = s.job;
    next["status"] = s.status;
    auto r = s.store.updateStatus(next);
    if (r.ok()) {
        s.job = std::move(r.object);
        return true;
    }
    if (r.status == StoreStatus::Conflict) return false;
    s.addError("updating status of " + keyOf(s.job).display() + ": " + r.message);
    return true;
}

bool trackAndFinish(SyncJob& s) {
    auto release = collectFinishedPods(s);
    if (s.params.indexed) {
        s.status["succeeded"] = s.succeededIndexes.total();
        if (s.succeededIndexes.total() == 0) s.status.erase("succeeded");
        if (auto text = s.succeededIndexes.toString(); !text.empty()) s.status["completedIndexes"] = text;
        else s.status.erase("completedIndexes");
    }
    recordInterimCondition(s);
    writeUncounted(s);
    if (!flushStatus(s)) return false;
    std::set<std::string> stillTracked;
    for (auto const& pod : s.pods)
        if (pod.tracked) stillTracked.insert(pod.uid);
    for (auto const* pod : release) {
        auto e = removeTrackingFinalizer(s.store, pod->key);
        s.addError(e);
        if (e.empty()) stillTracked.erase(pod->uid);
    }
    countReleased(s, stillTracked);
    enactFinished(s);
    return flushStatus(s);
}

}  // namespace trainer::core::executor::jobsync
