// Internal to the JobSet controller (jobset_controller.cpp, jobset_children_sync.cpp): the state
// of one reconcile.
#pragma once

#include "core/controller/clock.hpp"
#include "core/executor/jobset_spec.hpp"
#include "core/executor/jobset_status.hpp"
#include "core/log/log.hpp"
#include "core/store/store.hpp"

#include <string>
#include <vector>

namespace trainer::core::executor::jobsetsync {

struct SyncJobSet {
    Store& store;
    const controller::Clock& clock;
    const log::Logger& log;
    json::object js;
    json::object status;  // being built
    JobSetParams params;
    ChildJobs jobs;
    std::vector<ReplicatedJobCounts> counts;
    int64_t restarts = 0;
};

// Deletes `jobs` (Foreground, as upstream's deleteJobs), skipping those already being deleted.
std::string deleteJobs(SyncJobSet& s, const std::vector<json::object>& jobs);
// createHeadlessSvcIfNecessary.
std::string createHeadlessService(SyncJobSet& s);
// reconcileReplicatedJobs: creates the missing Jobs whose dependencies (or InOrder turn) allow.
std::string createReplicatedJobs(SyncJobSet& s);
// suspendJobs / resumeJobsIfNecessary.
std::string suspendOrResume(SyncJobSet& s);

}  // namespace trainer::core::executor::jobsetsync
