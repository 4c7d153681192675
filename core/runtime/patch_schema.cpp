#include "core/runtime/patch_schema.hpp"

#include <algorithm>

namespace trainer::core {

namespace {

constexpr FieldShape kObj = FieldShape::Object;
constexpr FieldShape kList = FieldShape::List;

constexpr std::string_view kJobSetSpec = "jobset.x-k8s.io/v1alpha2.JobSetSpec";
constexpr std::string_view kReplicatedJob = "jobset.x-k8s.io/v1alpha2.ReplicatedJob";

// Struct tags of the types reachable from a JobSetSpec, read from the Go sources:
//   JobSet v0.12.0, its v1alpha2 API types (jobset_types.go; group jobset.x-k8s.io/v1alpha2)
//   https://github.com/kubernetes/api/blob/v0.36.3/batch/v1/types.go
//   https://github.com/kubernetes/api/blob/v0.36.3/core/v1/types.go
//   https://github.com/kubernetes/apimachinery/blob/v0.36.3/pkg/apis/meta/v1/types.go
// v0.32 has the same rows. Newer k8s.io/api (after v0.36) adds, still unused by upstream:
// batch/v1.JobSpec.scheduling -> JobSchedulingConfiguration.resourceClaims (merge, name) and
// core/v1.PodSpec.evictionResponders (merge, name).
// Every other field is untagged: affinity, securityContext, dnsConfig, resources, ... merge key by
// key; tolerations, command, args, envFrom, nodeSelectorTerms, readinessGates,
// successPolicy.targetReplicatedJobs, failurePolicy.rules, volumeClaimPolicies (and so the
// PersistentVolumeClaims inside it) are replaced as whole lists.
constexpr PatchField kJobSetSpecFields[] = {
    {kJobSetSpec, "replicatedJobs", kList, kReplicatedJob, "merge", "name"},
    {kReplicatedJob, "template", kObj, "batch/v1.JobTemplateSpec", "", ""},
    {kReplicatedJob, "dependsOn", kList, "", "merge", "name"},
    {"batch/v1.JobTemplateSpec", "metadata", kObj, "meta/v1.ObjectMeta", "", ""},
    {"batch/v1.JobTemplateSpec", "spec", kObj, "batch/v1.JobSpec", "", ""},
    {"batch/v1.JobSpec", "template", kObj, "core/v1.PodTemplateSpec", "", ""},
    {"core/v1.PodTemplateSpec", "metadata", kObj, "meta/v1.ObjectMeta", "", ""},
    {"core/v1.PodTemplateSpec", "spec", kObj, "core/v1.PodSpec", "", ""},
    {"core/v1.PodSpec", "volumes", kList, "core/v1.Volume", "merge,retainKeys", "name"},
    {"core/v1.PodSpec", "initContainers", kList, "core/v1.Container", "merge", "name"},
    {"core/v1.PodSpec", "containers", kList, "core/v1.Container", "merge", "name"},
    {"core/v1.PodSpec", "ephemeralContainers", kList, "core/v1.EphemeralContainer", "merge", "name"},
    {"core/v1.PodSpec", "imagePullSecrets", kList, "", "merge", "name"},
    {"core/v1.PodSpec", "hostAliases", kList, "", "merge", "ip"},
    {"core/v1.PodSpec", "topologySpreadConstraints", kList, "", "merge", "topologyKey"},
    {"core/v1.PodSpec", "schedulingGates", kList, "", "merge", "name"},
    {"core/v1.PodSpec", "resourceClaims", kList, "", "merge,retainKeys", "name"},
    {"core/v1.Container", "ports", kList, "", "merge", "containerPort"},
    {"core/v1.Container", "env", kList, "", "merge", "name"},
    {"core/v1.Container", "volumeMounts", kList, "", "merge", "mountPath"},
    {"core/v1.Container", "volumeDevices", kList, "", "merge", "devicePath"},
    // EphemeralContainer inlines EphemeralContainerCommon, which repeats Container's tags.
    {"core/v1.EphemeralContainer", "ports", kList, "", "merge", "containerPort"},
    {"core/v1.EphemeralContainer", "env", kList, "", "merge", "name"},
    {"core/v1.EphemeralContainer", "volumeMounts", kList, "", "merge", "mountPath"},
    {"core/v1.EphemeralContainer", "volumeDevices", kList, "", "merge", "devicePath"},
    // Volume inlines VolumeSource.
    {"core/v1.Volume", "ephemeral", kObj, "core/v1.EphemeralVolumeSource", "", ""},
    {"core/v1.EphemeralVolumeSource", "volumeClaimTemplate", kObj, "core/v1.PersistentVolumeClaimTemplate", "", ""},
    {"core/v1.PersistentVolumeClaimTemplate", "metadata", kObj, "meta/v1.ObjectMeta", "", ""},
    {"meta/v1.ObjectMeta", "ownerReferences", kList, "", "merge", "uid"},
    {"meta/v1.ObjectMeta", "finalizers", kList, "", "merge", ""},
};

constexpr std::string_view kResourcePatchMeta = "trainingruntime.resourceRequirementsPatchMeta";

constexpr PatchField kResourceFields[] = {
    {kResourcePatchMeta, "claims", kList, "", "merge", "name"},
};

}  // namespace

const PatchSchema& jobSetSpecPatchSchema() {
    static const PatchSchema schema{kJobSetSpec, kJobSetSpecFields};
    return schema;
}

const PatchSchema& resourceRequirementsPatchSchema() {
    static const PatchSchema schema{kResourcePatchMeta, kResourceFields};
    return schema;
}

PatchSchema patchSchemaAt(const PatchSchema& schema, std::string_view root) { return PatchSchema{root, schema.fields}; }

std::optional<PatchField> patchFieldOf(const PatchSchema& schema, std::string_view type, std::string_view field) {
    if (type.empty()) return std::nullopt;
    auto it = std::find_if(schema.fields.begin(), schema.fields.end(),
                           [&](const PatchField& f) { return f.type == type && f.field == field; });
    if (it == schema.fields.end()) return std::nullopt;
    return *it;
}

}  // namespace trainer::core
