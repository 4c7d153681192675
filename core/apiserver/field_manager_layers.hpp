// The manager layers the API server wraps around the Updater on every write, one function each:
// stripping identity and server-owned metadata from ownership (stripmeta.go), recording a
// non-apply write (managedfieldsupdater.go), capping Update entries (capmanagers.go), and
// attributing an untracked object before its first apply (skipnonapplied.go).
//   https://github.com/kubernetes/kubernetes/tree/master/staging/src/k8s.io/apimachinery/pkg/util/managedfields/internal
// Internal to the field manager (core/apiserver/field_manager.hpp).
#pragma once

#include "core/apiserver/managed_fields.hpp"
#include "core/apiserver/smd_updater.hpp"

#include <cstddef>
#include <string>
#include <string_view>

namespace trainer::core::apiserver::smd {

// stripMetaManager: entry `id` (if any) without apiVersion, kind, metadata and its identity and
// server-owned members; dropped when nothing else remains.
void stripMeta(Managers& managers, const std::string& id);

// Updater.Update as driven by managedFieldsUpdater: the write's changes go to a scratch manager,
// then join `writer`'s entry, which gets `time` only when it took something.
void updateCore(const json::value& live, const json::value& newObj, Managers& managers, Entry writer,
                std::string_view time, const FieldSet& ignored, const Shapes& sh);

// capManagersManager: keep at most `max` Update entries, folding the oldest into "ancient-changes".
void capUpdateManagers(Managers& managers, std::size_t max = 10);

// skipNonAppliedManager: an object nobody tracks yet is first attributed to "before-first-apply"
// (at `time`), then `applied` is applied by `applier` (smdApply).
ApplyRun applyTracked(const json::value& live, const json::value& applied, Managers managers, const Entry& applier,
                      bool force, const FieldSet& ignored, std::string_view time, const Shapes& sh);

}  // namespace trainer::core::apiserver::smd
