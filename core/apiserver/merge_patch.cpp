// RFC 7386 merge patch as evanphx/json-patch merge.go applies it; the contract is in merge_patch.hpp.
#include "core/apiserver/merge_patch.hpp"

#include "core/apiserver/patch_result.hpp"

#include <string>
#include <utility>

namespace trainer::core::apiserver::patching {

namespace {

void pruneNulls(json::value& v);

void pruneDocNulls(json::object& doc) {
    for (auto it = doc.begin(); it != doc.end();) {
        if (it->value().is_null()) {
            it = doc.erase(it);
        } else {
            pruneNulls(it->value());
            ++it;
        }
    }
}

// Nulls inside objects are dropped; null array elements stay.
void pruneNulls(json::value& v) {
    if (v.is_object()) {
        pruneDocNulls(v.get_object());
    } else if (v.is_array()) {
        for (auto& e : v.get_array())
            if (!e.is_null()) pruneNulls(e);
    }
}

void mergeDocs(json::object& doc, json::object& patch);

json::value mergeValues(json::value cur, json::value patch) {
    if (!cur.is_object()) {
        pruneNulls(patch);
        return patch;
    }
    if (!patch.is_object()) return patch;
    mergeDocs(cur.get_object(), patch.get_object());
    return cur;
}

void mergeDocs(json::object& doc, json::object& patch) {
    for (auto& kv : patch) {
        if (kv.value().is_null()) {
            doc.erase(kv.key());
            continue;
        }
        json::value* cur = doc.if_contains(kv.key());
        if (!cur || cur->is_null()) {
            pruneNulls(kv.value());
            doc[kv.key()] = std::move(kv.value());
        } else {
            *cur = mergeValues(std::move(*cur), std::move(kv.value()));
        }
    }
}

}  // namespace

PatchResult applyMergePatch(json::value doc, json::value patch) {
    if (doc.is_null()) return internalError("Invalid JSON Document");
    if (patch.is_null()) return badRequest(std::string(kErrBadJSONPatch));
    if (doc.is_object() && patch.is_object()) {
        mergeDocs(doc.get_object(), patch.get_object());
        return success(std::move(doc), {});
    }
    if (patch.is_object()) {
        pruneDocNulls(patch.get_object());
        return success(std::move(patch), {});
    }
    if (patch.is_array()) {
        pruneNulls(patch);
        return success(std::move(patch), {});
    }
    return badRequest(std::string(kErrBadJSONPatch));
}

}  // namespace trainer::core::apiserver::patching
