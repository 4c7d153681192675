// Server-side apply (PATCH application/apply-patch+yaml) and managedFields bookkeeping for
// non-apply writes, as a client sees them from a real API server:
//   https://github.com/kubernetes-sigs/structured-merge-diff (merge/update.go, typed/*.go, fieldpath/*.go)
//   https://github.com/kubernetes/kubernetes/tree/master/staging/src/k8s.io/apimachinery/pkg/util/managedfields/internal
// Pure functions over Boost.JSON; no I/O, no clock (the caller passes the timestamp).
#pragma once

#include <boost/json.hpp>

#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace trainer::core::apiserver {

namespace json = boost::json;

// How the value at a path merges. For a list: associative by keys (x-kubernetes-list-type: map +
// x-kubernetes-list-map-keys, or a built-in patchMergeKey), set (list-type set), or atomic (replaced
// whole, owned as one field). `keyDefaults` supplies key fields an element omits (the schema's
// defaults, e.g. protocol "TCP" for ports), as structured-merge-diff does.
// `object` says how a JSON object at the path (or each object element of the list at the path)
// merges: Struct (declared properties; a non-empty child object is not itself an owned field),
// FreeForm (additionalProperties / preserve-unknown-fields maps such as labels: every key is owned),
// AtomicObject (x-kubernetes-map-type: atomic, e.g. LabelSelector: replaced and owned as one field).
struct ListShape {
    enum Kind { Atomic, Map, Set } kind = Atomic;
    std::vector<std::string> keys;
    json::object keyDefaults;
    enum ObjectKind { Struct, FreeForm, AtomicObject } object = Struct;
};

// Schema lookup: given the JSON path of a field as member names from the root (list elements are
// transparent, e.g. {"spec","template","spec","containers"} for the containers list and for each
// container object), how to merge it. Called for list and object paths, including {} (the root).
using ListShapeFn = std::function<ListShape(const std::vector<std::string>& path)>;

// Built from a CRD version's openAPIV3Schema (x-kubernetes-list-type, x-kubernetes-list-map-keys,
// x-kubernetes-map-type, properties / additionalProperties / x-kubernetes-preserve-unknown-fields).
// Paths the schema does not describe (and everything under top-level metadata) go to `fallback`.
// The schema is copied; `openApiV3Schema` may be null (then everything goes to `fallback`).
ListShapeFn listShapeFromSchema(const json::object* openApiV3Schema, ListShapeFn fallback);

// The built-in table (k8s.io/api list-type/patchMergeKey markers): containers/initContainers/
// ephemeralContainers, env, volumes, imagePullSecrets by name; container ports by containerPort+protocol
// and Service spec.ports by port+protocol (protocol defaults to TCP); volumeMounts by mountPath;
// ownerReferences by uid; conditions by type; finalizers a set; tolerations, args, command atomic;
// labels, annotations, nodeSelector, data, resources limits/requests free-form; selectors atomic.
// `kind` ("" = any) narrows kind-specific rules: spec.ports is keyed by port+protocol only for Service.
ListShapeFn builtinListShapes(std::string_view kind = "");

struct ApplyConflict {
    std::string manager;  // the conflicting manager's name, e.g. "kubectl-client-side-apply"
    std::string path;     // ".spec.replicas" or `.spec.containers[name="node"].image`
    std::string cause;    // Status details cause message: `conflict with "m" using v1`
};

struct SsaResult {
    bool ok = true;
    json::object object;                   // the new live object, metadata.managedFields updated
    std::vector<ApplyConflict> conflicts;  // when !ok because of conflicts (details.causes, field=path,
                                           // type "FieldManagerConflict", message=cause)
    std::string message;  // upstream's text, e.g. `Apply failed with 1 conflict: conflict with "m": .data.a`
    unsigned code = 0;    // 409 for conflicts; 400 bad request; 404 status apply to a missing object;
    std::string reason;   // "Conflict", "BadRequest", "NotFound"; "" with code 500 (unknown), as upstream
};

// Applies `config` (the applied configuration, already parsed from YAML/JSON) by `manager`.
// `live` null = the object does not exist (create). Fields set in config are merged into live (maps
// recursively, lists per ListShape); fields the manager owned in its previous Apply entry but no longer
// sets are removed unless another manager owns them; a field set to a different value than live that
// another manager owns is a conflict unless `force` (then ownership moves to `manager`).
// Server-owned metadata (uid, resourceVersion, generation, creationTimestamp, deletionTimestamp,
// deletionGracePeriodSeconds, selfLink) in config is ignored; a non-null metadata.managedFields list
// in config is rejected ("metadata.managedFields must be nil", 400) as upstream does. When `live` is set,
// config's apiVersion/kind must match it (400 "invalid object type: ..."); on create the caller checks
// them against the URL. `subresource` "status": only .status (and the identity) of config is applied
// and the entry gets "subresource":"status"; otherwise .status in config is ignored when the kind has a
// status subresource. Manager "kubectl" gets upstream's client-side-apply upgrade: conflicts on fields
// matching the last-applied-configuration annotation are forced, and that annotation is kept in sync.
// The resourceVersion precondition and admission are the caller's business.
SsaResult serverSideApply(const json::object* live, const json::object& config, std::string_view manager,
                          bool force, std::string_view time, const ListShapeFn& shapes,
                          bool statusSubresource, std::string_view subresource = "");

// Non-apply writes (create, update, merge/json/strategic patch) by `manager`: records/extends an
// "Update" entry owning the fields that changed between `before` (null on create) and `after` (the
// object as it will be persisted, after the strategy reset status or spec), and removes those fields
// from other managers' entries. managedFields sent in `after` are honoured as upstream does (an empty
// list resets them); when neither side tracks fields and `before` has a metadata.uid (an existing
// object), nothing is tracked until its first apply. Writes the result into after.metadata.managedFields (removed when no entry remains).
// At most 10 Update entries are kept; older ones merge into "ancient-changes".
void recordUpdate(const json::object* before, json::object& after, std::string_view manager,
                  std::string_view time, const ListShapeFn& shapes, std::string_view subresource = "");

}  // namespace trainer::core::apiserver
