// What the typed walks (validate, merge, compare, tofieldset, remove) share: the schema lookup
// (how the value at a path merges, core/apiserver/field_manager.hpp ListShape), the path element
// of an associative list's item, and the form (scalar, map, list) a value is handled as.
//   https://github.com/kubernetes-sigs/structured-merge-diff/blob/master/typed/helpers.go
// Internal to the field manager (core/apiserver/field_manager.hpp).
#pragma once

#include "core/apiserver/field_manager.hpp"
#include "core/apiserver/smd_path.hpp"

#include <string>
#include <vector>

namespace trainer::core::apiserver::smd {

// A schema path: member names from the root, list elements transparent (see ListShapeFn).
using Names = std::vector<std::string>;

// The schema lookup; without a function every path is a struct / atomic list (ListShape{}).
struct Shapes {
    const ListShapeFn& fn;
    ListShape at(const Names& names) const { return fn ? fn(names) : ListShape{}; }
};

struct PeResult {
    PathElement pe;
    std::string error;  // non-empty when the element cannot be keyed (upstream's text)
};

// listItemToPathElement for an associative list: a Key element from the item's key fields (or
// the shape's defaults for the ones it omits) when the shape has keys, else a Value element.
PeResult itemPe(const ListShape& shape, const json::value& item);

enum class Atom { Scalar, Map, List };

Atom atomOf(const json::value& v);

// Non-null and non-absent.
bool present(const json::value* v);

// The form both sides are handled as: the right side's unless it is absent or null (null is a wildcard).
Atom atomFor(const json::value* l, const json::value* r);

// The object / array `v` holds, or null (also for a null `v`).
const json::object* asObject(const json::value* v);
const json::array* asArray(const json::value* v);

}  // namespace trainer::core::apiserver::smd
