// Structural validation and defaulting of trainer objects from the real CRD schemas (embedded),
// as the API server does it: OpenAPI v3 checks, list-map keys, CEL rules, ObjectMeta checks.
#pragma once

#include "core/api/errors.hpp"
#include "core/api/kinds.hpp"

#include <string>
#include <string_view>
#include <vector>

namespace trainer::core {

// The CRD's openAPIV3Schema for a trainer kind; nullptr for Other.
const json::object* crdSchema(ObjectKind kind);

// The whole embedded CRD summary {"group","version","scope","names","schema"}; nullptr for Other.
const json::object* crdInfo(ObjectKind kind);

// Structural defaulting of a TrainJob / TrainingRuntime / ClusterTrainingRuntime, as the API
// server does on CREATE and UPDATE: a default applies where the field is absent (or null and
// not nullable) and its parent object exists; other nulls of non-nullable fields are pruned.
// A cluster-scoped object loses metadata.namespace (the API server clears it). Other kinds: no-op.
void applyDefaults(json::object& obj);

// The same structural defaulting with any CRD's openAPIV3Schema (a CRD created by a client).
void applySchemaDefaults(json::object& obj, const json::object& openApiV3Schema);

// OpenAPI schema, CEL (`oldObj` given = UPDATE; transition rules only then) and ObjectMeta
// validation of a trainer object. Messages read like the API server's. Other kinds: no errors.
Diagnostics validateSchema(const json::object& obj, const json::object* oldObj = nullptr);
// The same, without copying `obj`: root-level rules see it moved into a json::value and back
// (the admission path, which owns the object it checks).
Diagnostics validateSchemaInPlace(json::object& obj, const json::object* oldObj = nullptr);

// Every distinct x-kubernetes-validations rule string in the embedded schemas.
std::vector<std::string> celRulesInSchemas();

// Whether the CEL table has a predicate for this exact rule string.
bool celRuleImplemented(std::string_view rule);

}  // namespace trainer::core
