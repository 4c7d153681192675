// Equality that a text written from the values can rely on: the same kinds, the same scalars and
// the same members in the same order. Boost.JSON's operator== ignores the order of an object's
// members and equates 1 with 1u, which toJson and toYaml do not (they keep the stored order).
#pragma once

#include <boost/json.hpp>

namespace trainer::core {

namespace json = boost::json;

// True when `a` and `b` would print the same with toJson or toYaml. Iterative (no recursion per
// level), so any depth of input is safe.
bool sameInOrder(const json::value& a, const json::value& b);
bool sameInOrder(const json::object& a, const json::object& b);

}  // namespace trainer::core
