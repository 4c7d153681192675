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

// Runs the whole admission chain on `obj` in place (defaults and mutations applied).
// Objects that are not trainer kinds pass unchanged. `old` is the stored object on UPDATE.
Diagnostics admitObject(const Framework& framework, json::object& obj, const json::object* old,
                        const ClusterReader& cluster, std::chrono::system_clock::time_point now);

// The validating webhook of TrainJob: schema (with old) then admitTrainJob.
Diagnostics validateTrainJob(const Framework& framework, const json::object& trainJob, const json::object* old,
                             const ClusterReader& cluster);
// The validating webhook of TrainingRuntime / ClusterTrainingRuntime: validateRuntime then the
// policy claims of the loaded plugins.
Diagnostics validateRuntimeObject(const Framework& framework, const json::object& runtime, const json::object* old);

// A ClusterReader that sees `overlay` first and `base` behind it (apply's inputs over the store).
class OverlayReader : public ClusterReader {
public:
    OverlayReader(const ObjectSet& overlay, const ClusterReader& base) : overlay_(overlay), base_(base) {}
    std::optional<json::object> get(const ObjectKey& key) const override;
    std::vector<json::object> list(const std::string& apiVersion, const std::string& kind,
                                   const std::optional<std::string>& ns = std::nullopt) const override;

private:
    const ObjectSet& overlay_;
    const ClusterReader& base_;
};

}  // namespace trainer::core::controller
