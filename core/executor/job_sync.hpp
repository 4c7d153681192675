// Internal to the Job controller (job_controller.cpp, job_manage.cpp, job_tracking.cpp): the
// state of one sync (kubernetes job_controller.go syncJobCtx).
#pragma once

#include "core/controller/clock.hpp"
#include "core/executor/completed_indexes.hpp"
#include "core/executor/job_pods.hpp"
#include "core/executor/job_spec.hpp"
#include "core/log/log.hpp"
#include "core/store/store.hpp"

#include <optional>
#include <string>
#include <vector>

namespace trainer::core::executor::jobsync {

// A condition the sync decided on (FailureTarget, SuccessCriteriaMet, Failed, Complete).
struct Finished {
    std::string type;
    std::string reason;
    std::string message;
};

struct SyncJob {
    SyncJob(Store& st, const controller::Clock& c, const log::Logger& l, json::object j, json::object stat)
        : store(st), clock(c), log(l), job(std::move(j)), status(std::move(stat)) {}
    Store& store;
    const controller::Clock& clock;
    const log::Logger& log;
    json::object job;     // as last read or written
    json::object status;  // being built
    JobParams params;
    std::vector<JobPod> pods;
    std::vector<const JobPod*> active;
    int64_t activeCount = 0;
    int64_t ready = 0;
    int64_t terminating = 0;
    int64_t succeeded = 0;
    int64_t failed = 0;
    std::vector<std::string> uncountedSucceeded;
    std::vector<std::string> uncountedFailed;
    IndexSet prevSucceededIndexes;
    IndexSet succeededIndexes;
    std::optional<Finished> finished;
    std::string errors;

    void addError(const std::string& e) {
        if (!e.empty()) errors += (errors.empty() ? "" : "; ") + e;
    }
    bool validIndex(const JobPod& p) const { return p.index >= 0 && params.completions && p.index < *params.completions; }
};

// ensureJobConditionStatus: updates a condition of `type` whose status, reason or message differ
// (both times reset), appends a new one unless its status is False; true when something changed.
bool ensureJobCondition(json::object& status, std::string_view type, std::string_view condStatus, std::string_view reason,
                        std::string_view message, controller::Clock::time_point now);

// manageJob: deletes surplus pods or creates missing ones (all pods deleted while suspended).
void manageJob(SyncJob& s);
// trackJobStatusAndRemoveFinalizers: counts finished pods through uncountedTerminatedPods,
// removes their finalizers and adds the final condition. False on a write conflict.
bool trackAndFinish(SyncJob& s);
// Writes `s.status` when it differs from the stored one; false on conflict, errors in s.errors.
bool flushStatus(SyncJob& s);

}  // namespace trainer::core::executor::jobsync
