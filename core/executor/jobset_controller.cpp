#include "core/executor/jobset_controller.hpp"

#include "core/executor/jobset_sync.hpp"
#include "core/executor/workload_json.hpp"
#include "core/executor/workload_names.hpp"

namespace trainer::core::executor {

namespace {

using namespace workload;
using jobsetsync::SyncJobSet;
using Result = std::optional<controller::ReconcileResult>;  // nullopt: status write conflicted

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

DeleteOptions foreground() {
    DeleteOptions o;
    o.propagation = Propagation::Foreground;
    return o;
}

// updateJobSetStatus: one write when anything changed.
Result writeStatus(SyncJobSet& s, controller::ReconcileResult result = {}) {
    auto* current = objectAt(&s.js, "status");
    if (current && *current == s.status) return result;
    json::object next = s.js;
    next["status"] = s.status;
    auto r = s.store.updateStatus(next);
    if (r.status == StoreStatus::Conflict) return std::nullopt;
    if (!r.ok() && r.status != StoreStatus::NotFound) result.error = "updating status: " + r.message;
    return result;
}

// executeTTLAfterFinishedPolicy: deletes the JobSet once its TTL after finishing has passed.
std::optional<controller::Clock::duration> ttlAfterFinished(SyncJobSet& s, std::string& error, bool& deleted) {
    if (!s.params.ttlSecondsAfterFinished) return std::nullopt;
    auto* c = conditionOf(&s.status, conditionTrue(&s.status, "Completed") ? "Completed" : "Failed");
    auto finishedAt = parseRfc3339(stringAt(c, "lastTransitionTime"));
    if (!finishedAt) return std::nullopt;
    auto remaining = *finishedAt + std::chrono::seconds(*s.params.ttlSecondsAfterFinished) - s.clock.now();
    if (remaining > controller::Clock::duration::zero()) return remaining;
    auto r = s.store.remove(keyOf(s.js), foreground());
    if (!r.ok() && r.status != StoreStatus::NotFound) error = "deleting JobSet after its TTL: " + r.message;
    deleted = r.ok();
    s.log.info("JobSet TTL expired, deleting");
    return std::nullopt;
}

// A finished JobSet: its active Jobs go; the TTL may delete it.
Result finishedCleanup(SyncJobSet& s) {
    if (auto e = jobsetsync::deleteJobs(s, s.jobs.active); !e.empty()) return withError(e);
    std::string error;
    bool deleted = false;
    auto requeue = ttlAfterFinished(s, error, deleted);
    if (!error.empty()) return withError(error);
    if (deleted) return controller::ReconcileResult{};
    controller::ReconcileResult result;
    result.requeueAfter = requeue;
    return writeStatus(s, result);
}

Result invalidSpec(SyncJobSet& s, const std::string& error) {
    if (!jobSetFinished(s.status)) {
        s.log.error("Invalid JobSet spec", {{"error", error}});
        failJobSet(s.status, kReasonInvalidJobSet, error, s.clock.now());
    }
    return writeStatus(s);
}

Result sync(SyncJobSet& s) {
    auto now = s.clock.now();
    auto jobs = childJobsOf(s.store, s.js, s.restarts, s.log);
    if (!jobs.ok()) return withError(*jobs.error);  // retried; nothing created or deleted
    s.jobs = std::move(jobs.value);
    s.counts = countReplicatedJobs(s.params, s.jobs);
    s.status["replicatedJobsStatus"] = replicatedJobsStatusJson(s.counts);
    if (jobSetFinished(s.status)) return finishedCleanup(s);
    if (auto e = jobsetsync::deleteJobs(s, s.jobs.previous); !e.empty()) return withError(e);
    if (!s.jobs.failed.empty()) {
        executeFailurePolicy(s.status, s.params, s.jobs, now, s.log);
        return writeStatus(s);
    }
    if (!s.jobs.successful.empty() && executeSuccessPolicy(s.status, s.params, s.jobs, now)) return writeStatus(s);
    for (auto step : {jobsetsync::createHeadlessService, jobsetsync::createReplicatedJobs, jobsetsync::suspendOrResume})
        if (auto e = step(s); !e.empty()) return withError(e);
    return writeStatus(s);
}

Result reconcileOnce(Store& store, const ObjectKey& key, const controller::Clock& clock, const log::Logger& log) {
    auto read = store.get(key);
    if (read.failed()) return withError(readFailureMessage(key, read.message));
    if (read.notFound() || hasDeletionTimestamp(read.object)) return controller::ReconcileResult{};
    const json::object* js = &read.object;
    auto managedBy = stringAt(objectAt(&*js, "spec"), "managedBy");
    if (!managedBy.empty() && managedBy != kJobSetControllerName) return controller::ReconcileResult{};
    auto* status = objectAt(&*js, "status");
    SyncJobSet s{store, clock, log, *js, status ? *status : json::object(), {}, {}, {}, 0};
    if (!s.status.contains("restarts")) s.status["restarts"] = 0;
    s.restarts = intAt(&s.status, "restarts").value_or(0);
    std::string error;
    auto params = parseJobSet(*js, error);
    if (!params) return invalidSpec(s, error);
    s.params = std::move(*params);
    return sync(s);
}

}  // namespace

controller::ReconcileResult reconcileJobSet(Store& store, const ObjectKey& jobSet, const controller::Clock& clock,
                                            const log::Logger& log) {
    for (int attempt = 0; attempt < 3; ++attempt)
        if (auto r = reconcileOnce(store, jobSet, clock, log)) return *r;
    return retryLater();
}

}  // namespace trainer::core::executor
