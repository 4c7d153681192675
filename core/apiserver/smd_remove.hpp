// Removing a set of fields from a value (TypedValue.RemoveItems) and counting struct fields with
// owned sub-fields as owned (Set.EnsureNamedFieldsAreMembers), as the Updater's pruning needs.
//   https://github.com/kubernetes-sigs/structured-merge-diff/blob/master/typed/remove.go
//   https://github.com/kubernetes-sigs/structured-merge-diff/blob/master/fieldpath/set.go
// Internal to the field manager (core/apiserver/field_manager.hpp).
#pragma once

#include "core/apiserver/smd_set.hpp"
#include "core/apiserver/smd_typed_helpers.hpp"

namespace trainer::core::apiserver::smd {

// `v` without the fields of `toRemove`; an atomic map or list with fields to remove under it goes
// whole, list items that cannot be keyed stay. A container left empty is null upstream: a map
// member so emptied is kept as null (the stored form drops null members, field_manager.cpp
// dropNullMembers), an emptied list item is dropped, and an emptied root is {}.
json::value removeFrom(const json::value& v, const FieldSet& toRemove, const Shapes& sh);

// `s` with each struct field (ListShape::Struct parent) that has owned sub-fields also a member,
// so pruning can drop it.
FieldSet ensureNamed(const FieldSet& s, const Shapes& sh);

}  // namespace trainer::core::apiserver::smd
