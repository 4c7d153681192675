#include "core/plugin/pipeline.hpp"

#include "core/api/admission.hpp"
#include "core/plugin/crash_context.hpp"
#include "core/runtime/info_builder.hpp"

namespace trainer::core {

Diagnostics admitTrainJob(const Framework& fw, const json::object& trainJob, const json::object* oldTrainJob,
                          const ClusterReader& cluster, json::object* admittedInfo) {
    const auto key = keyOf(trainJob);
    TrainJobScope working(key.ns, key.name);  // crash reports and /readyz name it
    Diagnostics diag = validateTrainJobRef(trainJob, cluster);
    if (!diag.ok()) return diag;
    Diagnostics resolveDiag;
    auto runtime = resolveRuntime(trainJob, cluster, resolveDiag, /*useSnapshot=*/false);
    if (!runtime) {
        diag.append(resolveDiag);
        return diag;
    }
    Diagnostics infoDiag;
    json::object info = buildInfo(trainJob, *runtime, infoDiag);
    // Upstream ignores Info build errors at admission; we report them, since the build
    // would fail on them anyway and the user learns it before the TrainJob is stored.
    diag.append(infoDiag);
    if (!diag.ok()) return diag;
    json::object admission{{"operation", oldTrainJob ? "UPDATE" : "CREATE"}};
    if (oldTrainJob) admission["oldTrainJob"] = *oldTrainJob;
    info["admission"] = std::move(admission);
    diag.append(fw.validate(info, cluster));
    if (admittedInfo && diag.ok()) {
        info.erase("admission");  // the last member: the others keep their order
        *admittedInfo = std::move(info);
    }
    return diag;
}

ReconcileBuild buildTrainJob(const Framework& fw, const json::object& trainJob, const ClusterReader& cluster,
                             json::object* admittedInfo) {
    ReconcileBuild out;
    const auto key = keyOf(trainJob);
    TrainJobScope working(key.ns, key.name);  // crash reports and /readyz name it
    // The runtime's resolution reads the snapshot ConfigMap once and says whether it exists: only
    // a snapshot known to be absent is written (one that could not be read is an error, so an
    // existing snapshot is never rewritten).
    bool snapshotFound = false;
    auto runtime = resolveRuntime(trainJob, cluster, out.diagnostics, /*useSnapshot=*/true, &snapshotFound);
    if (!runtime) return out;
    out.runtimeResolved = true;
    if (!snapshotFound) out.snapshot = runtimeSnapshot(trainJob, *runtime);
    const bool reuse = admittedInfo && !admittedInfo->empty() && !snapshotFound;
    json::object info = reuse ? std::move(*admittedInfo) : buildInfo(trainJob, *runtime, out.diagnostics);
    if (!out.diagnostics.ok()) return out;
    auto r = fw.build(std::move(info), cluster);
    out.diagnostics.append(r.diagnostics);
    // The snapshot stays even when the build fails: the TrainJob is frozen to the runtime it
    // first resolved, as upstream writes the snapshot before building (pkg/runtime/core/clustertrainingruntime.go).
    if (out.diagnostics.ok()) out.objects = std::move(r.objects);
    out.info = std::move(r.info);
    return out;
}

}  // namespace trainer::core
