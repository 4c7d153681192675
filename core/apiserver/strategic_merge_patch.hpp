// Strategic merge patch (application/strategic-merge-patch+json) of a decoded patch map into an
// object, as k8s.io/apimachinery/pkg/util/strategicpatch patch.go StrategicMergeMapPatch runs it
// for the API server (MergeParallelList and IgnoreUnmatchedNulls set), with the error texts of
// k8s.io/apimachinery/pkg/util/mergepatch/errors.go:
//   https://github.com/kubernetes/apimachinery/tree/v0.32.13/pkg/util/strategicpatch
//   https://github.com/kubernetes/apimachinery/tree/v0.32.13/pkg/util/mergepatch
// Internal to the patch code: patch.cpp decodes the body and handles strict findings.
#pragma once

#include "core/apiserver/patch.hpp"
#include "core/apiserver/strategic_merge_tags.hpp"

#include <boost/json.hpp>

namespace trainer::core::apiserver::patching {

namespace json = boost::json;

// `patch` (an object; anything else leaves `original` as it is) merged into `original` following
// the struct tags below `root` (strategic_merge_tags.hpp): the merged object, or the failure as
// the server reports it: 400 for a malformed $retainKeys, $deleteFromPrimitiveList or
// $setElementOrder directive, the generic 422 for lists of lists,
// 500 with an empty reason for the library's other errors, and a panic result where Go panics.
PatchResult applyStrategicMergePatch(json::object original, json::value patch, const Schema& root);

}  // namespace trainer::core::apiserver::patching
