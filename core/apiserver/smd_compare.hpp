// Which fields were removed, modified and added between two objects (TypedValue.Compare): leaves
// compared by value.Equals, atomic maps and lists as one field, associative list items by key
// (a duplicated key compared as a unit, as upstream does).
//   https://github.com/kubernetes-sigs/structured-merge-diff/blob/master/typed/compare.go
// Internal to the field manager (core/apiserver/field_manager.hpp).
#pragma once

#include "core/apiserver/smd_set.hpp"
#include "core/apiserver/smd_typed_helpers.hpp"

namespace trainer::core::apiserver::smd {

struct Comparison {
    FieldSet removed, modified, added;
};

Comparison compareObjects(const json::value& l, const json::value& r, const Shapes& sh);

}  // namespace trainer::core::apiserver::smd
