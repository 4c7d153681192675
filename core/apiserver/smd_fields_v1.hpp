// FieldsV1, the JSON form of a field set in a managedFields entry: "f:<name>", "k:<json key
// fields>", "v:<json value>", "i:<index>" members, "." for a path that is itself owned.
//   https://github.com/kubernetes-sigs/structured-merge-diff/blob/master/fieldpath/serialize.go
//   https://github.com/kubernetes-sigs/structured-merge-diff/blob/master/fieldpath/serialize-pe.go
// Internal to the field manager (core/apiserver/field_manager.hpp).
#pragma once

#include "core/apiserver/smd_set.hpp"

#include <optional>
#include <string>

namespace trainer::core::apiserver::smd {

// Set.FromJSON: the set `fields` describes, or nullopt with `error` set (upstream's text).
// Elements of an unknown type are dropped, as upstream does.
std::optional<FieldSet> fieldsToSet(const json::value& fields, std::string& error);

// Set.ToJSON, members in element order; `includeSelf` adds "." (for a path that is both a member
// and has children).
json::object setToFields(const FieldSet& s, bool includeSelf = false);

}  // namespace trainer::core::apiserver::smd
