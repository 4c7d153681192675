// PATCH request bodies decoded as the API server's Go code decodes them: encoding/json's syntax
// check first (scanner.go checkValid, with its SyntaxError texts), then Unmarshal into the Go type
// the server uses for the patch type, with the first UnmarshalTypeError text and, in strict mode,
// the duplicate / unknown field findings of sigs.k8s.io/json.
//   https://github.com/golang/go/tree/go1.23.0/src/encoding/json (scanner.go, decode.go)
//   https://github.com/kubernetes-sigs/json (strict decoding, PreserveInts)
// Decoded values follow PreserveInts: an integer literal that fits is int64, any other number a
// double; strings have their escapes decoded, invalid UTF-8 and unpaired surrogates as U+FFFD.
// Internal to the patch code (patch.cpp); pure functions, no exceptions.
#pragma once

#include "core/apiserver/go_text.hpp"

#include <boost/json.hpp>

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace trainer::core::apiserver::patching {

namespace json = boost::json;

// Bodies nested deeper fail with encoding/json's "exceeded max depth" syntax error. Go allows
// 10000 levels (scanner.go maxNestingDepth); this cap is lower so that the recursive merges stay
// far inside a thread's stack (about 1 MiB at this depth even with sanitizers).
constexpr std::size_t kMaxNestingDepth = 1000;
static_assert(kMaxNestingDepth <= gotext::kMaxPrintDepth, "error messages print every accepted body in full");

// The Go destination of a JSON value.
enum class Shape : std::uint8_t {
    Any,       // interface{}
    OpValue,   // interface{} inside handlers.jsonPatchOp.value (errors name the struct field)
    Raw,       // json.RawMessage, or a value Go skips: never an error
    MapAny,    // map[string]interface{}
    OpList,    // []handlers.jsonPatchOp
    Op,        // handlers.jsonPatchOp
    OpField,   // string field op / path / from of handlers.jsonPatchOp
    RawPatch,  // jsonpatch.Patch
    RawOp,     // jsonpatch.Operation
};

struct Decoded {
    json::value value;                      // the whole body; a value of the wrong type is still decoded
    std::string typeError;                  // first UnmarshalTypeError text, "" if none
    std::vector<std::string> strictErrors;  // duplicate / unknown field findings, each once, at most 100
};

struct Body {
    std::string syntaxError;  // Go SyntaxError text, "" if the body is valid JSON
    Decoded decoded;          // empty unless syntaxError is ""
};

// `data` checked and decoded into the Go type `top`; `strict` collects the strict findings.
Body decodeBody(std::string_view data, Shape top, bool strict);

}  // namespace trainer::core::apiserver::patching
