// The strategic-merge struct tags as data, and their lookup; the contract is in
// strategic_merge_tags.hpp.
#include "core/apiserver/strategic_merge_tags.hpp"

#include <algorithm>
#include <iterator>
#include <utility>

namespace trainer::core::apiserver::patching {

namespace {

// patchStrategy / patchMergeKey struct tags of k8s.io/api and k8s.io/apimachinery meta/v1 at v0.32
// (https://github.com/kubernetes/api/tree/v0.32.13), for the package-qualified Go struct types that
// reach a tagged field from a kind; inline structs are flattened. Fields not listed lead to no
// tag, and a kind's "metadata" is meta/v1.ObjectMeta. `child` is the struct type the field holds
// (the element type of a merged list) when a tagged field lies below it, else "". Sorted by
// (type, field).
struct SmpField {
    std::string_view type;
    std::string_view field;
    std::string_view child;
    std::string_view strategy;
    std::string_view mergeKey;
};

constexpr SmpField kSmpFields[] = {
    {"admissionregistration/v1.MutatingWebhook", "matchConditions", "", "merge", "name"},
    {"admissionregistration/v1.MutatingWebhookConfiguration", "webhooks", "admissionregistration/v1.MutatingWebhook", "merge", "name"},
    {"admissionregistration/v1.ValidatingAdmissionPolicy", "spec", "admissionregistration/v1.ValidatingAdmissionPolicySpec", "", ""},
    {"admissionregistration/v1.ValidatingAdmissionPolicySpec", "matchConditions", "", "merge", "name"},
    {"admissionregistration/v1.ValidatingAdmissionPolicySpec", "variables", "", "merge", "name"},
    {"admissionregistration/v1.ValidatingWebhook", "matchConditions", "", "merge", "name"},
    {"admissionregistration/v1.ValidatingWebhookConfiguration", "webhooks", "admissionregistration/v1.ValidatingWebhook", "merge", "name"},
    {"admissionregistration/v1alpha1.MutatingAdmissionPolicy", "spec", "admissionregistration/v1alpha1.MutatingAdmissionPolicySpec", "", ""},
    {"admissionregistration/v1alpha1.MutatingAdmissionPolicySpec", "matchConditions", "", "merge", "name"},
    {"admissionregistration/v1alpha1.ValidatingAdmissionPolicy", "spec", "admissionregistration/v1alpha1.ValidatingAdmissionPolicySpec", "", ""},
    {"admissionregistration/v1alpha1.ValidatingAdmissionPolicySpec", "matchConditions", "", "merge", "name"},
    {"admissionregistration/v1alpha1.ValidatingAdmissionPolicySpec", "variables", "", "merge", "name"},
    {"admissionregistration/v1beta1.MutatingWebhook", "matchConditions", "", "merge", "name"},
    {"admissionregistration/v1beta1.MutatingWebhookConfiguration", "webhooks", "admissionregistration/v1beta1.MutatingWebhook", "merge", "name"},
    {"admissionregistration/v1beta1.ValidatingAdmissionPolicy", "spec", "admissionregistration/v1beta1.ValidatingAdmissionPolicySpec", "", ""},
    {"admissionregistration/v1beta1.ValidatingAdmissionPolicySpec", "matchConditions", "", "merge", "name"},
    {"admissionregistration/v1beta1.ValidatingAdmissionPolicySpec", "variables", "", "merge", "name"},
    {"admissionregistration/v1beta1.ValidatingWebhook", "matchConditions", "", "merge", "name"},
    {"admissionregistration/v1beta1.ValidatingWebhookConfiguration", "webhooks", "admissionregistration/v1beta1.ValidatingWebhook", "merge", "name"},
    {"apps/v1.DaemonSet", "spec", "apps/v1.DaemonSetSpec", "", ""},
    {"apps/v1.DaemonSet", "status", "apps/v1.DaemonSetStatus", "", ""},
    {"apps/v1.DaemonSetSpec", "template", "core/v1.PodTemplateSpec", "", ""},
    {"apps/v1.DaemonSetStatus", "conditions", "", "merge", "type"},
    {"apps/v1.Deployment", "spec", "apps/v1.DeploymentSpec", "", ""},
    {"apps/v1.Deployment", "status", "apps/v1.DeploymentStatus", "", ""},
    {"apps/v1.DeploymentSpec", "strategy", "", "retainKeys", ""},
    {"apps/v1.DeploymentSpec", "template", "core/v1.PodTemplateSpec", "", ""},
    {"apps/v1.DeploymentStatus", "conditions", "", "merge", "type"},
    {"apps/v1.ReplicaSet", "spec", "apps/v1.ReplicaSetSpec", "", ""},
    {"apps/v1.ReplicaSet", "status", "apps/v1.ReplicaSetStatus", "", ""},
    {"apps/v1.ReplicaSetSpec", "template", "core/v1.PodTemplateSpec", "", ""},
    {"apps/v1.ReplicaSetStatus", "conditions", "", "merge", "type"},
    {"apps/v1.StatefulSet", "spec", "apps/v1.StatefulSetSpec", "", ""},
    {"apps/v1.StatefulSet", "status", "apps/v1.StatefulSetStatus", "", ""},
    {"apps/v1.StatefulSetSpec", "template", "core/v1.PodTemplateSpec", "", ""},
    {"apps/v1.StatefulSetStatus", "conditions", "", "merge", "type"},
    {"apps/v1beta1.Deployment", "spec", "apps/v1beta1.DeploymentSpec", "", ""},
    {"apps/v1beta1.Deployment", "status", "apps/v1beta1.DeploymentStatus", "", ""},
    {"apps/v1beta1.DeploymentSpec", "strategy", "", "retainKeys", ""},
    {"apps/v1beta1.DeploymentSpec", "template", "core/v1.PodTemplateSpec", "", ""},
    {"apps/v1beta1.DeploymentStatus", "conditions", "", "merge", "type"},
    {"apps/v1beta1.StatefulSet", "spec", "apps/v1beta1.StatefulSetSpec", "", ""},
    {"apps/v1beta1.StatefulSet", "status", "apps/v1beta1.StatefulSetStatus", "", ""},
    {"apps/v1beta1.StatefulSetSpec", "template", "core/v1.PodTemplateSpec", "", ""},
    {"apps/v1beta1.StatefulSetStatus", "conditions", "", "merge", "type"},
    {"apps/v1beta2.DaemonSet", "spec", "apps/v1beta2.DaemonSetSpec", "", ""},
    {"apps/v1beta2.DaemonSet", "status", "apps/v1beta2.DaemonSetStatus", "", ""},
    {"apps/v1beta2.DaemonSetSpec", "template", "core/v1.PodTemplateSpec", "", ""},
    {"apps/v1beta2.DaemonSetStatus", "conditions", "", "merge", "type"},
    {"apps/v1beta2.Deployment", "spec", "apps/v1beta2.DeploymentSpec", "", ""},
    {"apps/v1beta2.Deployment", "status", "apps/v1beta2.DeploymentStatus", "", ""},
    {"apps/v1beta2.DeploymentSpec", "strategy", "", "retainKeys", ""},
    {"apps/v1beta2.DeploymentSpec", "template", "core/v1.PodTemplateSpec", "", ""},
    {"apps/v1beta2.DeploymentStatus", "conditions", "", "merge", "type"},
    {"apps/v1beta2.ReplicaSet", "spec", "apps/v1beta2.ReplicaSetSpec", "", ""},
    {"apps/v1beta2.ReplicaSet", "status", "apps/v1beta2.ReplicaSetStatus", "", ""},
    {"apps/v1beta2.ReplicaSetSpec", "template", "core/v1.PodTemplateSpec", "", ""},
    {"apps/v1beta2.ReplicaSetStatus", "conditions", "", "merge", "type"},
    {"apps/v1beta2.StatefulSet", "spec", "apps/v1beta2.StatefulSetSpec", "", ""},
    {"apps/v1beta2.StatefulSet", "status", "apps/v1beta2.StatefulSetStatus", "", ""},
    {"apps/v1beta2.StatefulSetSpec", "template", "core/v1.PodTemplateSpec", "", ""},
    {"apps/v1beta2.StatefulSetStatus", "conditions", "", "merge", "type"},
    {"autoscaling/v2.HorizontalPodAutoscaler", "status", "autoscaling/v2.HorizontalPodAutoscalerStatus", "", ""},
    {"autoscaling/v2.HorizontalPodAutoscalerStatus", "conditions", "", "merge", "type"},
    {"batch/v1.CronJob", "spec", "batch/v1.CronJobSpec", "", ""},
    {"batch/v1.CronJobSpec", "jobTemplate", "batch/v1.JobTemplateSpec", "", ""},
    {"batch/v1.Job", "spec", "batch/v1.JobSpec", "", ""},
    {"batch/v1.Job", "status", "batch/v1.JobStatus", "", ""},
    {"batch/v1.JobSpec", "template", "core/v1.PodTemplateSpec", "", ""},
    {"batch/v1.JobStatus", "conditions", "", "merge", "type"},
    {"batch/v1.JobTemplateSpec", "metadata", "meta/v1.ObjectMeta", "", ""},
    {"batch/v1.JobTemplateSpec", "spec", "batch/v1.JobSpec", "", ""},
    {"batch/v1beta1.CronJob", "spec", "batch/v1beta1.CronJobSpec", "", ""},
    {"batch/v1beta1.CronJobSpec", "jobTemplate", "batch/v1beta1.JobTemplateSpec", "", ""},
    {"batch/v1beta1.JobTemplateSpec", "metadata", "meta/v1.ObjectMeta", "", ""},
    {"batch/v1beta1.JobTemplateSpec", "spec", "batch/v1.JobSpec", "", ""},
    {"core/v1.ComponentStatus", "conditions", "", "merge", "type"},
    {"core/v1.Container", "env", "", "merge", "name"},
    {"core/v1.Container", "ports", "", "merge", "containerPort"},
    {"core/v1.Container", "volumeDevices", "", "merge", "devicePath"},
    {"core/v1.Container", "volumeMounts", "", "merge", "mountPath"},
    {"core/v1.EphemeralContainer", "env", "", "merge", "name"},
    {"core/v1.EphemeralContainer", "ports", "", "merge", "containerPort"},
    {"core/v1.EphemeralContainer", "volumeDevices", "", "merge", "devicePath"},
    {"core/v1.EphemeralContainer", "volumeMounts", "", "merge", "mountPath"},
    {"core/v1.EphemeralVolumeSource", "volumeClaimTemplate", "core/v1.PersistentVolumeClaimTemplate", "", ""},
    {"core/v1.Namespace", "status", "core/v1.NamespaceStatus", "", ""},
    {"core/v1.NamespaceStatus", "conditions", "", "merge", "type"},
    {"core/v1.Node", "spec", "core/v1.NodeSpec", "", ""},
    {"core/v1.Node", "status", "core/v1.NodeStatus", "", ""},
    {"core/v1.NodeSpec", "podCIDRs", "", "merge", ""},
    {"core/v1.NodeStatus", "addresses", "", "merge", "type"},
    {"core/v1.NodeStatus", "conditions", "", "merge", "type"},
    {"core/v1.PersistentVolumeClaim", "status", "core/v1.PersistentVolumeClaimStatus", "", ""},
    {"core/v1.PersistentVolumeClaimStatus", "conditions", "", "merge", "type"},
    {"core/v1.PersistentVolumeClaimTemplate", "metadata", "meta/v1.ObjectMeta", "", ""},
    {"core/v1.Pod", "spec", "core/v1.PodSpec", "", ""},
    {"core/v1.Pod", "status", "core/v1.PodStatus", "", ""},
    {"core/v1.PodSpec", "containers", "core/v1.Container", "merge", "name"},
    {"core/v1.PodSpec", "ephemeralContainers", "core/v1.EphemeralContainer", "merge", "name"},
    {"core/v1.PodSpec", "hostAliases", "", "merge", "ip"},
    {"core/v1.PodSpec", "imagePullSecrets", "", "merge", "name"},
    {"core/v1.PodSpec", "initContainers", "core/v1.Container", "merge", "name"},
    {"core/v1.PodSpec", "resourceClaims", "", "merge,retainKeys", "name"},
    {"core/v1.PodSpec", "schedulingGates", "", "merge", "name"},
    {"core/v1.PodSpec", "topologySpreadConstraints", "", "merge", "topologyKey"},
    {"core/v1.PodSpec", "volumes", "core/v1.Volume", "merge,retainKeys", "name"},
    {"core/v1.PodStatus", "conditions", "", "merge", "type"},
    {"core/v1.PodStatus", "hostIPs", "", "merge", "ip"},
    {"core/v1.PodStatus", "podIPs", "", "merge", "ip"},
    {"core/v1.PodStatus", "resourceClaimStatuses", "", "merge,retainKeys", "name"},
    {"core/v1.PodStatusResult", "status", "core/v1.PodStatus", "", ""},
    {"core/v1.PodTemplate", "template", "core/v1.PodTemplateSpec", "", ""},
    {"core/v1.PodTemplateSpec", "metadata", "meta/v1.ObjectMeta", "", ""},
    {"core/v1.PodTemplateSpec", "spec", "core/v1.PodSpec", "", ""},
    {"core/v1.ReplicationController", "spec", "core/v1.ReplicationControllerSpec", "", ""},
    {"core/v1.ReplicationController", "status", "core/v1.ReplicationControllerStatus", "", ""},
    {"core/v1.ReplicationControllerSpec", "template", "core/v1.PodTemplateSpec", "", ""},
    {"core/v1.ReplicationControllerStatus", "conditions", "", "merge", "type"},
    {"core/v1.Service", "spec", "core/v1.ServiceSpec", "", ""},
    {"core/v1.Service", "status", "core/v1.ServiceStatus", "", ""},
    {"core/v1.ServiceAccount", "secrets", "", "merge", "name"},
    {"core/v1.ServiceSpec", "ports", "", "merge", "port"},
    {"core/v1.ServiceStatus", "conditions", "", "merge", "type"},
    {"core/v1.Volume", "ephemeral", "core/v1.EphemeralVolumeSource", "", ""},
    {"extensions/v1beta1.DaemonSet", "spec", "extensions/v1beta1.DaemonSetSpec", "", ""},
    {"extensions/v1beta1.DaemonSet", "status", "extensions/v1beta1.DaemonSetStatus", "", ""},
    {"extensions/v1beta1.DaemonSetSpec", "template", "core/v1.PodTemplateSpec", "", ""},
    {"extensions/v1beta1.DaemonSetStatus", "conditions", "", "merge", "type"},
    {"extensions/v1beta1.Deployment", "spec", "extensions/v1beta1.DeploymentSpec", "", ""},
    {"extensions/v1beta1.Deployment", "status", "extensions/v1beta1.DeploymentStatus", "", ""},
    {"extensions/v1beta1.DeploymentSpec", "strategy", "", "retainKeys", ""},
    {"extensions/v1beta1.DeploymentSpec", "template", "core/v1.PodTemplateSpec", "", ""},
    {"extensions/v1beta1.DeploymentStatus", "conditions", "", "merge", "type"},
    {"extensions/v1beta1.ReplicaSet", "spec", "extensions/v1beta1.ReplicaSetSpec", "", ""},
    {"extensions/v1beta1.ReplicaSet", "status", "extensions/v1beta1.ReplicaSetStatus", "", ""},
    {"extensions/v1beta1.ReplicaSetSpec", "template", "core/v1.PodTemplateSpec", "", ""},
    {"extensions/v1beta1.ReplicaSetStatus", "conditions", "", "merge", "type"},
    {"flowcontrol/v1.FlowSchema", "status", "flowcontrol/v1.FlowSchemaStatus", "", ""},
    {"flowcontrol/v1.FlowSchemaStatus", "conditions", "", "merge", "type"},
    {"flowcontrol/v1.PriorityLevelConfiguration", "status", "flowcontrol/v1.PriorityLevelConfigurationStatus", "", ""},
    {"flowcontrol/v1.PriorityLevelConfigurationStatus", "conditions", "", "merge", "type"},
    {"flowcontrol/v1beta3.FlowSchema", "status", "flowcontrol/v1beta3.FlowSchemaStatus", "", ""},
    {"flowcontrol/v1beta3.FlowSchemaStatus", "conditions", "", "merge", "type"},
    {"flowcontrol/v1beta3.PriorityLevelConfiguration", "status", "flowcontrol/v1beta3.PriorityLevelConfigurationStatus", "", ""},
    {"flowcontrol/v1beta3.PriorityLevelConfigurationStatus", "conditions", "", "merge", "type"},
    {"meta/v1.ObjectMeta", "finalizers", "", "merge", ""},
    {"meta/v1.ObjectMeta", "ownerReferences", "", "merge", "uid"},
    {"networking/v1alpha1.ServiceCIDR", "status", "networking/v1alpha1.ServiceCIDRStatus", "", ""},
    {"networking/v1alpha1.ServiceCIDRStatus", "conditions", "", "merge", "type"},
    {"networking/v1beta1.ServiceCIDR", "status", "networking/v1beta1.ServiceCIDRStatus", "", ""},
    {"networking/v1beta1.ServiceCIDRStatus", "conditions", "", "merge", "type"},
    {"policy/v1.PodDisruptionBudget", "spec", "policy/v1.PodDisruptionBudgetSpec", "", ""},
    {"policy/v1.PodDisruptionBudget", "status", "policy/v1.PodDisruptionBudgetStatus", "", ""},
    {"policy/v1.PodDisruptionBudgetSpec", "selector", "", "replace", ""},
    {"policy/v1.PodDisruptionBudgetStatus", "conditions", "", "merge", "type"},
    {"policy/v1beta1.PodDisruptionBudget", "status", "policy/v1beta1.PodDisruptionBudgetStatus", "", ""},
    {"policy/v1beta1.PodDisruptionBudgetStatus", "conditions", "", "merge", "type"},
    {"resource/v1alpha3.ResourceClaim", "status", "resource/v1alpha3.ResourceClaimStatus", "", ""},
    {"resource/v1alpha3.ResourceClaimStatus", "reservedFor", "", "merge", "uid"},
    {"resource/v1alpha3.ResourceClaimTemplate", "spec", "resource/v1alpha3.ResourceClaimTemplateSpec", "", ""},
    {"resource/v1alpha3.ResourceClaimTemplateSpec", "metadata", "meta/v1.ObjectMeta", "", ""},
    {"resource/v1beta1.ResourceClaim", "status", "resource/v1beta1.ResourceClaimStatus", "", ""},
    {"resource/v1beta1.ResourceClaimStatus", "reservedFor", "", "merge", "uid"},
    {"resource/v1beta1.ResourceClaimTemplate", "spec", "resource/v1beta1.ResourceClaimTemplateSpec", "", ""},
    {"resource/v1beta1.ResourceClaimTemplateSpec", "metadata", "meta/v1.ObjectMeta", "", ""},
    {"storage/v1.CSINode", "spec", "storage/v1.CSINodeSpec", "", ""},
    {"storage/v1.CSINodeSpec", "drivers", "", "merge", "name"},
    {"storage/v1beta1.CSINode", "spec", "storage/v1beta1.CSINodeSpec", "", ""},
    {"storage/v1beta1.CSINodeSpec", "drivers", "", "merge", "name"},
    {"storagemigration/v1alpha1.StorageVersionMigration", "status", "storagemigration/v1alpha1.StorageVersionMigrationStatus", "", ""},
    {"storagemigration/v1alpha1.StorageVersionMigrationStatus", "conditions", "", "merge", "type"},
};

static_assert(std::is_sorted(std::begin(kSmpFields), std::end(kSmpFields),
                             [](const SmpField& a, const SmpField& b) {
                                 return std::pair(a.type, a.field) < std::pair(b.type, b.field);
                             }),
              "lookupPatchMeta's binary search needs kSmpFields sorted by (type, field)");

constexpr std::string_view kObjectMeta = "meta/v1.ObjectMeta";

// extractRetainKeysPatchStrategy, keeping the strategy that is not retainKeys.
std::string_view strategyOf(std::string_view tag) {
    if (tag == "merge" || tag == "merge,retainKeys") return "merge";
    if (tag == "replace") return "replace";
    return "";
}

}  // namespace

std::string goPackage(std::string_view apiVersion) {
    auto slash = apiVersion.find('/');
    if (slash == std::string_view::npos) return "core/" + std::string(apiVersion);
    std::string_view group = apiVersion.substr(0, slash);
    std::string pkg = group == "internal.apiserver.k8s.io" ? "apiserverinternal" : std::string(group.substr(0, group.find('.')));
    return pkg + "/" + std::string(apiVersion.substr(slash + 1));
}

PatchMeta lookupPatchMeta(const Schema& schema, std::string_view field) {
    if (schema.root && field == "metadata") return {{kObjectMeta}, "", ""};
    auto key = std::pair(schema.type, field);
    auto it = std::lower_bound(std::begin(kSmpFields), std::end(kSmpFields), key,
                               [](const SmpField& f, const auto& k) { return std::pair(f.type, f.field) < k; });
    if (it == std::end(kSmpFields) || it->type != schema.type || it->field != field) return {};
    return {{it->child}, strategyOf(it->strategy), it->mergeKey};
}

}  // namespace trainer::core::apiserver::patching
