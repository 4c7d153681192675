// metadata.managedFields: its entries (manager, operation, apiVersion, subresource, time, the
// owned field set), their identifiers, and their decoding from and encoding into an object.
//   https://github.com/kubernetes/kubernetes/blob/master/staging/src/k8s.io/apimachinery/pkg/util/managedfields/internal/managedfields.go
//   https://github.com/kubernetes/kubernetes/blob/master/staging/src/k8s.io/apimachinery/pkg/util/managedfields/internal/buildmanagerinfo.go
//   https://github.com/kubernetes/kubernetes/blob/master/staging/src/k8s.io/apimachinery/pkg/util/managedfields/internal/fieldmanager.go (decodeLiveOrNew)
// Internal to the field manager (core/apiserver/field_manager.hpp).
#pragma once

#include "core/apiserver/smd_set.hpp"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>

namespace trainer::core::apiserver::smd {

// o[key] when it is a string, else "".
std::string stringAt(const json::object& o, std::string_view key);

// o.metadata when it is an object, else null.
const json::object* metadataOf(const json::object& o);

// o.metadata.managedFields, or null.
const json::value* managedFieldsOf(const json::object& o);

struct Entry {
    std::string manager, operation, apiVersion, subresource;
    std::optional<std::string> time;
    FieldSet set;
};
using Managers = std::map<std::string, Entry>;  // by manager identifier

// BuildManagerIdentifier: the entry as JSON without time and fields, and without apiVersion for appliers.
std::string identifier(const Entry& e);

struct Decoded {
    Managers managers;
    std::string error;  // upstream's text when an entry is invalid (then `managers` is partial)
};

// DecodeManagedFields of metadata.managedFields; a value that is not a list of objects reads as none,
// as Unstructured.GetManagedFields does.
Decoded decodeManaged(const json::value* mf);

// Unix seconds of an RFC 3339 time (0 when absent or unreadable), for upstream's entry ordering.
std::int64_t unixSeconds(const std::optional<std::string>& t);

// EncodeObjectManagedFields: sorted entries (operation, time, manager, apiVersion, subresource)
// into obj.metadata.managedFields, or no managedFields member at all when none remain.
void encodeManaged(json::object& obj, const Managers& managers);

// decodeLiveOrNew of fieldmanager.go: managedFields sent with a write win unless it is a subresource
// write or they are unreadable/empty; an empty list (or one empty entry) resets them.
Managers decodeLiveOrNew(const json::object* before, const json::object& after, bool isSubresource);

}  // namespace trainer::core::apiserver::smd
