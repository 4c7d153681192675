// Small JSON accessors shared by the JobSet and Job controllers of the local executor: typed
// reads that never throw (a missing or mistyped member reads as absent), owner references and
// the two condition flavours (metav1.Condition for JobSets, batch/v1 JobCondition for Jobs).
#pragma once

#include "core/controller/clock.hpp"
#include "core/store/store.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace trainer::core::executor::workload {

const json::object* objectAt(const json::object* o, std::string_view k);
const json::array* arrayAt(const json::object* o, std::string_view k);
std::string stringAt(const json::object* o, std::string_view k);
// An integral number (int64, uint64 or a whole double); nullopt when absent or not integral.
std::optional<int64_t> intAt(const json::object* o, std::string_view k);
std::optional<bool> boolAt(const json::object* o, std::string_view k);
// `o[k]` as an object, replacing a missing or mistyped member with {}.
json::object& ensureObject(json::object& o, std::string_view k);

// metadata (empty when missing) and its common members.
const json::object& metadataOf(const json::object& o);
std::string uidOf(const json::object& o);
std::string labelOf(const json::object& o, std::string_view key);
std::string annotationOf(const json::object& o, std::string_view key);
bool hasDeletionTimestamp(const json::object& o);
bool hasFinalizer(const json::object& o, std::string_view finalizer);

// The ownerReference with controller=true, or nullptr.
const json::object* controllerRefOf(const json::object& o);
// Whether `o` is controlled by an owner of `kind` with `uid`.
bool controlledBy(const json::object& o, std::string_view kind, std::string_view uid);
// metav1.NewControllerRef(owner): controller and blockOwnerDeletion true.
json::object controllerRefTo(const json::object& owner);

// The condition of `type` in status.conditions, or nullptr.
const json::object* conditionOf(const json::object* status, std::string_view type);
bool conditionTrue(const json::object* status, std::string_view type);

// Strings of a JSON array (non-strings skipped).
std::vector<std::string> stringsAt(const json::object* o, std::string_view k);

}  // namespace trainer::core::executor::workload
