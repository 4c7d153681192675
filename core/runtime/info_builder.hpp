// Runtime lookup (registry key, snapshot first) and the Info document v1 (sdk/docs/info.md).
// Upstream: newRuntimeInfo and the lookup in
// https://github.com/kubeflow/trainer/blob/8c0f5059bd51ec3ba6d6a6a7b2e1471de7bc13b3/pkg/runtime/core/trainingruntime.go
// (clustertrainingruntime.go, registry.go and snapshot.go beside it); Info and PodSet in
// https://github.com/kubeflow/trainer/blob/8c0f5059bd51ec3ba6d6a6a7b2e1471de7bc13b3/pkg/runtime/runtime.go.
#pragma once

#include "core/api/errors.hpp"
#include "core/api/object_set.hpp"

#include <boost/json.hpp>

#include <memory>
#include <optional>
#include <string>

namespace trainer::core {

namespace json = boost::json;

// "<Kind>.<group>" of spec.runtimeRef with CRD defaults (ClusterTrainingRuntime,
// trainer.kubeflow.org); just "<Kind>" when the group is empty.
std::string runtimeRegistryKey(const json::object& trainJob);

// "<job>-runtime-snapshot".
std::string runtimeSnapshotName(const json::object& trainJob);

// The runtime the TrainJob refers to: with `useSnapshot`, the one stored in the snapshot
// ConfigMap when that exists; otherwise the live TrainingRuntime in the TrainJob's namespace or
// the ClusterTrainingRuntime (upstream's not-found texts). Null + error on failure (errors at
// `spec.runtimeRef`). Shared, not copied, from a reader that keeps its answers
// (ClusterReader::share): admission and render read one runtime for many TrainJobs.
// `snapshotFound`, when given with `useSnapshot`, is set to whether the snapshot exists once it
// was read (a read that fails is the error, not "absent"): what a build needs to know to write it.
std::shared_ptr<const json::object> resolveRuntime(const json::object& trainJob, const ClusterReader& cluster,
                                                   Diagnostics& diag, bool useSnapshot, bool* snapshotFound = nullptr);

// The ConfigMap `<job>-runtime-snapshot` (snapshot.go createRuntimeSnapshot): TrainJob controller
// owner reference, data.runtime = YAML of the whole runtime object.
json::object runtimeSnapshot(const json::object& trainJob, const json::object& runtime);

// The Info document v1 for one reconcile, in the steps of upstream's newRuntimeInfo
// (trainingruntime.go): 1 labels/annotations, 2 runtime patches applied by strategic merge,
// 3 apply-config zero values dropped, 4 counts, resourcesPerNode merge, PodSets with
// singlePodRequests, 5 the Info. Malformed fields become errors with field paths; never throws.
json::object buildInfo(const json::object& trainJob, const json::object& runtime, Diagnostics& diag);

// Kubernetes "pod requests" of a pod spec: containers summed, init containers by the sidecar
// rule, pod-level spec.resources.requests (cpu, memory, hugepages-*) overriding, plus
// spec.overhead. Quantities as canonical strings. Invalid quantities are reported at `path`.
json::object podRequests(const json::object& podSpec, Diagnostics& diag, const std::string& path = "");

}  // namespace trainer::core
