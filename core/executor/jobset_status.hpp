// How the JobSet controller reads its child Jobs and writes the JobSet's status: the child Job
// buckets of the current restart attempt, status.replicatedJobsStatus, the conditions (with
// upstream's updateCondition rules), and the success, failure and dependsOn policies
// (pkg/controllers/{jobset_controller,success_policy,failure_policy,depends_on,startup_policy}.go,
// https://github.com/kubernetes-sigs/JobSet/tree/v0.9.1).
#pragma once

#include "core/controller/clock.hpp"
#include "core/executor/jobset_spec.hpp"
#include "core/log/log.hpp"
#include "core/store/store.hpp"

#include <string>
#include <vector>

namespace trainer::core::executor {

inline constexpr std::string_view kReasonInvalidJobSet = "InvalidJobSet";

// The Jobs a JobSet controls. Jobs of an earlier restart attempt are `previous`; the others are
// bucketed by their Complete/Failed condition.
struct ChildJobs {
    std::vector<json::object> active;
    std::vector<json::object> successful;
    std::vector<json::object> failed;
    std::vector<json::object> previous;
};
// The JobSet's child Jobs by state; an error when listing them failed (never "no children",
// which would have the controller create them again).
ReadValue<ChildJobs> childJobsOf(const Store& store, const json::object& js, int64_t restarts, const log::Logger& log);

struct ReplicatedJobCounts {
    std::string name;
    int64_t ready = 0, succeeded = 0, failed = 0, active = 0, suspended = 0;
};
// calculateReplicatedJobStatuses, one entry per replicated job in spec order.
std::vector<ReplicatedJobCounts> countReplicatedJobs(const JobSetParams& p, const ChildJobs& jobs);
json::array replicatedJobsStatusJson(const std::vector<ReplicatedJobCounts>& counts);
const ReplicatedJobCounts* findCounts(const std::vector<ReplicatedJobCounts>& counts, const std::string& name);

// updateCondition: a condition of the same type changes only when its status flips; a new one is
// added only when True; StartupPolicyInProgress and StartupPolicyCompleted exclude each other.
bool setJobSetCondition(json::object& status, std::string_view type, std::string_view condStatus,
                        std::string_view reason, std::string_view message, controller::Clock::time_point now);
bool jobSetFinished(const json::object& status);
// Condition Failed=True and terminalState Failed.
void failJobSet(json::object& status, std::string_view reason, std::string_view message, controller::Clock::time_point now);

// executeFailurePolicy: Failed (FailedJobs without a policy, ReachedMaxRestarts, FailJobSet) or
// a restart (status.restarts + 1). Called with at least one failed Job.
void executeFailurePolicy(json::object& status, const JobSetParams& p, const ChildJobs& jobs,
                          controller::Clock::time_point now, const log::Logger& log);
// executeSuccessPolicy: Completed=True and terminalState Completed when enough Jobs succeeded.
bool executeSuccessPolicy(json::object& status, const JobSetParams& p, const ChildJobs& jobs,
                          controller::Clock::time_point now);
// dependencyReachedStatus: every dependsOn entry has reached its status.
bool dependenciesReached(const ReplicatedJobSpec& rjob, const JobSetParams& p, const std::vector<ReplicatedJobCounts>& counts);
// allReplicasStarted (InOrder startup): failed + ready + succeeded == replicas.
bool allReplicasStarted(const ReplicatedJobSpec& rjob, const std::vector<ReplicatedJobCounts>& counts);

}  // namespace trainer::core::executor
