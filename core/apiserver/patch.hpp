// The three non-apply PATCH media types of the Kubernetes API server, applied to a JSON document
// with the API server's results and wording:
//   application/merge-patch+json           RFC 7386, as gopkg.in/evanphx/json-patch.v4 MergePatch
//   application/json-patch+json            RFC 6902, as gopkg.in/evanphx/json-patch.v4 (v4.12.0) Patch.Apply
//   application/strategic-merge-patch+json as k8s.io/apimachinery/pkg/util/strategicpatch (v0.32)
// The request handling around them follows
// https://github.com/kubernetes/kubernetes/blob/v1.32.0/staging/src/k8s.io/apiserver/pkg/endpoints/handlers/patch.go
// Bodies are decoded like Go's encoding/json (same syntax-error texts, max nesting 10000, invalid
// UTF-8 and lone surrogates become U+FFFD). Pure functions: no I/O, no exceptions.
#pragma once

#include <boost/json.hpp>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace trainer::core::apiserver {

namespace json = boost::json;

// The fieldValidation query parameter of the PATCH request; the API server treats "" as Warn.
enum class FieldValidation { Ignore, Warn, Strict };

struct PatchResult {
    bool ok = true;
    json::value value;     // the patched document when ok
    unsigned code = 0;     // HTTP status when !ok (400, 413, 415, 422, 500)
    std::string reason;    // metav1 StatusReason ("BadRequest", "Invalid", ...); "" for the server's
                           // non-Status errors, which it reports as 500 with an empty reason
    std::string message;   // exactly as the real API server words it
    // metav1.Status "details" when the server sends them: {} for the generic 422 and the causes of
    // an Invalid error; nullopt when the Status has no details.
    std::optional<json::object> details;
    // Strict-decoding findings about the body (duplicate fields, unknown json-patch fields), worded
    // like the server. Under Warn the server returns each one as a warning header; under Strict a
    // successful patch with findings is already turned into the server's 422 here.
    std::vector<std::string> strictErrors;
    // True when the server answers with `message` as a text/plain body instead of a Status (a Go
    // panic in the patch code, caught by the server's panic filter).
    bool plainText = false;
    // The underlying library error when the server's message hides it (generic 422, panics); for
    // logs only, the server does not send it.
    std::string cause;
};

// The metav1.Status (kind Status, apiVersion v1) the server sends for a failed result.
json::object statusOf(const PatchResult& failed);

// 415 for a Content-Type the resource does not accept: built-in kinds accept json-patch,
// merge-patch, strategic-merge-patch and apply-patch+yaml; custom resources all but
// strategic-merge-patch.
PatchResult unsupportedPatchType(bool builtinKind);

// RFC 7386 JSON merge patch (application/merge-patch+json).
PatchResult mergePatch(const json::value& target, std::string_view patchBody,
                       FieldValidation validation = FieldValidation::Warn);

// RFC 6902 JSON patch (application/json-patch+json): add, remove, replace, move, copy, test with
// JSON pointers (~0, ~1, "-" to append). A failing operation is the server's generic 422; more
// than 10000 operations is 413.
PatchResult jsonPatch(const json::value& target, std::string_view patchBody,
                      FieldValidation validation = FieldValidation::Warn);

// Strategic merge patch (application/strategic-merge-patch+json) with the patchStrategy /
// patchMergeKey struct tags of k8s.io/api v0.32 for the kind's Go type (apiVersion "v1" is package
// core/v1, "apps/v1" apps/v1, "rbac.authorization.k8s.io/v1" rbac/v1, ...). A kind not in the table
// merges with ObjectMeta's tags only. A custom resource (builtinKind false) is refused with 415
// like the real server.
PatchResult strategicMergePatch(const json::value& target, std::string_view patchBody,
                                std::string_view apiVersion, std::string_view kind, bool builtinKind,
                                FieldValidation validation = FieldValidation::Warn);

// Go's fmt "%v" of a JSON value decoded into interface{} (int64 / float64 numbers, sorted map
// keys), as the server prints patch maps inside error messages.
std::string formatGoValue(const json::value& v);

}  // namespace trainer::core::apiserver
