// The strategic-merge-patch metadata of a Go type tree: for each struct field that carries a
// `patchStrategy` / `patchMergeKey` struct tag, or that leads to such a field, one row. This is
// what k8s.io/apimachinery/pkg/util/strategicpatch reads from the Go struct with
// NewPatchMetaFromStruct; upstream applies runtime patches against jobsetv1alpha2.JobSetSpec{}
// (https://github.com/kubeflow/trainer/blob/master/pkg/runtime/core/trainingruntime.go,
// mergeRuntimePatches) and merges resourcesPerNode against resourceRequirementsPatchMeta{}
// (https://github.com/kubeflow/trainer/blob/master/pkg/util/trainingruntime/trainingruntime.go).
#pragma once

#include <optional>
#include <span>
#include <string_view>

namespace trainer::core {

// The JSON type of a tagged field's value: a Go struct or map, a Go slice, or anything
// (runtime.RawExtension).
enum class FieldShape { Object, List, Any };

// One tagged field. A field without a row has no tags: in a patch its object value merges key by
// key (with no tags below it), and its list value replaces the original list.
struct PatchField {
    std::string_view type;      // Go struct declaring the field, package-qualified ("core/v1.PodSpec")
    std::string_view field;     // JSON name
    FieldShape shape;
    std::string_view child;     // Go struct the value holds (a list's element type) when tagged fields
                                // lie below it, else ""
    std::string_view strategy;  // patchStrategy: "", "merge", "replace", "retainKeys", "merge,retainKeys"
    std::string_view mergeKey;  // patchMergeKey ("" for a list of scalars merged as a set)
};

// A document type: its Go root type and the rows of the types reachable from it.
struct PatchSchema {
    std::string_view root;
    std::span<const PatchField> fields;
};

// jobset.x-k8s.io/v1alpha2 JobSetSpec (JobSet v0.12.0, as kubeflow/trainer's go.mod pins) with the
// batch/v1, core/v1 and meta/v1 types below it (k8s.io/api and k8s.io/apimachinery v0.36.3; the
// rows are the same at v0.32).
const PatchSchema& jobSetSpecPatchSchema();

// kubeflow/trainer's resourceRequirementsPatchMeta: limits and requests (maps) merge key by key,
// claims merge by name. (core/v1.ResourceRequirements itself has no tags: its claims are replaced.)
const PatchSchema& resourceRequirementsPatchSchema();

// The same rows seen from another root type, e.g. {"core/v1.PodSpec", jobSetSpecPatchSchema().fields}.
PatchSchema patchSchemaAt(const PatchSchema& schema, std::string_view root);

// The row of `field` in Go type `type`, or nullopt when the field has no tags.
std::optional<PatchField> patchFieldOf(const PatchSchema& schema, std::string_view type, std::string_view field);

}  // namespace trainer::core
