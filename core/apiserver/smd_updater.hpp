// The Updater: how a write moves field ownership between managers (Updater.update), and an apply
// (Updater.Apply: merge, record the applier's fields, prune what it stopped applying, report
// conflicts with other owners unless forced).
//   https://github.com/kubernetes-sigs/structured-merge-diff/blob/master/merge/update.go
//   https://github.com/kubernetes-sigs/structured-merge-diff/blob/master/merge/conflict.go
// Internal to the field manager (core/apiserver/field_manager.hpp).
#pragma once

#include "core/apiserver/managed_fields.hpp"
#include "core/apiserver/smd_compare.hpp"

#include <string>
#include <vector>

namespace trainer::core::apiserver::smd {

struct Conflict {
    std::string id;
    Entry owner;  // manager, operation, apiVersion, subresource of the owner (set left empty)
    Path path;
};
using Conflicts = std::vector<Conflict>;

// Updater.update: fields changed between oldObj and newObj (less `ignored`) are taken from every
// manager but `workflow`, or reported as conflicts when !force (ConflictsFromManagers: ordered by
// manager identifier, then Set.Iterate order; `managers` then unchanged); removed fields are dropped
// from their owners and managers left owning nothing are dropped. `comparison`, when given,
// receives the comparison (less `ignored`) of a write without conflicts.
Conflicts updateManagers(const json::value& oldObj, const json::value& newObj, Managers& managers,
                         const std::string& workflow, bool force, const FieldSet& ignored, const Shapes& sh,
                         Comparison* comparison = nullptr);

struct ApplyRun {
    Conflicts conflicts;
    std::string error;  // an internal (500) failure
    json::value object;
    bool changed = false;
    Managers managers;
};

// Updater.Apply of `applied` by `applier` over `live`: the merged and pruned object with the
// managers after the apply (the applier's entry keeps its previous time), or the conflicts, or
// an error when the merge fails.
ApplyRun smdApply(const json::value& live, const json::value& applied, Managers managers, const Entry& applier,
                  bool force, const FieldSet& ignored, const Shapes& sh);

}  // namespace trainer::core::apiserver::smd
