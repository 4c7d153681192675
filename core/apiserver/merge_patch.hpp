// RFC 7386 JSON merge patch (application/merge-patch+json) as gopkg.in/evanphx/json-patch.v4
// MergePatch applies it, with the library's error texts:
//   https://github.com/evanphx/json-patch/tree/v4.12.0 (merge.go)
// Internal to the patch code: patch.cpp decodes the body and finishes the result.
#pragma once

#include "core/apiserver/patch.hpp"

#include <boost/json.hpp>

#include <string_view>

namespace trainer::core::apiserver::patching {

namespace json = boost::json;

// merge.go errBadJSONPatch, also the server's answer to a body that is not JSON under Ignore.
constexpr std::string_view kErrBadJSONPatch = "Invalid JSON Patch";

// doMergePatch (mergeMerge false) of a decoded patch into a decoded document, nulls handled as
// merge.go handles them: the merged document, or 500 "Invalid JSON Document" for a null document
// and 400 kErrBadJSONPatch for a null or scalar patch. The result is not checked to be an object.
PatchResult applyMergePatch(json::value doc, json::value patch);

}  // namespace trainer::core::apiserver::patching
