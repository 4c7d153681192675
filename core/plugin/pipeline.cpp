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
    // The Info is the runtime's skeleton with this TrainJob in it (info_skeleton.hpp); the
    // validators' text is spliced from the skeleton's, and the Info itself is made only when
    // the caller takes it.
    Diagnostics infoDiag;
    auto skeleton = fw.skeletons().get(runtime, trainJob, infoDiag);
    // Upstream ignores Info build errors at admission; we report them, since the build
    // would fail on them anyway and the user learns it before the TrainJob is stored.
    diag.append(infoDiag);
    if (!diag.ok() || !skeleton) return diag;
    json::object admission{{"operation", oldTrainJob ? "UPDATE" : "CREATE"}};
    if (oldTrainJob) admission["oldTrainJob"] = *oldTrainJob;
    diag.append(fw.validate(*skeleton, trainJob, admission, cluster));
    if (admittedInfo && diag.ok()) *admittedInfo = assembleInfo(*skeleton, trainJob);
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
    json::object info;
    if (reuse) {
        info = std::move(*admittedInfo);
    } else if (!snapshotFound) {
        // The live runtime, shared by the reader: its skeleton serves every TrainJob of it.
        if (auto skeleton = fw.skeletons().get(runtime, trainJob, out.diagnostics)) info = assembleInfo(*skeleton, trainJob);
    } else {
        info = buildInfo(trainJob, *runtime, out.diagnostics);  // the snapshot's, parsed for this TrainJob
    }
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
