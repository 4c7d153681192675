// What one TrainJob goes through, shared by render/validate/apply and the controller:
// admission (schema + webhook rules + validation plugins) and one reconcile's build.
#pragma once

#include "core/api/errors.hpp"
#include "core/api/object_set.hpp"
#include "core/plugin/framework.hpp"

#include <boost/json.hpp>

#include <optional>
#include <vector>

namespace trainer::core {

// Admission of a TrainJob as the validating webhook does it (upstream ValidateCreate/ValidateUpdate in
// https://github.com/kubeflow/trainer/blob/8c0f5059bd51ec3ba6d6a6a7b2e1471de7bc13b3/pkg/webhooks/trainjob_webhook.go):
// runtime reference, then an Info built without Enforce phases, then every active CustomValidation plugin.
// `oldTrainJob` is set on UPDATE. When `admittedInfo` is given and the TrainJob is admitted, it
// receives that Info (without its `admission` member) for buildTrainJob.
Diagnostics admitTrainJob(const Framework& fw, const json::object& trainJob, const json::object* oldTrainJob,
                          const ClusterReader& cluster, json::object* admittedInfo = nullptr);

struct ReconcileBuild {
    std::vector<json::object> objects;          // what the plugins built, in plugin order
    json::object info;                          // the Info after the phases (empty when none was built)
    // The runtime snapshot ConfigMap to apply first, if new; set whenever the runtime resolved,
    // even when the build then failed.
    std::optional<json::object> snapshot;
    Diagnostics diagnostics;
    bool runtimeResolved = false;  // false: `diagnostics` says why the runtime could not be resolved
};

// One reconcile's build (upstream NewObjects in
// https://github.com/kubeflow/trainer/blob/8c0f5059bd51ec3ba6d6a6a7b2e1471de7bc13b3/pkg/runtime/core/trainingruntime.go,
// snapshot.go beside it): resolve the runtime (snapshot first), Info, phases.
// `admittedInfo`, admitTrainJob's from the same cluster state, is the Info when the TrainJob has
// no runtime snapshot yet (it was built from the same live runtime), instead of a second one.
ReconcileBuild buildTrainJob(const Framework& fw, const json::object& trainJob, const ClusterReader& cluster,
                             json::object* admittedInfo = nullptr);

}  // namespace trainer::core
