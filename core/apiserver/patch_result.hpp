// PatchResult values worded like the Kubernetes API server: the status code, reason, message and
// details each of its errors carries, as k8s.io/apimachinery/pkg/api/errors builds them
//   https://github.com/kubernetes/apimachinery/blob/v0.32.13/pkg/api/errors/errors.go
// and what the PATCH handler adds when it decodes a patched document
//   https://github.com/kubernetes/kubernetes/blob/v1.32.0/staging/src/k8s.io/apiserver/pkg/endpoints/handlers/patch.go
// Internal to the patch code (patch.cpp, merge_patch.cpp, json_patch.cpp,
// strategic_merge_patch.cpp); statusOf, the public view of a failed result, is in patch.hpp.
#pragma once

#include "core/apiserver/patch.hpp"

#include <boost/json.hpp>

#include <string>
#include <string_view>
#include <vector>

namespace trainer::core::apiserver::patching {

namespace json = boost::json;

// A failed result with exactly this code, reason and message, and nothing else set.
PatchResult failure(unsigned code, std::string_view reason, std::string message);

// A successful result: the document and the body's strict-decoding findings.
PatchResult success(json::value v, std::vector<std::string> strictErrors);

// NewBadRequest: 400 BadRequest with `message`.
PatchResult badRequest(std::string message);

// NewGenericServerResponse(422, ...): 422 Invalid with the server's fixed message and empty
// details; `cause` is kept for logs only, the response does not carry it.
PatchResult genericInvalid(std::string cause);

// A plain error reaching the handler: ErrorToAPIStatus makes it a 500 with an empty reason.
PatchResult internalError(std::string message);

// A Go panic in the patch code: the server's panic filter answers 500 with a fixed text/plain
// message (plainText set); `cause` is kept for logs only.
PatchResult panicked(std::string cause);

// NewInvalid(schema.GroupKind{}, "", {field.Invalid(field.NewPath("patch"), value, detail)}):
// 422 Invalid whose message and single FieldValueInvalid cause quote `value` with strconv.Quote.
PatchResult invalidPatch(std::string_view value, std::string_view detail);

// "strict decoding error: " and the findings joined by ", ".
std::string strictDecodingError(const std::vector<std::string>& errors);

// What the server's decode of a json / merge patch result adds: a non-object cannot be decoded
// (422 naming the document as encoding/json Marshal prints it), and under Strict the body's strict
// findings fail the request (422, findings kept in strictErrors). Otherwise success(result, strictErrors).
PatchResult finishDocument(json::value result, std::vector<std::string> strictErrors, FieldValidation validation);

}  // namespace trainer::core::apiserver::patching
