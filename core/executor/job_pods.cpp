#include "core/executor/job_pods.hpp"

#include "core/executor/workload_json.hpp"
#include "core/executor/workload_names.hpp"

#include <charconv>

namespace trainer::core::executor {

namespace {

using namespace workload;

int64_t completionIndexOf(const json::object& pod) {
    std::string v = annotationOf(pod, kCompletionIndexKey);
    int64_t ix = -1;
    auto [p, ec] = std::from_chars(v.data(), v.data() + v.size(), ix);
    if (v.empty() || ec != std::errc() || p != v.data() + v.size() || ix < 0) return -1;
    return ix;
}

int64_t restartsOf(const json::object* status) {
    int64_t n = 0;
    for (auto key : {"initContainerStatuses", "containerStatuses"})
        if (auto* a = arrayAt(status, key))
            for (auto const& c : *a)
                if (c.is_object()) n += intAt(&c.get_object(), "restartCount").value_or(0);
    return n;
}

void setString(json::object& o, std::string_view key, std::string_view value) { o[key] = value; }

// Adds JOB_COMPLETION_INDEX (from the completion index label, PodIndexLabel being GA in v1.32)
// to every container and init container that does not set it.
void addCompletionIndexEnv(json::object& podSpec) {
    for (auto key : {"initContainers", "containers"}) {
        auto* list = podSpec.if_contains(key);
        if (!list || !list->is_array()) continue;
        for (auto& c : list->get_array()) {
            if (!c.is_object()) continue;
            auto& env = c.get_object()["env"];
            if (!env.is_array()) env = json::array();
            bool present = false;
            for (auto const& e : env.get_array())
                present = present || (e.is_object() && stringAt(&e.get_object(), "name") == kCompletionIndexEnv);
            if (present) continue;
            std::string path = "metadata.labels['" + std::string(kCompletionIndexKey) + "']";
            env.get_array().push_back(json::object{
                {"name", kCompletionIndexEnv}, {"valueFrom", json::object{{"fieldRef", json::object{{"fieldPath", path}}}}}});
        }
    }
}

}  // namespace

JobPod toJobPod(const json::object& pod) {
    JobPod p;
    p.object = pod;
    p.key = keyOf(pod);
    p.uid = uidOf(pod);
    auto* status = objectAt(&pod, "status");
    p.phase = stringAt(status, "phase");
    auto* ready = conditionOf(status, "Ready");
    p.ready = ready && stringAt(ready, "status") == "True";
    p.deleted = hasDeletionTimestamp(pod);
    p.tracked = hasFinalizer(pod, kJobTrackingFinalizer);
    p.index = completionIndexOf(pod);
    p.restartCount = restartsOf(status);
    return p;
}

ReadValue<std::vector<JobPod>> podsOfJob(const Store& store, const std::string& ns, const std::string& jobUid) {
    auto pods = store.list(std::string(kPodApiVersion), std::string(kPodKind), ns);
    if (!pods.ok()) return ReadValue<std::vector<JobPod>>::failure("listing the pods in " + ns + ": " + *pods.error);
    std::vector<JobPod> out;
    for (auto const& pod : pods.value)
        if (controlledBy(pod, kJobKind, jobUid)) out.push_back(toJobPod(pod));
    return ReadValue<std::vector<JobPod>>::of(std::move(out));
}

bool isTerminal(const JobPod& p) { return p.phase == "Succeeded" || p.phase == "Failed"; }
bool isActive(const JobPod& p) { return !isTerminal(p) && !p.deleted; }
bool isTerminating(const JobPod& p) { return p.deleted && !isTerminal(p); }

bool isPodFailed(const JobPod& p, bool onlyReplaceFailedPods) {
    if (p.phase == "Failed") return true;
    if (onlyReplaceFailedPods) return false;
    return p.deleted && p.phase != "Succeeded";
}

json::object newJobPod(const json::object& job, const JobParams& params, int64_t index) {
    json::object tpl = params.podTemplate;
    json::object meta = objectAt(&tpl, "metadata") ? *objectAt(&tpl, "metadata") : json::object();
    json::object spec = objectAt(&tpl, "spec") ? *objectAt(&tpl, "spec") : json::object();
    auto const& jobMeta = metadataOf(job);
    std::string jobName = stringAt(&jobMeta, "name");
    std::string jobUid = uidOf(job);
    for (auto k : {"name", "uid", "resourceVersion", "creationTimestamp", "ownerReferences"}) meta.erase(k);
    meta["namespace"] = stringAt(&jobMeta, "namespace");
    // The API server adds these to a Job's template (pkg/registry/batch/job/strategy.go).
    setString(ensureObject(meta, "labels"), kControllerUidLabel, jobUid);
    setString(ensureObject(meta, "labels"), kJobNameLabel, jobName);
    setString(ensureObject(meta, "labels"), kLegacyControllerUidLabel, jobUid);
    setString(ensureObject(meta, "labels"), kLegacyJobNameLabel, jobName);
    if (index >= 0) {
        setString(ensureObject(meta, "annotations"), kCompletionIndexKey, std::to_string(index));
        setString(ensureObject(meta, "labels"), kCompletionIndexKey, std::to_string(index));
        spec["hostname"] = indexedPodHostname(jobName, index);
        addCompletionIndexEnv(spec);
        meta["generateName"] = indexedPodGenerateName(jobName, index);
    } else {
        meta["generateName"] = podGenerateName(jobName);
    }
    json::array finalizers;
    for (auto const& f : stringsAt(&meta, "finalizers"))
        if (f != kJobTrackingFinalizer) finalizers.emplace_back(f);
    finalizers.emplace_back(kJobTrackingFinalizer);
    meta["finalizers"] = std::move(finalizers);
    meta["ownerReferences"] = json::array{controllerRefTo(job)};
    return json::object{{"apiVersion", kPodApiVersion}, {"kind", kPodKind}, {"metadata", std::move(meta)}, {"spec", std::move(spec)}};
}

std::string deletePod(Store& store, const ObjectKey& key) {
    auto r = store.remove(key);
    if (r.ok() || r.status == StoreStatus::NotFound) return "";
    return "deleting " + key.display() + ": " + r.message;
}

std::string removeTrackingFinalizer(Store& store, const ObjectKey& key) {
    for (int attempt = 0; attempt < 5; ++attempt) {
        auto read = store.get(key);
        if (read.failed()) return "removing finalizer of " + key.display() + ": " + read.message;
        if (read.notFound() || !hasFinalizer(read.object, kJobTrackingFinalizer)) return "";
        auto* pod = &read.object;
        auto& meta = ensureObject(*pod, "metadata");
        json::array kept;
        for (auto const& f : stringsAt(&meta, "finalizers"))
            if (f != kJobTrackingFinalizer) kept.emplace_back(f);
        meta["finalizers"] = std::move(kept);
        auto r = store.update(*pod);
        if (r.ok() || r.status == StoreStatus::NotFound) return "";
        if (r.status != StoreStatus::Conflict) return "removing finalizer of " + key.display() + ": " + r.message;
    }
    return "removing finalizer of " + key.display() + ": still conflicting after 5 attempts";
}

std::string releaseStalePods(Store& store, const std::string& ns, const std::string& jobName, const std::string& keepUid) {
    std::string errors;
    auto pods = store.list(std::string(kPodApiVersion), std::string(kPodKind), ns);
    if (!pods.ok()) return "listing the pods in " + ns + ": " + *pods.error;
    for (auto const& pod : pods.value) {
        auto* ref = controllerRefOf(pod);
        if (!ref || stringAt(ref, "kind") != kJobKind || stringAt(ref, "name") != jobName) continue;
        if (stringAt(ref, "uid") == keepUid || !hasFinalizer(pod, kJobTrackingFinalizer)) continue;
        if (auto e = removeTrackingFinalizer(store, keyOf(pod)); !e.empty()) errors += (errors.empty() ? "" : "; ") + e;
    }
    return errors;
}

}  // namespace trainer::core::executor
