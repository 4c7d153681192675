#include "core/executor/job_controller.hpp"

#include "core/executor/job_sync.hpp"
#include "core/executor/workload_json.hpp"
#include "core/executor/workload_names.hpp"

#include <algorithm>

namespace trainer::core::executor {

namespace {

using namespace workload;
using jobsync::Finished;
using jobsync::SyncJob;

controller::ReconcileResult withError(std::string e) {
    controller::ReconcileResult r;
    r.error = std::move(e);
    return r;
}

controller::ReconcileResult retryLater() {
    controller::ReconcileResult r;
    r.requeue = true;
    return r;
}

bool contains(const std::vector<std::string>& v, const std::string& s) { return std::find(v.begin(), v.end(), s) != v.end(); }

// Active, ready, terminating, and succeeded/failed = counted + uncounted + newly finished.
void countPods(SyncJob& s) {
    auto* uncounted = objectAt(&s.status, "uncountedTerminatedPods");
    s.uncountedSucceeded = stringsAt(uncounted, "succeeded");
    s.uncountedFailed = stringsAt(uncounted, "failed");
    int64_t newSucceeded = 0, newFailed = 0;
    for (auto const& pod : s.pods) {
        if (isActive(pod)) {
            s.active.push_back(&pod);
            if (pod.ready) ++s.ready;
        }
        if (isTerminating(pod)) ++s.terminating;
        if (!pod.tracked || (s.params.indexed && !s.validIndex(pod))) continue;
        if (pod.phase == "Succeeded" && !contains(s.uncountedSucceeded, pod.uid)) ++newSucceeded;
        else if (isPodFailed(pod, s.params.onlyReplaceFailedPods) && !contains(s.uncountedFailed, pod.uid)) ++newFailed;
    }
    s.activeCount = static_cast<int64_t>(s.active.size());
    s.succeeded = intAt(&s.status, "succeeded").value_or(0) + newSucceeded + static_cast<int64_t>(s.uncountedSucceeded.size());
    s.failed = intAt(&s.status, "failed").value_or(0) + newFailed + static_cast<int64_t>(s.uncountedFailed.size());
}

// Container restarts of running or pending pods against backoffLimit (restartPolicy OnFailure).
bool pastBackoffLimitOnFailure(const SyncJob& s) {
    if (s.params.restartPolicy != "OnFailure") return false;
    int64_t restarts = 0;
    for (auto const& pod : s.pods)
        if (pod.phase == "Running" || pod.phase == "Pending" || pod.phase.empty()) restarts += pod.restartCount;
    return s.params.backoffLimit == 0 ? restarts > 0 : restarts >= s.params.backoffLimit;
}

std::optional<controller::Clock::time_point> startTimeOf(const SyncJob& s) {
    return parseRfc3339(stringAt(&s.status, "startTime"));
}

// The terminal condition already decided, or a new FailureTarget; the deadline's requeue.
void decideFinished(SyncJob& s, std::optional<controller::Clock::duration>& requeueAfter) {
    if (auto* c = conditionOf(&s.status, "SuccessCriteriaMet"); c && stringAt(c, "status") == "True")
        s.finished = Finished{"SuccessCriteriaMet", stringAt(c, "reason"), stringAt(c, "message")};
    else if (auto* f = conditionOf(&s.status, "FailureTarget"); f && stringAt(f, "status") == "True")
        s.finished = Finished{"Failed", stringAt(f, "reason"), stringAt(f, "message")};
    if (s.finished) return;
    auto start = startTimeOf(s);
    auto deadline = s.params.activeDeadlineSeconds;
    auto now = s.clock.now();
    if (s.failed > s.params.backoffLimit || pastBackoffLimitOnFailure(s)) {
        s.finished = Finished{"FailureTarget", "BackoffLimitExceeded", "Job has reached the specified backoff limit"};
    } else if (deadline && start && !s.params.suspend && now - *start >= std::chrono::seconds(*deadline)) {
        s.finished = Finished{"FailureTarget", "DeadlineExceeded", "Job was active longer than specified deadline"};
    } else if (deadline && start && !s.params.suspend) {
        requeueAfter = std::chrono::seconds(*deadline) - (now - *start);
    }
}

void countIndexes(SyncJob& s) {
    if (!s.params.indexed) return;
    s.prevSucceededIndexes = IndexSet::parse(stringAt(&s.status, "completedIndexes"), *s.params.completions);
    s.succeededIndexes = s.prevSucceededIndexes;
    for (auto const& pod : s.pods)
        if (pod.phase == "Succeeded" && pod.tracked && s.validIndex(pod)) s.succeededIndexes.add(pod.index);
    s.succeeded = s.succeededIndexes.total();
}

// Removes the active pods of a finishing Job (their finalizers stay: they are counted as failed).
void deleteActivePods(SyncJob& s) {
    int64_t deleted = 0, deletedReady = 0;
    for (auto const* pod : s.active) {
        auto e = deletePod(s.store, pod->key);
        s.addError(e);
        if (!e.empty()) continue;
        ++deleted;
        if (pod->ready) ++deletedReady;
    }
    if (deleted != s.activeCount) s.finished.reset();
    s.activeCount -= deleted;
    s.terminating += deleted;
    s.ready -= deletedReady;
}

void manageOrComplete(SyncJob& s) {
    bool managed = false;
    if (!hasDeletionTimestamp(s.job)) {
        jobsync::manageJob(s);
        managed = true;
    }
    auto const& c = s.params.completions;
    bool complete = c ? s.succeeded >= *c && s.activeCount == 0 : s.succeeded > 0 && s.activeCount == 0;
    auto now = s.clock.now();
    if (complete) {
        s.finished = Finished{"SuccessCriteriaMet", "CompletionsReached", "Reached expected number of succeeded pods"};
    } else if (managed && s.params.suspend) {
        jobsync::ensureJobCondition(s.status, "Suspended", "True", "JobSuspended", "Job suspended", now);
    } else if (managed && jobsync::ensureJobCondition(s.status, "Suspended", "False", "JobResumed", "Job resumed", now)) {
        // The deadline counts from the resume.
        s.status["startTime"] = formatRfc3339(now);
    }
}

void setCounter(json::object& status, std::string_view key, int64_t value) {
    if (value > 0) status[key] = value;
    else status.erase(key);
}

// A spec the API server would have refused: Failed at once, with the reason.
controller::ReconcileResult failInvalid(SyncJob& s, const std::string& error) {
    s.log.error("Invalid Job spec", {{"error", error}});
    auto now = s.clock.now();
    jobsync::ensureJobCondition(s.status, "Failed", "True", kReasonInvalidJobSpec, error, now);
    if (!jobsync::flushStatus(s)) return retryLater();
    return withError(s.errors);
}

controller::ReconcileResult sync(SyncJob& s) {
    std::string error;
    auto params = parseJobSpec(objectAt(&s.job, "spec"), "spec.", error);
    if (!params) return failInvalid(s, error);
    s.params = std::move(*params);
    auto pods = podsOfJob(s.store, keyOf(s.job).ns, uidOf(s.job));
    if (!pods.ok()) {  // not "no pods": creating them now could run a node twice
        s.addError(*pods.error);
        return withError(s.errors);
    }
    s.pods = std::move(pods.value);
    countPods(s);
    if (!s.status.contains("startTime") && !s.params.suspend) s.status["startTime"] = formatRfc3339(s.clock.now());
    std::optional<controller::Clock::duration> requeueAfter;
    decideFinished(s, requeueAfter);
    countIndexes(s);
    if (s.finished) deleteActivePods(s);
    else manageOrComplete(s);
    setCounter(s.status, "active", s.activeCount);
    s.status["ready"] = s.ready;
    s.status["terminating"] = s.terminating;
    if (!jobsync::trackAndFinish(s)) return retryLater();
    auto r = withError(s.errors);
    if (r.error.empty() && !s.finished) r.requeueAfter = requeueAfter;
    return r;
}

}  // namespace

controller::ReconcileResult reconcileJob(Store& store, const ObjectKey& key, const controller::Clock& clock,
                                         const log::Logger& log) {
    auto read = store.get(key);
    if (read.failed()) return withError(readFailureMessage(key, read.message));  // retried; nothing released
    if (read.notFound()) {
        // The Job is gone: its pods' finalizers no longer serve anyone (syncOrphanPod).
        return withError(releaseStalePods(store, key.ns, key.name, ""));
    }
    auto* job = &read.object;
    std::string released = releaseStalePods(store, key.ns, key.name, uidOf(*job));
    auto* status = objectAt(&*job, "status");
    if (conditionTrue(status, "Complete") || conditionTrue(status, "Failed")) {
        // Finished: nothing to redo; pods it still tracks are released.
        SyncJob done(store, clock, log, *job, json::object());
        done.addError(released);
        auto pods = podsOfJob(store, key.ns, uidOf(*job));
        if (!pods.ok()) done.addError(*pods.error);
        for (auto const& pod : pods.value)
            if (pod.tracked) done.addError(removeTrackingFinalizer(store, pod.key));
        return withError(done.errors);
    }
    SyncJob s(store, clock, log, *job, status ? *status : json::object());
    s.addError(released);
    if (!s.status.contains("uncountedTerminatedPods")) s.status["uncountedTerminatedPods"] = json::object();
    return sync(s);
}

}  // namespace trainer::core::executor
