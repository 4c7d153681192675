// The PATCH entry points of patch.hpp: each decodes the body as the API server's handler does,
// applies the patch and finishes the result. The request handling follows
//   https://github.com/kubernetes/kubernetes/blob/v1.32.0/staging/src/k8s.io/apiserver/pkg/endpoints/handlers/patch.go
// The parts, each with its upstream source in its header:
//   go_text.hpp                 Go's text forms in messages (strconv.Quote, fmt %v, json.Marshal)
//   go_json_decode.hpp          bodies decoded like Go's encoding/json (syntax check, Unmarshal)
//   patch_result.hpp            results worded like the API server (statusOf is there too)
//   merge_patch.hpp             RFC 7386 merge patch
//   json_patch.hpp              RFC 6902 JSON patch operations
//   strategic_merge_patch.hpp   strategic merge patch, with the struct tags of strategic_merge_tags.hpp
#include "core/apiserver/patch.hpp"

#include "core/apiserver/go_json_decode.hpp"
#include "core/apiserver/go_text.hpp"
#include "core/apiserver/json_patch.hpp"
#include "core/apiserver/merge_patch.hpp"
#include "core/apiserver/patch_result.hpp"
#include "core/apiserver/strategic_merge_patch.hpp"
#include "core/apiserver/strategic_merge_tags.hpp"

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

namespace trainer::core::apiserver {

PatchResult unsupportedPatchType(bool builtinKind) {
    std::string accepted = builtinKind ? "application/json-patch+json, application/merge-patch+json, "
                                         "application/strategic-merge-patch+json, application/apply-patch+yaml"
                                       : "application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml";
    return patching::failure(415, "UnsupportedMediaType",
                             "the body of the request was in an unknown format - accepted media types include: " + accepted);
}

PatchResult mergePatch(const json::value& target, std::string_view patchBody, FieldValidation validation) {
    using patching::badRequest;
    patching::Body body;
    std::vector<std::string> strictErrors;
    if (validation != FieldValidation::Ignore) {
        // handlers/patch.go decodes the body strictly first, then hands it to MergePatch.
        body = patching::decodeBody(patchBody, patching::Shape::MapAny, true);
        if (!body.syntaxError.empty()) return badRequest("error decoding patch: " + body.syntaxError);
        if (!body.decoded.typeError.empty()) return badRequest("error decoding patch: " + body.decoded.typeError);
        strictErrors = std::move(body.decoded.strictErrors);
    } else {
        body = patching::decodeBody(patchBody, patching::Shape::Raw, false);
        if (!body.syntaxError.empty()) return badRequest(std::string(patching::kErrBadJSONPatch));
    }
    PatchResult r = patching::applyMergePatch(target, std::move(body.decoded.value));
    if (!r.ok) return r;
    return patching::finishDocument(std::move(r.value), std::move(strictErrors), validation);
}

PatchResult jsonPatch(const json::value& target, std::string_view patchBody, FieldValidation validation) {
    // handlers/patch.go maxJSONPatchOperations.
    constexpr std::size_t kMaxJsonPatchOperations = 10000;
    using patching::badRequest;
    bool strict = validation != FieldValidation::Ignore;
    // Under Warn / Strict the body is first decoded strictly into []handlers.jsonPatchOp.
    patching::Body body = patching::decodeBody(patchBody, strict ? patching::Shape::OpList : patching::Shape::RawPatch, strict);
    std::string prefix = strict ? "error decoding patch: " : "";
    if (!body.syntaxError.empty()) return badRequest(prefix + body.syntaxError);
    if (!body.decoded.typeError.empty()) return badRequest(prefix + body.decoded.typeError);
    std::vector<std::string> strictErrors;
    for (auto const& e : body.decoded.strictErrors) strictErrors.push_back("json patch " + e);
    // The body decodes to an array of operations, or to null for none.
    const json::array noOps;
    const json::array& ops = body.decoded.value.is_array() ? body.decoded.value.get_array() : noOps;
    if (ops.size() > kMaxJsonPatchOperations)
        return patching::failure(413, "RequestEntityTooLarge",
                                 "Request entity too large: The allowed maximum operations in a JSON patch is " +
                                     std::to_string(kMaxJsonPatchOperations) + ", got " + std::to_string(ops.size()));
    if (!target.is_object() && !target.is_array())
        return patching::genericInvalid("json: cannot unmarshal into jsonpatch.partialDoc");
    PatchResult r = patching::applyJsonPatch(target, ops);
    if (!r.ok) return r;
    return patching::finishDocument(std::move(r.value), std::move(strictErrors), validation);
}

PatchResult strategicMergePatch(const json::value& target, std::string_view patchBody, std::string_view apiVersion,
                                std::string_view kind, bool builtinKind, FieldValidation validation) {
    using patching::badRequest;
    // A custom resource's PATCH handler does not list strategic merge patch among its media types.
    if (!builtinKind) return unsupportedPatchType(false);
    patching::Body body = patching::decodeBody(patchBody, patching::Shape::MapAny, validation != FieldValidation::Ignore);
    if (!body.syntaxError.empty()) return badRequest(body.syntaxError);
    if (!body.decoded.typeError.empty()) return badRequest(body.decoded.typeError);
    std::vector<std::string> strictErrors = std::move(body.decoded.strictErrors);
    json::value patch = std::move(body.decoded.value);
    bool strictFailure = validation == FieldValidation::Strict && !strictErrors.empty();
    std::string patchText = strictFailure ? gotext::goValue(patch) : "";
    json::object original = target.is_object() ? target.get_object() : json::object();
    std::string rootType = patching::goPackage(apiVersion) + "." + std::string(kind);
    PatchResult r = patching::applyStrategicMergePatch(std::move(original), std::move(patch), patching::Schema{rootType, true});
    if (!r.ok) return r;
    if (strictFailure) {
        r = patching::invalidPatch(patchText, patching::strictDecodingError(strictErrors));
        r.strictErrors = std::move(strictErrors);
        return r;
    }
    return patching::success(std::move(r.value), std::move(strictErrors));
}

std::string formatGoValue(const json::value& v) { return gotext::goValue(v); }

}  // namespace trainer::core::apiserver
