// Server-side apply and managedFields, after sigs.k8s.io/structured-merge-diff (SMD) and
// k8s.io/apimachinery/pkg/util/managedfields/internal: the public entry points of
// field_manager.hpp and the apply request's own checks (fieldmanager.go, versioncheck.go,
// conflict.go). The parts, one concept per file, named after the upstream files they mirror:
//   smd_value        value/value.go: value text, order, equality
//   smd_path         fieldpath/element.go, path.go: path elements
//   smd_set          fieldpath/set.go: field sets and their algebra
//   smd_fields_v1    fieldpath/serialize*.go: FieldsV1
//   smd_typed_helpers, smd_validate, smd_to_field_set, smd_merge, smd_compare, smd_remove: typed/*.go
//   smd_updater      merge/update.go: the Updater
//   managed_fields   internal/managedfields.go, buildmanagerinfo.go: entries, decode, encode
//   field_manager_layers, field_manager_last_applied: the other internal/*.go manager layers
//   field_manager_list_shapes: builtinListShapes, listShapeFromSchema
//   field_manager_go_text: Go's text forms (strconv.Quote, fmt %v, encoding/json)
// Their declarations are internal headers of the same names, in namespace trainer::core::apiserver::smd.
#include "core/apiserver/field_manager.hpp"

#include "core/apiserver/field_manager_go_text.hpp"
#include "core/apiserver/field_manager_last_applied.hpp"
#include "core/apiserver/field_manager_layers.hpp"
#include "core/apiserver/managed_fields.hpp"
#include "core/apiserver/smd_typed_helpers.hpp"
#include "core/apiserver/smd_updater.hpp"
#include "core/apiserver/smd_validate.hpp"

#include <algorithm>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace trainer::core::apiserver::smd {

namespace {

std::string gvkString(const json::object& o) {
    std::string apiVersion = stringAt(o, "apiVersion");
    auto slash = apiVersion.find('/');
    std::string group = slash == std::string::npos ? "" : apiVersion.substr(0, slash);
    std::string version = slash == std::string::npos ? apiVersion : apiVersion.substr(slash + 1);
    return group + "/" + version + ", Kind=" + stringAt(o, "kind");
}

// objectGVKNN: "namespace/name; group/version, Kind=Kind".
std::string objectGvknn(const json::object& o) {
    auto const* m = metadataOf(o);
    std::string ns = m ? stringAt(*m, "namespace") : "", name = m ? stringAt(*m, "name") : "";
    return ns + "/" + name + "; " + gvkString(o);
}

// Unstructured.GetManagedFields() != nil: a list whose items are all objects.
bool listsManagedFields(const json::object& config) {
    auto const* mf = managedFieldsOf(config);
    if (!mf || !mf->is_array()) return false;
    auto const& a = mf->get_array();
    return std::all_of(a.begin(), a.end(), [](auto const& v) { return v.is_object(); });
}

// The configuration actually merged: without server-owned metadata; for the status subresource only
// the identity and .status; for the main resource of a kind with a status subresource, without .status.
json::object appliedConfig(const json::object& config, bool statusSubresource, std::string_view subresource) {
    json::object applied = config;
    if (auto* m = applied.if_contains("metadata"); m && m->is_object())
        for (auto key : {"uid", "resourceVersion", "generation", "creationTimestamp", "deletionTimestamp",
                         "deletionGracePeriodSeconds", "selfLink", "managedFields"})
            m->get_object().erase(key);
    if (subresource == "status") {
        json::object only;
        for (auto key : {"apiVersion", "kind", "status"})
            if (auto const* v = applied.if_contains(key)) only[key] = *v;
        if (auto const* m = metadataOf(applied)) {
            json::object identity;
            for (auto key : {"name", "namespace"})
                if (auto const* v = m->if_contains(key)) identity[key] = *v;
            only["metadata"] = std::move(identity);
        }
        return only;
    }
    if (statusSubresource) applied.erase("status");
    return applied;
}

// The strategy's reset fields (GetResetFields), excluded from ownership: the main resource of a kind
// with a status subresource does not own .status; the status subresource does not own .spec.
FieldSet ignoredFields(bool statusSubresource, std::string_view subresource) {
    if (subresource == "status") return topLevelSet({{"spec"}});
    if (statusSubresource && subresource.empty()) return topLevelSet({{"status"}});
    return {};
}

SsaResult failure(unsigned code, std::string reason, std::string message) {
    SsaResult r;
    r.ok = false;
    r.code = code;
    r.reason = std::move(reason);
    r.message = std::move(message);
    return r;
}

// printManager of conflict.go (identifiers never carry a time, so no "at <time>").
std::string printManager(const Entry& e) {
    std::string out = goQuote(e.manager);
    if (!e.subresource.empty()) out += " with subresource " + goQuote(e.subresource);
    if (e.operation == "Update") out += " using " + e.apiVersion;
    return out;
}

// NewConflictError / getConflictMessage of conflict.go.
SsaResult conflictResult(const Conflicts& conflicts) {
    SsaResult r = failure(409, "Conflict", "");
    std::map<std::string, std::vector<std::string>> byManager;
    std::map<std::string, std::string> printed;
    for (auto const& c : conflicts) {
        printed[c.id] = printManager(c.owner);
        byManager[c.id].push_back(pathString(c.path));
        r.conflicts.push_back({c.owner.manager, pathString(c.path), "conflict with " + printed[c.id]});
    }
    if (conflicts.size() == 1) {
        r.message = "Apply failed with 1 conflict: " + r.conflicts[0].cause + ": " + r.conflicts[0].path;
        return r;
    }
    std::string lines;
    for (auto const& [id, paths] : byManager) {
        lines += (lines.empty() ? "" : "\n") + std::string("conflicts with ") + printed[id] + ":";
        for (auto const& p : paths) lines += "\n- " + p;
    }
    r.message = "Apply failed with " + std::to_string(conflicts.size()) + " conflicts: " + lines;
    return r;
}

// The stored form of an apply's result: members whose value is null are dropped, as the API server's
// typed conversion (built-in kinds) and its pruning of nulls in non-nullable fields (custom resources)
// drop them. Applying this after upstream's merge and removal keeps apply idempotent for a config with
// explicit nulls (test/fuzz/README.md finding 8): `{spec: null}` over owned children and over nothing
// both store `{}`.
void dropNullMembers(json::value& v) {
    if (auto* o = v.if_object()) {
        for (auto it = o->begin(); it != o->end();) {
            if (it->value().is_null()) {
                it = o->erase(it);
            } else {
                dropNullMembers(it->value());
                ++it;
            }
        }
    } else if (auto* a = v.if_array()) {
        for (auto& e : *a) dropNullMembers(e);
    }
}

}  // namespace

}  // namespace trainer::core::apiserver::smd

namespace trainer::core::apiserver {

SsaResult serverSideApply(const json::object* live, const json::object& config, std::string_view manager,
                          bool force, std::string_view time, const ListShapeFn& shapes, bool statusSubresource,
                          std::string_view subresource) {
    using smd::failure, smd::stringAt;
    const smd::Shapes sh{shapes};
    if (subresource == "status" && !live) return failure(404, "NotFound", "");
    smd::Decoded decoded = smd::decodeManaged(live ? smd::managedFieldsOf(*live) : nullptr);
    if (!decoded.error.empty()) return failure(500, "", "failed to decode managed fields: " + decoded.error);
    if (live && (stringAt(config, "apiVersion") != stringAt(*live, "apiVersion") ||
                 stringAt(config, "kind") != stringAt(*live, "kind")))
        return failure(400, "BadRequest", "invalid object type: " + smd::gvkString(config));
    if (smd::listsManagedFields(config)) return failure(400, "BadRequest", "metadata.managedFields must be nil");
    std::vector<smd::ValidationError> errs;
    smd::Names names;
    smd::validateValue(config, "", names, sh, errs);
    if (!errs.empty())
        return failure(500, "", "failed to create typed patch object (" + smd::objectGvknn(config) +
                                    "): " + smd::validationText(errs));

    const smd::Entry applier{manager.empty() ? "unknown" : std::string(manager), "Apply",
                             stringAt(config, "apiVersion"), std::string(subresource), std::nullopt, {}};
    const json::value liveValue = live ? json::value(*live) : json::value(json::object());
    smd::ApplyRun run = smd::applyUpgradingClientSide(
        liveValue, smd::appliedConfig(config, statusSubresource, subresource), decoded.managers, applier, force,
        smd::ignoredFields(statusSubresource, subresource), time, sh);
    if (!run.error.empty()) return failure(500, "", run.error);
    if (!run.conflicts.empty()) return smd::conflictResult(run.conflicts);

    const std::string id = smd::identifier(applier);
    smd::stripMeta(run.managers, id);
    if (auto it = run.managers.find(id); it != run.managers.end() && run.changed) it->second.time = std::string(time);
    SsaResult result;
    smd::dropNullMembers(run.object);
    result.object = run.object.is_object() ? std::move(run.object.get_object()) : json::object();
    smd::encodeManaged(result.object, run.managers);
    if (applier.manager == "kubectl") smd::syncLastApplied(result.object, config);
    return result;
}

void recordUpdate(const json::object* before, json::object& after, std::string_view manager, std::string_view time,
                  const ListShapeFn& shapes, std::string_view subresource) {
    const smd::Shapes sh{shapes};
    smd::Managers managers = smd::decodeLiveOrNew(before, after, !subresource.empty());
    if (auto* m = after.if_contains("metadata"); m && m->is_object()) m->get_object().erase("managedFields");
    // skipNonAppliedManager: an existing object (one with a UID) nobody tracks starts being tracked at
    // its first apply; a create (no live UID) is tracked.
    auto const* liveMeta = before ? smd::metadataOf(*before) : nullptr;
    if (managers.empty() && liveMeta && !smd::stringAt(*liveMeta, "uid").empty()) return;
    const json::value liveValue = before ? json::value(*before) : json::value(json::object());
    smd::Entry writer{manager.empty() ? "unknown" : std::string(manager), "Update", smd::stringAt(after, "apiVersion"),
                      std::string(subresource), std::nullopt, {}};
    smd::updateCore(liveValue, json::value(after), managers, std::move(writer), time, {}, sh);
    smd::capUpdateManagers(managers);
    smd::encodeManaged(after, managers);
}

}  // namespace trainer::core::apiserver
