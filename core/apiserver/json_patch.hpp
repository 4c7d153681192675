// RFC 6902 JSON patch operations (application/json-patch+json) as gopkg.in/evanphx/json-patch.v4
// v4.12.0 Patch.Apply runs them, with the API server's settings (negative array indices allowed,
// 3 MiB accumulated copy limit) and the library's error texts:
//   https://github.com/evanphx/json-patch/tree/v4.12.0 (patch.go)
// Internal to the patch code: patch.cpp decodes the body, limits the operation count and
// finishes the result.
#pragma once

#include "core/apiserver/patch.hpp"

#include <boost/json.hpp>

namespace trainer::core::apiserver::patching {

namespace json = boost::json;

// The decoded operations applied in order to `doc` (an object or array): the patched document, or
// for the first failing operation the server's generic 422 (the library's error text as its
// cause), or a panic result where the library would dereference nil.
PatchResult applyJsonPatch(json::value doc, const json::array& ops);

}  // namespace trainer::core::apiserver::patching
