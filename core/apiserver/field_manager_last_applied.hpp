// The client-side-apply upgrade for manager "kubectl": fields the
// kubectl.kubernetes.io/last-applied-configuration annotation sets to the values live still has
// are not conflicts (lastappliedmanager.go), and that annotation is kept equal to what "kubectl"
// applied (lastappliedupdater.go).
//   https://github.com/kubernetes/kubernetes/blob/master/staging/src/k8s.io/apimachinery/pkg/util/managedfields/internal/lastappliedmanager.go
//   https://github.com/kubernetes/kubernetes/blob/master/staging/src/k8s.io/apimachinery/pkg/util/managedfields/internal/lastappliedupdater.go
// Internal to the field manager (core/apiserver/field_manager.hpp).
#pragma once

#include "core/apiserver/field_manager_layers.hpp"

#include <string_view>

namespace trainer::core::apiserver::smd {

// lastAppliedManager.Apply: applyTracked; when "kubectl"'s apply conflicts only on fields the
// annotation of `live` allows (same apiVersion, keyable, values unchanged), applied again forced,
// else with only the conflicts the annotation does not allow.
ApplyRun applyUpgradingClientSide(const json::value& live, const json::value& applied, const Managers& managers,
                                  const Entry& applier, bool force, const FieldSet& ignored, std::string_view time,
                                  const Shapes& sh);

// lastAppliedUpdater: when `obj` has a non-empty annotation, sets it to `config` (without the
// annotation itself) as json.Encoder writes it: sorted keys, trailing newline.
void syncLastApplied(json::object& obj, const json::object& config);

}  // namespace trainer::core::apiserver::smd
