// The fields a value sets (TypedValue.ToFieldSet): leaves, empty and null members, every key of
// a free-form map, atomic maps and lists as one field, and each associative list item (a
// duplicated key once, without its sub-fields).
//   https://github.com/kubernetes-sigs/structured-merge-diff/blob/master/typed/tofieldset.go
// Internal to the field manager (core/apiserver/field_manager.hpp).
#pragma once

#include "core/apiserver/smd_set.hpp"
#include "core/apiserver/smd_typed_helpers.hpp"

namespace trainer::core::apiserver::smd {

FieldSet toFieldSet(const json::value& v, const Shapes& sh);

}  // namespace trainer::core::apiserver::smd
