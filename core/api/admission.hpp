// Admission for the trainer API: what the CRD schema and the trainer webhooks accept,
// the mutating webhook's patch-time stamping, the runtime registry key, and the CLI's resource names.
// Upstream: the webhooks in
// https://github.com/kubeflow/trainer/blob/8c0f5059bd51ec3ba6d6a6a7b2e1471de7bc13b3/pkg/webhooks/trainjob_webhook.go
// (and trainingruntime_webhook.go, clustertrainingruntime_webhook.go beside it).
#pragma once

#include "core/api/errors.hpp"
#include "core/api/kinds.hpp"
#include "core/api/object_set.hpp"
#include "core/api/schema.hpp"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace trainer::core {

inline constexpr std::string_view kAncestorLabel = "trainer.kubeflow.org/trainjob-ancestor-step";
inline constexpr std::string_view kSupportLabel = "trainer.kubeflow.org/support";
inline constexpr std::string_view kWebhookValidationLabel = "trainer.kubeflow.org/webhook-validation";
inline constexpr std::string_view kDeprecationPolicyUrl =
    "https://trainer.kubeflow.org/en/latest/operator-guides/runtime.html#runtime-deprecation-policy";

// Validates a TrainingRuntime / ClusterTrainingRuntime as the API server would on CREATE
// (isCreate) or UPDATE (oldObj = stored object): CRD schema + CEL (validateSchema, always), then
// the runtime webhook (trainingruntime_webhook.go validateReplicatedJobs) unless labelled
// trainer.kubeflow.org/webhook-validation: disabled.
// Expects defaults already applied (applyDefaults), as the API server does before validating.
Diagnostics validateRuntime(const json::object& runtime, bool isCreate, const json::object* oldObj);

// The TrainJob webhook's checks before the plugins (trainjob_webhook.go ValidateCreate/ValidateUpdate,
// then ValidateObjects of pkg/runtime/core/trainingruntime.go and clustertrainingruntime.go): known
// registry key, live runtime exists (exact upstream messages, incl. the `spec.RuntimeRef` path quirk),
// deprecated ClusterTrainingRuntime warning.
Diagnostics validateTrainJobRef(const json::object& trainJob, const ClusterReader& cluster);

// Mutating webhook (trainjob_webhook.go Default): stamps spec.runtimePatches[].time with `nowRfc3339`
// (oldTrainJob = nullptr on CREATE).
void stampRuntimePatchTimes(json::object& trainJob, const json::object* oldTrainJob, std::string_view nowRfc3339);

// "<Kind>.<apiGroup>" from spec.runtimeRef (CRD defaults when absent; just "<Kind>" when the
// group is empty), e.g. "ClusterTrainingRuntime.trainer.kubeflow.org".
std::string registryKey(const json::object& trainJob);

// A kind the CLI can name.
struct ResourceType {
    std::string plural;
    std::string singular;
    std::string kind;
    std::string apiVersion;
    bool namespaced = true;
    std::vector<std::string> shortNames;
};

// Every resource the CLI knows, in a stable order.
const std::vector<ResourceType>& resourceTypes();

// Looks up plural, singular, kind or short name, case-insensitively ("trainjobs", "TrainJob",
// "tj", also "trainjobs.trainer.kubeflow.org").
std::optional<ResourceType> resourceByName(std::string_view name);

// The known name closest to `name` by edit distance ("trainjob" for "trainjbo"); empty if none is close.
std::string suggestResourceName(std::string_view name);

}  // namespace trainer::core
