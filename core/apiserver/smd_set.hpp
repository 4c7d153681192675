// Sets of field paths as structured-merge-diff keeps ownership (fieldpath.Set): the paths owned at
// this level (members) and the sets under each element (children), and the set algebra the
// Updater uses.
//   https://github.com/kubernetes-sigs/structured-merge-diff/blob/master/fieldpath/set.go
// Internal to the field manager (core/apiserver/field_manager.hpp).
#pragma once

#include "core/apiserver/smd_path.hpp"

#include <functional>
#include <initializer_list>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace trainer::core::apiserver::smd {

struct FieldSet {
    std::set<PathElement, PeLess> members;
    std::map<PathElement, FieldSet, PeLess> children;

    // No member at any depth (children that are themselves empty do not count).
    bool empty() const;
    // Adds the path `p`; inserting the empty path is a no-op: nobody owns the whole object.
    void insert(const Path& p);
    // Whether `p` is a member (not merely a prefix of one).
    bool has(const Path& p) const;
    // The set under `pe`, or null.
    const FieldSet* child(const PathElement& pe) const;
};

// Set.Union.
FieldSet unite(const FieldSet& a, const FieldSet& b);

// Set.Intersection (empty subtrees are left out).
FieldSet intersect(const FieldSet& a, const FieldSet& b);

// Set.Difference: leaf-wise; a member of `b` does not remove children of `a` under it.
FieldSet subtract(const FieldSet& a, const FieldSet& b);

// Set.RecursiveDifference: a member of `b` also removes everything under it from `a`.
FieldSet recursiveSubtract(const FieldSet& a, const FieldSet& b);

// Set.Iterate order: this level's members, then each child subtree, in element order; `f` gets
// each member's full path (`prefix` followed by the member's path under `s`).
void iteratePaths(const FieldSet& s, Path& prefix, const std::function<void(const Path&)>& f);

// The set of the given paths of field names, e.g. {{"metadata", "name"}, {"spec"}}.
FieldSet topLevelSet(std::initializer_list<std::vector<std::string>> paths);

}  // namespace trainer::core::apiserver::smd
