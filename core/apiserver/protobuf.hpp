// Reading request bodies sent as Kubernetes protobuf (Content-Type application/vnd.kubernetes.protobuf):
// the 4-byte magic "k8s\0" followed by a runtime.Unknown {1: TypeMeta{1: apiVersion, 2: kind},
// 2: raw (the object's own protobuf), 3: contentEncoding, 4: contentType}, as
// k8s.io/apimachinery/pkg/runtime/serializer/protobuf/protobuf.go writes it. The object becomes the
// JSON the same request would carry as application/json; the kinds and fields read are the table in
// protobuf_schema.hpp. Responses stay JSON: only decoding is needed.
#pragma once

#include <boost/json.hpp>

#include <string>
#include <string_view>

namespace trainer::core::apiserver {

namespace json = boost::json;

inline constexpr std::string_view kKubernetesProtobufContentType = "application/vnd.kubernetes.protobuf";

struct ProtobufDecodeResult {
    bool ok = false;
    json::object object;  // when ok: "kind", "apiVersion", then the object's fields
    std::string error;    // when not ok: the API server's decode error text (before its "... cannot be
                          // handled as a ..." wrapping)
};

// What the request's endpoint implies, applied as upstream's copyKindDefaults does: an empty kind
// takes `kind`; an empty (or unparsable) apiVersion takes `apiVersion`.
struct ProtobufTypeDefaults {
    std::string_view apiVersion;
    std::string_view kind;
};

// Decodes a "k8s\0" + runtime.Unknown body into the JSON object the same request would carry as JSON:
// apiVersion and kind from TypeMeta, fields named, typed and omitted as Go's encoding/json writes the
// upstream Go type (v1.32). Fields of a known message that the table lacks are skipped, as upstream
// skips unknown fields. Errors (never exceptions): a bad prefix, an empty body, malformed wire data
// (bounds-checked varints and lengths, groups rejected, nesting limited), a missing kind/apiVersion,
// or a kind that is not in the table ("no kind \"X\" is registered for version \"v1\" in scheme ...").
ProtobufDecodeResult decodeKubernetesProtobuf(std::string_view body, const ProtobufTypeDefaults& defaults = {});

}  // namespace trainer::core::apiserver
