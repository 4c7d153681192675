// The Updater; the contract is in smd_updater.hpp.
#include "core/apiserver/smd_updater.hpp"

#include "core/apiserver/smd_merge.hpp"
#include "core/apiserver/smd_remove.hpp"
#include "core/apiserver/smd_to_field_set.hpp"

#include <map>
#include <optional>
#include <utility>

namespace trainer::core::apiserver::smd {

namespace {

// ConflictsFromManagers, ordered by manager identifier and then Set.Iterate order.
Conflicts conflictsFrom(const std::map<std::string, FieldSet>& sets, const Managers& managers) {
    Conflicts out;
    for (auto const& [id, set] : sets) {
        Entry owner = managers.at(id);
        owner.set = {};
        Path prefix;
        iteratePaths(set, prefix, [&](const Path& p) { out.push_back({id, owner, p}); });
    }
    return out;
}

// Updater.prune: drop what the applier owned last time and no manager owns now (struct fields
// included, so emptied parents go too), keeping fields nobody ever owned.
json::value prune(const json::value& merged, const Managers& managers, const std::optional<FieldSet>& lastSet,
                  const Shapes& sh) {
    if (!lastSet || lastSet->empty()) return merged;
    const FieldSet last = ensureNamed(*lastSet, sh);
    FieldSet managed;
    for (auto const& [id, e] : managers) managed = unite(managed, e.set);
    const FieldSet mergedSet = ensureNamed(toFieldSet(merged, sh), sh);
    json::value pruned = removeFrom(merged, last, sh);
    FieldSet keep = unite(ensureNamed(toFieldSet(pruned, sh), sh), ensureNamed(managed, sh));
    pruned = removeFrom(merged, subtract(mergedSet, keep), sh);  // addBackOwnedItems
    FieldSet prunedSet = ensureNamed(toFieldSet(pruned, sh), sh);
    return removeFrom(merged, intersect(subtract(mergedSet, prunedSet), last), sh);  // addBackDanglingItems
}

}  // namespace

Conflicts updateManagers(const json::value& oldObj, const json::value& newObj, Managers& managers,
                         const std::string& workflow, bool force, const FieldSet& ignored, const Shapes& sh,
                         Comparison* comparison) {
    Comparison c = compareObjects(oldObj, newObj, sh);
    c.removed = recursiveSubtract(c.removed, ignored);
    c.modified = recursiveSubtract(c.modified, ignored);
    c.added = recursiveSubtract(c.added, ignored);
    const FieldSet changed = unite(c.modified, c.added);
    std::map<std::string, FieldSet> conflicts;
    for (auto const& [id, e] : managers)
        if (id != workflow)
            if (FieldSet x = intersect(e.set, changed); !x.empty()) conflicts.emplace(id, std::move(x));
    if (!force && !conflicts.empty()) return conflictsFrom(conflicts, managers);
    for (auto& [id, e] : managers) {
        if (id == workflow) continue;
        if (auto it = conflicts.find(id); it != conflicts.end()) e.set = subtract(e.set, it->second);
        e.set = subtract(e.set, c.removed);
    }
    std::erase_if(managers, [](auto const& kv) { return kv.second.set.empty(); });
    if (comparison) *comparison = std::move(c);
    return {};
}

ApplyRun smdApply(const json::value& live, const json::value& applied, Managers managers, const Entry& applier,
                  bool force, const FieldSet& ignored, const Shapes& sh) {
    ApplyRun run;
    MergeContext cx{sh, {}};
    Names names;
    auto merged = mergeValue(&live, &applied, names, cx);
    if (!cx.errors.empty()) return run.error = "failed to merge config: " + validationText(cx.errors), run;
    const std::string id = identifier(applier);
    std::optional<FieldSet> lastSet;
    Entry entry = applier;
    if (auto it = managers.find(id); it != managers.end()) lastSet = it->second.set, entry.time = it->second.time;
    entry.set = recursiveSubtract(toFieldSet(applied, sh), ignored);
    managers[id] = std::move(entry);
    json::value newObj = prune(merged ? *merged : json::value(json::object()), managers, lastSet, sh);
    run.conflicts = updateManagers(live, newObj, managers, id, force, ignored, sh);
    if (!run.conflicts.empty()) return run;
    run.changed = !valueEquals(live, newObj);
    run.object = run.changed ? std::move(newObj) : live;
    run.managers = std::move(managers);
    return run;
}

}  // namespace trainer::core::apiserver::smd
