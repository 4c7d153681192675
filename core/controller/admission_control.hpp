// Admission of trainer objects as the API server plus the trainer webhooks do it, shared by
// `apply` and the webhook server: defaults, the mutating webhook's time stamps, CRD schema and
// CEL rules, the runtime webhook rules with plugin policy claims, and TrainJob admission with
// the plugins (UPDATE semantics when the old object is given).
#pragma once

#include "core/api/errors.hpp"
#include "core/api/object_set.hpp"
#include "core/plugin/framework.hpp"

#include <chrono>

namespace trainer::core::controller {

// Admission as the API server reports it: errors of the CRD schema and CEL rules (a 422 Invalid
// naming the object) apart from a validating webhook's denial (a 403 naming the webhook).
struct AdmissionResult {
    Diagnostics schema;
    Diagnostics webhook;
    std::string webhookName;  // the validating webhook that judged the object, "" for other kinds
    // Set when a read of the cluster failed while judging ("cluster read of ... failed: ..."):
    // the object was neither admitted nor refused, so callers answer an internal error (500)
    // to be retried, not a denial.
    std::optional<std::string> readError;
    bool ok() const { return schema.ok() && webhook.ok() && !readError; }
    Diagnostics all() const {
        Diagnostics d = schema;
        d.append(webhook);
        if (readError && webhook.ok()) d.add("", *readError, ErrorType::Internal);
        return d;
    }
};

// The one admission path (API server, webhooks, CLI): structural defaults, the mutating
// webhook's time stamps, schema and CEL, then the validating webhook with the plugins. `obj` is
// changed in place; objects that are not trainer kinds pass unchanged. `old` is the stored object
// on UPDATE.
AdmissionResult admit(const Framework& framework, json::object& obj, const json::object* old,
                      const ClusterReader& cluster, std::chrono::system_clock::time_point now);

// Runs the whole admission chain on `obj` in place (defaults and mutations applied): admit().all().
// Objects that are not trainer kinds pass unchanged. `old` is the stored object on UPDATE.
Diagnostics admitObject(const Framework& framework, json::object& obj, const json::object* old,
                        const ClusterReader& cluster, std::chrono::system_clock::time_point now);

// The validating webhook of TrainJob: schema (with old) then admitTrainJob.
Diagnostics validateTrainJob(const Framework& framework, const json::object& trainJob, const json::object* old,
                             const ClusterReader& cluster);
// The validating webhook of TrainingRuntime / ClusterTrainingRuntime: validateRuntime then the
// policy claims of the loaded plugins.
Diagnostics validateRuntimeObject(const Framework& framework, const json::object& runtime, const json::object* old);

}  // namespace trainer::core::controller
