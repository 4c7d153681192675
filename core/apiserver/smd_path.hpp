// Field paths as structured-merge-diff names them (fieldpath.PathElement, fieldpath.Path): a
// field name, a list item's key fields, a set item's value, or an atomic list's index.
//   https://github.com/kubernetes-sigs/structured-merge-diff/blob/master/fieldpath/element.go
//   https://github.com/kubernetes-sigs/structured-merge-diff/blob/master/fieldpath/path.go
// Internal to the field manager (core/apiserver/field_manager.hpp).
#pragma once

#include "core/apiserver/smd_value.hpp"

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace trainer::core::apiserver::smd {

struct PathElement {
    enum Type { Field, Key, Value, Index } type = Field;  // also the sort order between types
    std::string name;                                     // Field
    std::vector<std::pair<std::string, json::value>> key;  // Key, sorted by name
    json::value value;                                     // Value
    std::int64_t index = 0;                                // Index
};
using Path = std::vector<PathElement>;

// The Field element `name`.
PathElement fieldElement(std::string_view name);

// PathElement.Compare: by type, then name, key fields (name, then value.Compare), value or index.
int peCompare(const PathElement& a, const PathElement& b);

struct PeLess {
    bool operator()(const PathElement& a, const PathElement& b) const { return peCompare(a, b) < 0; }
};

bool peEquals(const PathElement& a, const PathElement& b);

// PathElement.String: ".name", `[k=v,k2=v2]`, `[=v]`, "[3]".
std::string peString(const PathElement& pe);

// Path.String: the elements' strings joined, e.g. `.spec.containers[name="node"].image`.
std::string pathString(const Path& p);

}  // namespace trainer::core::apiserver::smd
