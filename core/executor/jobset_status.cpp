#include "core/executor/jobset_status.hpp"

#include "core/executor/workload_json.hpp"
#include "core/executor/workload_names.hpp"

#include <algorithm>
#include <charconv>

namespace trainer::core::executor {

namespace {

using namespace workload;

// pkg/constants/constants.go messages, which begin with the lower-case kind.
std::string failedJobsMessage() { return lowerJobSetKind() + " failed due to one or more job failures"; }
std::string reachedMaxRestartsMessage() { return lowerJobSetKind() + " failed due to reaching max number of restarts"; }
constexpr std::string_view kFailJobSetActionMessage = "applying FailJobSet failure policy action";

bool parseCount(const std::string& s, int64_t& out) {
    auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
    return !s.empty() && ec == std::errc() && p == s.data() + s.size();
}

const json::object* failedCondition(const json::object& job) {
    auto* c = conditionOf(objectAt(&job, "status"), "Failed");
    return c && stringAt(c, "status") == "True" ? c : nullptr;
}

std::string failureTime(const json::object& job) {
    auto* c = failedCondition(job);
    return c ? stringAt(c, "lastTransitionTime") : std::string();
}

// findFirstFailedJob among `jobs` (earliest Failed condition; the first listed on ties).
const json::object* firstFailed(const std::vector<const json::object*>& jobs) {
    const json::object* first = nullptr;
    for (auto const* j : jobs) {
        auto t = parseRfc3339(failureTime(*j));
        if (!t) continue;
        if (!first || *t < *parseRfc3339(failureTime(*first))) first = j;
    }
    return first ? first : (jobs.empty() ? nullptr : jobs.front());
}

std::string withFirstFailedJob(std::string_view msg, const json::object* job) {
    return std::string(msg) + " (first failed job: " + (job ? stringAt(&metadataOf(*job), "name") : "") + ")";
}

bool contains(const std::vector<std::string>& v, const std::string& s) { return std::find(v.begin(), v.end(), s) != v.end(); }

bool ruleApplies(const FailurePolicyRule& rule, const json::object& job) {
    auto* c = failedCondition(job);
    std::string reason = c ? stringAt(c, "reason") : "";
    if (!rule.onJobFailureReasons.empty() && !contains(rule.onJobFailureReasons, reason)) return false;
    std::string parent = labelOf(job, kReplicatedJobNameKey);
    if (parent.empty()) return false;
    return rule.targetReplicatedJobs.empty() || contains(rule.targetReplicatedJobs, parent);
}

bool exclusive(std::string_view a, std::string_view b) {
    return (a == "StartupPolicyInProgress" && b == "StartupPolicyCompleted") ||
           (a == "StartupPolicyCompleted" && b == "StartupPolicyInProgress");
}

}  // namespace

ReadValue<ChildJobs> childJobsOf(const Store& store, const json::object& js, int64_t restarts, const log::Logger& log) {
    ChildJobs out;
    std::string ns = stringAt(&metadataOf(js), "namespace");
    auto jobs = store.list(std::string(kJobApiVersion), std::string(kJobKind), ns);
    if (!jobs.ok()) return ReadValue<ChildJobs>::failure("listing the Jobs in " + ns + ": " + *jobs.error);
    for (auto& job : jobs.value) {
        if (!controlledBy(job, kJobSetKind, uidOf(js))) continue;
        int64_t attempt = 0;
        if (!parseCount(labelOf(job, kRestartsKey), attempt)) {
            log.error("Invalid restart-attempt label on child Job; deleting it",
                      {{"job", stringAt(&metadataOf(job), "name")}, {"label", std::string(kRestartsKey)}});
            out.previous.push_back(std::move(job));
        } else if (attempt < restarts) {
            out.previous.push_back(std::move(job));
        } else if (conditionTrue(objectAt(&job, "status"), "Failed")) {
            out.failed.push_back(std::move(job));
        } else if (conditionTrue(objectAt(&job, "status"), "Complete")) {
            out.successful.push_back(std::move(job));
        } else {
            out.active.push_back(std::move(job));
        }
    }
    return ReadValue<ChildJobs>::of(std::move(out));
}

std::vector<ReplicatedJobCounts> countReplicatedJobs(const JobSetParams& p, const ChildJobs& jobs) {
    std::vector<ReplicatedJobCounts> out;
    for (auto const& rj : p.replicatedJobs) out.push_back({rj.name});
    auto entry = [&](const json::object& job) -> ReplicatedJobCounts* {
        std::string name = labelOf(job, kReplicatedJobNameKey);
        for (auto& c : out)
            if (c.name == name) return &c;
        return nullptr;
    };
    for (auto const& job : jobs.active) {
        auto* c = entry(job);
        if (!c) continue;
        auto* spec = objectAt(&job, "spec");
        auto* status = objectAt(&job, "status");
        int64_t pods = intAt(spec, "parallelism").value_or(1);
        if (auto completions = intAt(spec, "completions"); completions && *completions < pods) pods = *completions;
        if (intAt(status, "succeeded").value_or(0) + intAt(status, "ready").value_or(0) >= pods) ++c->ready;
        if (intAt(status, "active").value_or(0) > 0) ++c->active;
        if (boolAt(spec, "suspend").value_or(false)) ++c->suspended;
    }
    for (auto const& job : jobs.successful)
        if (auto* c = entry(job)) ++c->succeeded;
    for (auto const& job : jobs.failed)
        if (auto* c = entry(job)) ++c->failed;
    return out;
}

json::array replicatedJobsStatusJson(const std::vector<ReplicatedJobCounts>& counts) {
    json::array out;
    for (auto const& c : counts)
        out.push_back(json::object{{"name", c.name},
                                   {"ready", c.ready},
                                   {"succeeded", c.succeeded},
                                   {"failed", c.failed},
                                   {"active", c.active},
                                   {"suspended", c.suspended}});
    return out;
}

const ReplicatedJobCounts* findCounts(const std::vector<ReplicatedJobCounts>& counts, const std::string& name) {
    for (auto const& c : counts)
        if (c.name == name) return &c;
    return nullptr;
}

bool setJobSetCondition(json::object& status, std::string_view type, std::string_view condStatus,
                        std::string_view reason, std::string_view message, controller::Clock::time_point now) {
    auto& conds = status["conditions"];
    if (!conds.is_array()) conds = json::array();
    json::object fresh{{"type", type}, {"status", condStatus}, {"lastTransitionTime", formatRfc3339(now)},
                       {"reason", reason}, {"message", message}};
    bool found = false, changed = false;
    for (auto& c : conds.get_array()) {
        if (!c.is_object()) continue;
        auto& o = c.get_object();
        std::string curType = stringAt(&o, "type"), curStatus = stringAt(&o, "status");
        if (curType == type) {
            found = true;
            if (curStatus != condStatus) c = fresh, changed = true;
        } else if (exclusive(curType, type) && curStatus == "True" && condStatus == "True") {
            o["status"] = "False";
            changed = true;
        }
    }
    if (!found && condStatus == "True") conds.get_array().push_back(std::move(fresh)), changed = true;
    if (conds.get_array().empty()) status.erase("conditions");
    return changed;
}

bool jobSetFinished(const json::object& status) {
    return conditionTrue(&status, "Completed") || conditionTrue(&status, "Failed");
}

void failJobSet(json::object& status, std::string_view reason, std::string_view message, controller::Clock::time_point now) {
    setJobSetCondition(status, "Failed", "True", reason, message, now);
    status["terminalState"] = "Failed";
}

void executeFailurePolicy(json::object& status, const JobSetParams& p, const ChildJobs& jobs,
                          controller::Clock::time_point now, const log::Logger& log) {
    std::vector<const json::object*> failed;
    for (auto const& j : jobs.failed) failed.push_back(&j);
    if (!p.hasFailurePolicy) return failJobSet(status, "FailedJobs", withFirstFailedJob(failedJobsMessage(), firstFailed(failed)), now);
    std::string action = "RestartJobSet";
    const json::object* culprit = nullptr;
    for (auto const& rule : p.failureRules) {
        std::vector<const json::object*> matching;
        for (auto const* j : failed)
            if (ruleApplies(rule, *j)) matching.push_back(j);
        if (matching.empty()) continue;
        action = rule.action, culprit = firstFailed(matching);
        break;
    }
    if (!culprit) culprit = firstFailed(failed);
    int64_t counted = intAt(&status, "restartsCountTowardsMax").value_or(0);
    if (action == "FailJobSet")
        return failJobSet(status, "FailJobSetFailurePolicyAction", withFirstFailedJob(kFailJobSetActionMessage, culprit), now);
    if (action == "RestartJobSet" && counted >= p.maxRestarts)
        return failJobSet(status, "ReachedMaxRestarts", withFirstFailedJob(reachedMaxRestartsMessage(), culprit), now);
    if (action != "RestartJobSet" && action != "RestartJobSetAndIgnoreMaxRestarts") {
        log.error("Unknown failure policy action; failing the JobSet", {{"action", action}});
        return failJobSet(status, "FailedJobs", withFirstFailedJob(failedJobsMessage(), culprit), now);
    }
    status["restarts"] = intAt(&status, "restarts").value_or(0) + 1;
    if (action == "RestartJobSet") status["restartsCountTowardsMax"] = counted + 1;
    log.info("Restarting JobSet", {{"restarts", intAt(&status, "restarts").value_or(0)}, {"action", action}});
}

bool executeSuccessPolicy(json::object& status, const JobSetParams& p, const ChildJobs& jobs, controller::Clock::time_point now) {
    auto targeted = [&](const std::string& rjob) { return p.successTargets.empty() || contains(p.successTargets, rjob); };
    int64_t matching = 0;
    for (auto const& j : jobs.successful)
        if (targeted(labelOf(j, kReplicatedJobNameKey))) ++matching;
    int64_t expected = 0;
    if (p.successOperator == "Any") expected = 1;
    else
        for (auto const& rj : p.replicatedJobs)
            if (targeted(rj.name)) expected += rj.replicas;
    if (matching < expected) return false;
    setJobSetCondition(status, "Completed", "True", "AllJobsCompleted", lowerJobSetKind() + " completed successfully", now);
    status["terminalState"] = "Completed";
    return true;
}

bool dependenciesReached(const ReplicatedJobSpec& rjob, const JobSetParams& p, const std::vector<ReplicatedJobCounts>& counts) {
    for (auto const& dep : rjob.dependsOn) {
        auto* c = findCounts(counts, dep.name);
        auto* spec = p.find(dep.name);
        if (!c || !spec) return false;
        if (dep.status == "Complete" && spec->replicas != c->succeeded) return false;
        if (dep.status == "Ready" && spec->replicas != c->failed + c->ready + c->succeeded) return false;
    }
    return true;
}

bool allReplicasStarted(const ReplicatedJobSpec& rjob, const std::vector<ReplicatedJobCounts>& counts) {
    auto* c = findCounts(counts, rjob.name);
    return c && rjob.replicas == c->failed + c->ready + c->succeeded;
}

}  // namespace trainer::core::executor
