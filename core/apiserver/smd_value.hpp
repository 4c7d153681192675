// Values as structured-merge-diff compares and prints them (value.ToString, value.Compare,
// value.Equals), over Boost.JSON values as the API server decodes them:
//   https://github.com/kubernetes-sigs/structured-merge-diff/blob/master/value/value.go
// Internal to the field manager (core/apiserver/field_manager.hpp).
#pragma once

#include <boost/json.hpp>

#include <string>

namespace trainer::core::apiserver::smd {

namespace json = boost::json;

// -1, 0 or 1 as `a` sorts before, with or after `b` by operator<.
template <class T>
int cmp3(const T& a, const T& b) {
    return a < b ? -1 : (b < a ? 1 : 0);
}

// value.ToString, as path elements print keys and values: numbers as Go's %v, strings as %q, lists
// `[a,b]`, map members `k=v` run together in stored order, null "null".
std::string valueToString(const json::value& v);

// value.Compare. Total order: numbers (ints and floats compared numerically) < strings < bools <
// lists < maps < null; lists element-wise then by length, maps by sorted keys then values.
int valueCompare(const json::value& l, const json::value& r);

// value.Equals: ints and floats equal when numerically equal; maps regardless of member order.
bool valueEquals(const json::value& l, const json::value& r);

}  // namespace trainer::core::apiserver::smd
