// Kubernetes strategic merge patch (SMP) over JSON against a Go type's patch metadata, as
// upstream applies runtime patches to the JobSetSpec (mergeRuntimePatches in
// https://github.com/kubeflow/trainer/blob/8c0f5059bd51ec3ba6d6a6a7b2e1471de7bc13b3/pkg/runtime/core/trainingruntime.go).
#pragma once

#include "core/api/errors.hpp"
#include "core/runtime/patch_schema.hpp"

#include <boost/json.hpp>

#include <string>

namespace trainer::core {

namespace json = boost::json;

// strategicpatch.StrategicMergePatch(original, patch, <schema's Go type>) followed by what the
// typed round trip upstream does with its result (json.Unmarshal into the Go struct) does to
// leftovers: null members and `$...` directive members are dropped. Follows
// https://github.com/kubernetes/apimachinery/blob/v0.36.3/pkg/util/strategicpatch/patch.go
// (mergeMap with MergeParallelList and IgnoreUnmatchedNulls):
//  - objects merge key by key, `null` deletes a key, other values replace; a field tagged
//    `replace` is replaced whole;
//  - a list tagged `merge` merges by its patchMergeKey (a list of scalars: set union), in the order
//    apimachinery gives (patch items in patch order, the others interleaved by original order);
//    any other list is replaced;
//  - directives: `$patch: replace|delete` in an object, `$patch: delete|replace` as a merged list
//    item, `$retainKeys`, `$deleteFromPrimitiveList/<list>`, `$setElementOrder/<list>`. Like
//    apimachinery, `$patch: merge` is an error and `$retainKeys` is honoured in any object.
// The merge keys depend on the path in the schema (`ports` merge by containerPort inside a
// container only). A patch member whose JSON type contradicts a tagged field (an object for a
// merged list, a scalar list item in a keyed list, ...) is an error, as the typed patch upstream
// cannot express it. The first error stops the merge, like apimachinery's: it is reported once in
// `diag` at the field path under `fieldPath` (worded as k8s.io/apimachinery/pkg/util/mergepatch
// errors, values printed as JSON) and `original` is returned unchanged. Patch members are applied
// in the patch's order (Go visits them in random map order). A null patch changes nothing; a
// patch or original that is neither an object nor null is "invalid JSON document".
json::value strategicMerge(const json::value& original, const json::value& patch, Diagnostics& diag,
                           const std::string& fieldPath = "",
                           const PatchSchema& schema = jobSetSpecPatchSchema());

}  // namespace trainer::core
