// The Kubernetes protobuf messages the API server can read, described as data: for each message its
// fields (wire number, JSON name, value kind, shape, and how Go's encoding/json presents the field),
// and which (apiVersion, kind) pairs name which top-level message. Field numbers are upstream's
// generated.proto; names and presence are upstream's Go types (see protobuf_schema.cpp).
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

namespace trainer::core::apiserver {

// What one wire value is and how it reads as JSON.
enum class ProtoFieldKind {
    String,       // string
    Bytes,        // bytes -> base64 string
    Bool,         // varint -> true/false
    Int32,        // varint, truncated to 32 bits, sign kept
    Int64,        // varint as a signed 64-bit number
    Message,      // embedded message named by ProtoField::messageType -> JSON object
    Time,         // metav1.Time {1: seconds, 2: nanos} -> RFC 3339 seconds, null when zero
    MicroTime,    // metav1.MicroTime -> RFC 3339 with 6 fractional digits, null when zero
    IntOrString,  // intstr.IntOrString {1: type, 2: intVal, 3: strVal} -> number or string
    Quantity,     // resource.Quantity {1: string} -> string
    RawJson,      // metav1.FieldsV1 / runtime.RawExtension {1: raw JSON bytes} -> that JSON
    StringList,   // a message {1: repeated string} (authentication ExtraValue) -> array of strings
};

enum class ProtoFieldShape {
    Single,    // optional
    Repeated,  // repeated -> JSON array (numbers may arrive packed)
    Map,       // map<string, kind> -> JSON object, keys sorted as Go's encoding/json sorts them
};

// How the Go field marshals to JSON, which decides whether a field absent or zero on the wire appears.
enum class ProtoPresence {
    OmitEmpty,  // value field with `omitempty`: emitted only when not zero/empty
    Pointer,    // pointer field: emitted exactly when present on the wire
    Always,     // no `omitempty`, or a struct: emitted always, the zero value when absent
    Inline,     // embedded struct with `json:",inline"`: its fields join the enclosing object
};

struct ProtoField {
    std::string_view message;  // the enclosing message, "<group>/<version>.<Name>"
    std::uint32_t number;
    std::string_view jsonName;  // empty for Inline
    ProtoFieldKind kind;
    ProtoFieldShape shape;
    ProtoPresence presence;
    std::string_view messageType = {};  // for ProtoFieldKind::Message
};

struct ProtoKind {
    std::string_view apiVersion;  // as in TypeMeta: "v1", "batch/v1"
    std::string_view kind;
    std::string_view message;
};

// Every field row, grouped by message, in the Go struct's field order.
std::span<const ProtoField> protoFieldTable();

// The top-level kinds, one row per (apiVersion, kind).
std::span<const ProtoKind> protoKindTable();

}  // namespace trainer::core::apiserver
