#include "core/executor/jobset_children.hpp"

#include "core/executor/workload_json.hpp"
#include "core/executor/workload_names.hpp"

namespace trainer::core::executor {

namespace {

using namespace workload;

int64_t globalReplicas(const JobSetParams& p) {
    int64_t n = 0;
    for (auto const& rj : p.replicatedJobs) n += rj.replicas;
    return n;
}

// The index of `jobIndex` across all replicated jobs (or those of `group`), in spec order.
int64_t globalIndex(const JobSetParams& p, const ReplicatedJobSpec& rjob, int64_t jobIndex, const std::string* group) {
    int64_t before = 0;
    for (auto const& rj : p.replicatedJobs) {
        if (group && rj.groupName != *group) continue;
        if (rj.name == rjob.name) return before + jobIndex;
        before += rj.replicas;
    }
    return before + jobIndex;
}

int64_t groupReplicas(const JobSetParams& p, const std::string& group) {
    int64_t n = 0;
    for (auto const& rj : p.replicatedJobs)
        if (rj.groupName == group) n += rj.replicas;
    return n;
}

// labelAndAnnotateObject: the same keys as labels and annotations on `meta`.
void labelAndAnnotate(json::object& meta, const json::object& js, const JobSetParams& p, const ReplicatedJobSpec& rjob,
                      int64_t jobIndex, int64_t restarts) {
    auto const& jsMeta = metadataOf(js);
    std::string jsName = stringAt(&jsMeta, "name");
    std::string jobName = childJobName(jsName, rjob.name, jobIndex);
    std::vector<std::pair<std::string_view, std::string>> keys = {
        {kJobSetNameKey, jsName},
        {kJobSetUidKey, uidOf(js)},
        {kReplicatedJobNameKey, rjob.name},
        {kRestartsKey, std::to_string(restarts)},
        {kReplicatedJobReplicasKey, std::to_string(rjob.replicas)},
        {kGlobalReplicasKey, std::to_string(globalReplicas(p))},
        {kJobIndexKey, std::to_string(jobIndex)},
        {kJobKeyKey, jobHashKey(stringAt(&jsMeta, "namespace"), jobName)},
        {kJobGlobalIndexKey, std::to_string(globalIndex(p, rjob, jobIndex, nullptr))},
        {kGroupNameKey, rjob.groupName},
        {kGroupReplicasKey, std::to_string(groupReplicas(p, rjob.groupName))},
        {kJobGroupIndexKey, std::to_string(globalIndex(p, rjob, jobIndex, &rjob.groupName))},
    };
    if (!p.coordinatorEndpoint.empty()) keys.emplace_back(kCoordinatorKey, p.coordinatorEndpoint);
    ensureObject(meta, "labels");
    ensureObject(meta, "annotations");  // both exist now: the references below stay valid
    auto& labels = meta["labels"].get_object();
    auto& annotations = meta["annotations"].get_object();
    for (auto const& [k, v] : keys) {
        labels[k] = v;
        annotations[k] = v;
    }
    // Exclusive placement is an annotation only, from the JobSet or the replicated job template.
    if (auto v = annotationOf(js, kExclusiveKey); !v.empty()) annotations[kExclusiveKey] = v;
    if (auto v = stringAt(objectAt(&rjob.templateMetadata, "annotations"), kExclusiveKey); !v.empty())
        annotations[kExclusiveKey] = v;
}

}  // namespace

json::object constructChildJob(const json::object& js, const JobSetParams& p, const ReplicatedJobSpec& rjob,
                               int64_t jobIndex, int64_t restarts) {
    auto const& jsMeta = metadataOf(js);
    json::object meta;
    meta["name"] = childJobName(stringAt(&jsMeta, "name"), rjob.name, jobIndex);
    meta["namespace"] = stringAt(&jsMeta, "namespace");
    if (auto* l = objectAt(&rjob.templateMetadata, "labels")) meta["labels"] = *l;
    if (auto* a = objectAt(&rjob.templateMetadata, "annotations")) meta["annotations"] = *a;
    labelAndAnnotate(meta, js, p, rjob, jobIndex, restarts);
    meta["ownerReferences"] = json::array{controllerRefTo(js)};
    json::object spec = rjob.jobSpec;
    auto& podMeta = ensureObject(ensureObject(spec, "template"), "metadata");
    labelAndAnnotate(podMeta, js, p, rjob, jobIndex, restarts);
    if (p.dnsHostnames) ensureObject(ensureObject(spec, "template"), "spec")["subdomain"] = p.subdomain;
    spec["suspend"] = p.suspend;
    return json::object{{"apiVersion", kJobApiVersion}, {"kind", kJobKind}, {"metadata", std::move(meta)}, {"spec", std::move(spec)}};
}

json::object constructHeadlessService(const json::object& js, const JobSetParams& p) {
    auto const& jsMeta = metadataOf(js);
    json::object meta{{"name", p.subdomain},
                      {"namespace", stringAt(&jsMeta, "namespace")},
                      {"ownerReferences", json::array{controllerRefTo(js)}}};
    json::object spec{{"clusterIP", "None"},
                      {"selector", json::object{{kJobSetNameKey, stringAt(&jsMeta, "name")}}},
                      {"publishNotReadyAddresses", p.publishNotReadyAddresses}};
    return json::object{{"apiVersion", "v1"}, {"kind", kServiceKind}, {"metadata", std::move(meta)}, {"spec", std::move(spec)}};
}

}  // namespace trainer::core::executor
