// The JobSet controller's writes to its children: reconcileReplicatedJobs, createJobs,
// deleteJobs, createHeadlessSvcIfNecessary, suspendJobs and resumeJobsIfNecessary of
// pkg/controllers/jobset_controller.go (https://github.com/kubernetes-sigs/JobSet/tree/v0.9.1).
#include "core/executor/jobset_children.hpp"
#include "core/executor/jobset_sync.hpp"
#include "core/executor/workload_json.hpp"
#include "core/executor/workload_names.hpp"

#include <set>

namespace trainer::core::executor::jobsetsync {

namespace {

using namespace workload;

constexpr std::string_view kInOrderInProgressMessage = "in order startup policy is in progress";
constexpr std::string_view kInOrderCompletedMessage = "in order startup policy has completed";

DeleteOptions foreground() {
    DeleteOptions o;
    o.propagation = Propagation::Foreground;
    return o;
}

std::string join(std::string a, const std::string& b) { return b.empty() ? a : (a.empty() ? b : a + "; " + b); }

std::string createJobs(SyncJobSet& s, const ReplicatedJobSpec& rjob) {
    if (!s.jobs.previous.empty() && s.params.blockingRecreate) return "";
    std::set<std::string> existing;
    for (auto const* bucket : {&s.jobs.active, &s.jobs.successful, &s.jobs.failed, &s.jobs.previous})
        for (auto const& j : *bucket) existing.insert(stringAt(&metadataOf(j), "name"));
    std::string errors;
    for (int64_t i = 0; i < rjob.replicas; ++i) {
        auto job = constructChildJob(s.js, s.params, rjob, i, s.restarts);
        std::string name = stringAt(&metadataOf(job), "name");
        if (existing.contains(name)) continue;
        auto r = s.store.create(job);
        if (!r.ok()) errors = join(errors, "job \"" + name + "\" creation failed with error: " + r.message);
        else s.log.info("Created Job", {{"job", name}});
    }
    return errors;
}

void mergeMap(json::object& into, const json::object* from, std::string_view key) {
    auto* src = objectAt(from, key);
    if (!src) return;
    auto& dst = ensureObject(into, key);
    for (auto const& [k, v] : *src) dst[k] = v;
}

void mergeList(json::object& into, const json::object* from, std::string_view key) {
    auto* src = arrayAt(from, key);
    if (!src) return;
    auto& dst = into[key];
    if (!dst.is_array()) dst = json::array();
    for (auto const& v : *src)
        if (std::find(dst.get_array().begin(), dst.get_array().end(), v) == dst.get_array().end()) dst.get_array().push_back(v);
}

// resumeJob: clears status.startTime, merges the replicated job's pod template scheduling
// fields into the Job's, and unsuspends it.
std::string resumeJob(SyncJobSet& s, json::object job, const ReplicatedJobSpec& rjob) {
    if (auto* st = objectAt(&job, "status"); st && st->contains("startTime")) {
        ensureObject(job, "status").erase("startTime");
        auto r = s.store.updateStatus(job);
        if (!r.ok()) return "clearing startTime of Job " + keyOf(job).name + ": " + r.message;
        job = std::move(r.object);
    }
    auto* rjTemplate = objectAt(&rjob.jobSpec, "template");
    auto& tpl = ensureObject(ensureObject(job, "spec"), "template");
    auto& meta = ensureObject(tpl, "metadata");
    mergeMap(meta, objectAt(rjTemplate, "metadata"), "labels");
    mergeMap(meta, objectAt(rjTemplate, "metadata"), "annotations");
    auto& podSpec = ensureObject(tpl, "spec");
    mergeMap(podSpec, objectAt(rjTemplate, "spec"), "nodeSelector");
    mergeList(podSpec, objectAt(rjTemplate, "spec"), "tolerations");
    mergeList(podSpec, objectAt(rjTemplate, "spec"), "schedulingGates");
    ensureObject(job, "spec")["suspend"] = false;
    auto r = s.store.update(job);
    return r.ok() ? "" : "resuming Job " + keyOf(job).name + ": " + r.message;
}

std::string suspendJobs(SyncJobSet& s) {
    for (auto job : s.jobs.active) {
        if (boolAt(objectAt(&job, "spec"), "suspend").value_or(false)) continue;
        ensureObject(job, "spec")["suspend"] = true;
        auto r = s.store.update(job);
        if (!r.ok()) return "suspending Job " + keyOf(job).name + ": " + r.message;
    }
    setJobSetCondition(s.status, "Suspended", "True", "SuspendedJobs", lowerJobSetKind() + " is suspended", s.clock.now());
    return "";
}

std::string resumeJobs(SyncJobSet& s) {
    auto now = s.clock.now();
    for (auto const& rjob : s.params.replicatedJobs) {
        if (!dependenciesReached(rjob, s.params, s.counts)) continue;
        if (s.params.inOrderStartup && allReplicasStarted(rjob, s.counts)) continue;
        for (auto const& job : s.jobs.active) {
            if (labelOf(job, kReplicatedJobNameKey) != rjob.name) continue;
            if (!boolAt(objectAt(&job, "spec"), "suspend").value_or(false)) continue;
            if (auto e = resumeJob(s, job, rjob); !e.empty()) return e;
        }
        if (s.params.inOrderStartup) {
            setJobSetCondition(s.status, "StartupPolicyInProgress", "True", "InOrderStartupPolicyInProgress",
                               kInOrderInProgressMessage, now);
            return "";
        }
    }
    setJobSetCondition(s.status, "Suspended", "False", "ResumeJobs", lowerJobSetKind() + " is resumed", now);
    return "";
}

}  // namespace

std::string deleteJobs(SyncJobSet& s, const std::vector<json::object>& jobs) {
    std::string errors;
    for (auto const& job : jobs) {
        if (hasDeletionTimestamp(job)) continue;
        auto r = s.store.remove(keyOf(job), foreground());
        if (!r.ok() && r.status != StoreStatus::NotFound) errors = join(errors, "deleting Job " + keyOf(job).name + ": " + r.message);
        else if (r.ok()) s.log.info("Deleted Job", {{"job", keyOf(job).name}, {"restartAttempt", labelOf(job, kRestartsKey)}});
    }
    return errors;
}

std::string createHeadlessService(SyncJobSet& s) {
    if (!s.params.dnsHostnames) return "";
    ObjectKey key{"v1", std::string(kServiceKind), keyOf(s.js).ns, s.params.subdomain};
    auto existing = s.store.get(key);
    if (existing.failed()) return readFailureMessage(key, existing.message);
    if (existing.found()) return "";
    auto r = s.store.create(constructHeadlessService(s.js, s.params));
    if (r.ok() || r.status == StoreStatus::AlreadyExists) return "";
    return "creating headless Service " + s.params.subdomain + ": " + r.message;
}

std::string createReplicatedJobs(SyncJobSet& s) {
    bool inOrder = !s.params.suspend && s.params.inOrderStartup;
    auto now = s.clock.now();
    for (auto const& rjob : s.params.replicatedJobs) {
        if (!dependenciesReached(rjob, s.params, s.counts)) continue;
        if (inOrder && allReplicasStarted(rjob, s.counts)) continue;
        if (auto e = createJobs(s, rjob); !e.empty()) return e;
        if (inOrder) {
            setJobSetCondition(s.status, "StartupPolicyInProgress", "True", "InOrderStartupPolicyInProgress",
                               kInOrderInProgressMessage, now);
            return "";
        }
    }
    if (inOrder)
        setJobSetCondition(s.status, "StartupPolicyCompleted", "True", "InOrderStartupPolicyCompleted", kInOrderCompletedMessage, now);
    return "";
}

std::string suspendOrResume(SyncJobSet& s) { return s.params.suspend ? suspendJobs(s) : resumeJobs(s); }

}  // namespace trainer::core::executor::jobsetsync
