#include "core/controller/admission_control.hpp"

#include "core/api/admission.hpp"
#include "core/api/read_error_latch.hpp"
#include "core/api/read_memo.hpp"
#include "core/api/schema.hpp"
#include "core/plugin/pipeline.hpp"
#include "core/server/webhook.hpp"
#include "core/store/store.hpp"

namespace trainer::core::controller {

Diagnostics validateTrainJob(const Framework& framework, const json::object& trainJob, const json::object* old,
                             const ClusterReader& cluster) {
    Diagnostics d = validateSchema(trainJob, old);
    if (!d.ok()) return d;
    d.append(admitTrainJob(framework, trainJob, old, cluster));
    return d;
}

Diagnostics validateRuntimeObject(const Framework& framework, const json::object& runtime, const json::object* old) {
    Diagnostics d = validateRuntime(runtime, old == nullptr, old);
    if (!d.ok()) return d;
    json::object policy;
    if (auto* spec = runtime.if_contains("spec"); spec && spec->is_object())
        for (auto const* member : {"mlPolicy", "podGroupPolicy"})
            if (auto* v = spec->as_object().if_contains(member)) policy[member] = *v;
    static const json::object kEmpty;
    auto* md = runtime.if_contains("metadata");
    json::object info{{"runtime", json::object{{"kind", runtime.contains("kind") ? runtime.at("kind") : json::value("")},
                                               {"metadata", md ? *md : json::value(kEmpty)}}},
                      {"runtimePolicy", std::move(policy)}};
    d.append(framework.checkPolicies(info));
    return d;
}

AdmissionResult admit(const Framework& framework, json::object& obj, const json::object* old,
                      const ClusterReader& clusterState, std::chrono::system_clock::time_point now) {
    AdmissionResult r;
    ReadMemo memo(clusterState);  // each object read once per decision (read_memo.hpp)
    ReadErrorLatch cluster(memo);  // a failed read makes the answer "try again", not "denied"
    auto kind = kindOf(obj);
    if (kind == ObjectKind::Other) return r;
    applyDefaults(obj);
    if (kind == ObjectKind::TrainJob) stampRuntimePatchTimes(obj, old, formatRfc3339(now));
    r.schema = validateSchemaInPlace(obj, old);
    if (!r.schema.ok()) return r;
    switch (kind) {
    case ObjectKind::TrainJob:
        r.webhookName = server::kValidateTrainJobName;
        r.webhook = admitTrainJob(framework, obj, old, cluster);
        break;
    case ObjectKind::TrainingRuntime:
    case ObjectKind::ClusterTrainingRuntime:
        r.webhookName = kind == ObjectKind::TrainingRuntime ? server::kValidateTrainingRuntimeName
                                                            : server::kValidateClusterTrainingRuntimeName;
        r.webhook = validateRuntimeObject(framework, obj, old);
        break;
    case ObjectKind::Other:
        break;
    }
    r.readError = cluster.firstError();
    return r;
}

Diagnostics admitObject(const Framework& framework, json::object& obj, const json::object* old,
                        const ClusterReader& cluster, std::chrono::system_clock::time_point now) {
    return admit(framework, obj, old, cluster, now).all();
}

}  // namespace trainer::core::controller
