// The patchStrategy / patchMergeKey struct tags a strategic merge patch follows, for the Go types
// of the built-in kinds of k8s.io/api and k8s.io/apimachinery meta/v1 at v0.32
//   https://github.com/kubernetes/api/tree/v0.32.13
// as k8s.io/apimachinery/pkg/util/strategicpatch reads them (PatchMetaFromStruct, meta.go)
//   https://github.com/kubernetes/apimachinery/tree/v0.32.13/pkg/util/strategicpatch
// Only the fields that carry a tag, or lead to one, are known; any other field has no tag.
// Internal to the patch code; the table itself is data, in strategic_merge_tags.cpp.
#pragma once

#include <string>
#include <string_view>

namespace trainer::core::apiserver::patching {

// The Go struct the patch descends into: a table type ("apps/v1.DeploymentSpec"), a kind's type
// (root), or "" for a struct without tagged fields below it. `type` is not owned.
struct Schema {
    std::string_view type;
    bool root = false;
};

// The tags of one field. All views point into static data.
struct PatchMeta {
    Schema sub;                 // the struct the field holds (the element type of a list), if known
    std::string_view strategy;  // "merge", "replace" or "" (retainKeys alone changes nothing when merging)
    std::string_view mergeKey;  // "" when none
};

// The Go package of an apiVersion's types: "v1" -> core/v1, "apps/v1" -> apps/v1,
// "rbac.authorization.k8s.io/v1" -> rbac/v1, "internal.apiserver.k8s.io/v1alpha1" -> apiserverinternal/v1alpha1.
// A kind's root Schema type is goPackage(apiVersion) + "." + kind.
std::string goPackage(std::string_view apiVersion);

// The tags of `field` in `schema`: a root's "metadata" is meta/v1.ObjectMeta; a field the table
// does not list has none (PatchMeta{}).
PatchMeta lookupPatchMeta(const Schema& schema, std::string_view field);

}  // namespace trainer::core::apiserver::patching
