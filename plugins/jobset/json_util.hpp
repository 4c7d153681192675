// Mutable JSON helpers for building objects in place (internal to the plugin).
#pragma once

#include <boost/json.hpp>

#include <string_view>

namespace trainer::plugins::jobset::util {

namespace json = boost::json;

// o[key] as an object, replacing a missing or non-object member with {}.
json::object& ensureObject(json::object& o, std::string_view key);
// o[key] as an array, replacing a missing or non-array member with [].
json::array& ensureArray(json::object& o, std::string_view key);
// Follows/creates a chain of objects.
json::object& ensurePath(json::object& o, std::initializer_list<std::string_view> keys);
// Replaces the element whose `key` member equals item's in place, else appends (upstream upsert).
void upsertByKey(json::array& list, const json::value& item, std::string_view key);
// Upserts every element of `items` by `key`.
void upsertAllByKey(json::array& list, const json::array* items, std::string_view key);
// Port upsert: same containerPort, or same non-empty name, is replaced in place.
void upsertPort(json::array& list, const json::value& port);
// Removes every member whose value is an empty array, at any depth (Go's `omitempty` on the
// list fields of apply configurations); objects left empty stay (`emptyDir: {}`).
void dropEmptyLists(json::object& o);
// The Job-template ancestor label of a replicated job, or "".
std::string_view ancestorOf(const json::object& replicatedJob);
// True for absent, null, and empty arrays/objects (Semantic.DeepEqual treats them alike).
bool isEmpty(const json::value* v);
// Semantic equality for two optional members (absent == null == empty).
bool semanticEqual(const json::value* a, const json::value* b);

}  // namespace trainer::plugins::jobset::util
