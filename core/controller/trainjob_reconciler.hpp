// The TrainJob reconciler (upstream Reconcile in
// https://github.com/kubeflow/trainer/blob/8c0f5059bd51ec3ba6d6a6a7b2e1471de7bc13b3/pkg/controller/trainjob_controller.go)
// and the runtime reconcilers that only drop the legacy finalizer (trainingruntime_controller.go,
// clustertrainingruntime_controller.go beside it). One reconcile reads the store, runs the plugin
// pipeline, applies the children with field manager "trainer" and writes status only when it changed.
//
// Deliberate difference from upstream: where upstream leaves status empty (runtime missing,
// plugin or build error), the TrainJob gets condition `Created=False` with reason
// `TrainingRuntimeNotFound` or `TrainJobResourcesCreationFailed` and the error as message;
// the condition is removed once a build succeeds.
//
// A read that fails (store busy past its timeout, I/O error, corrupt page) is never taken for
// "absent": that reconcile applies, deletes, records and writes nothing (no child rebuilt, no
// key regenerated, no snapshot rewritten) and returns an error, retried with backoff.
//
// Poison pill: a TrainJob whose build killed the previous process with a fatal signal in a
// plugin hook (in_flight_slots.hpp) gets `Failed=True` with reason `PluginCrashed`, a message
// naming the plugin, hook and signal, and `observedGeneration`; no hook runs for it again
// until its generation changes, when the condition is removed and it is built again.
#pragma once

#include "core/api/read_error_latch.hpp"
#include "core/controller/clock.hpp"
#include "core/controller/events.hpp"
#include "core/controller/in_flight_slots.hpp"
#include "core/controller/own_writes.hpp"
#include "core/log/log.hpp"
#include "core/plugin/framework.hpp"
#include "core/plugin/registry.hpp"
#include "core/store/store.hpp"

#include <optional>
#include <string>
#include <string_view>

namespace trainer::core::controller {

inline constexpr std::string_view kTrainJobManagedBy = "trainer.kubeflow.org/trainjob-controller";
inline constexpr std::string_view kFieldManager = "trainer";
inline constexpr std::string_view kLegacyRuntimeFinalizer = "trainer.kubeflow.org/resource-in-use";
inline constexpr std::string_view kTrainJobEventComponent = "trainer-trainjob-controller";
// Our own condition for failures upstream leaves silent.
inline constexpr std::string_view kCreatedCondition = "Created";
inline constexpr std::string_view kReasonRuntimeNotFound = "TrainingRuntimeNotFound";
inline constexpr std::string_view kReasonResourcesCreationFailed = "TrainJobResourcesCreationFailed";
// Failed=True: the TrainJob's build crashed the operator in a plugin hook (not built again until its spec changes).
inline constexpr std::string_view kReasonPluginCrashed = "PluginCrashed";

// What a reconcile asks of its queue: an error (retried with backoff), a plain retry with
// backoff (`requeue`, e.g. a write conflict), or a visit after `requeueAfter`.
struct ReconcileResult {
    std::string error;
    bool requeue = false;
    std::optional<Clock::duration> requeueAfter;
};

// A read of the store failed (read_result.hpp): the reconcile stops before it writes, applies,
// deletes or regenerates anything, and this error result has the queue retry with backoff.
ReconcileResult readFailed(std::string message);

// apimachinery meta.SetStatusCondition on `status.conditions`: lastTransitionTime changes only
// when `status` flips; reason and message always follow.
void setCondition(json::object& status, std::string_view type, std::string_view condStatus, std::string_view reason,
                  std::string_view message, Clock::time_point now);
// The condition of `type` in `status.conditions`, or nullptr.
const json::object* findCondition(const json::object& status, std::string_view type);
// Removes the condition of `type`; true when one was there.
bool removeCondition(json::object& status, std::string_view type);
// Complete=True or Failed=True.
bool isFinished(const json::object& status);

class TrainJobReconciler {
public:
    TrainJobReconciler(Store& store, const PluginRegistry& registry, const Framework& framework, const Clock& clock);
    // One reconcile of the TrainJob at `key`; never throws.
    ReconcileResult reconcile(const ObjectKey& key, const log::Logger& log);
    // Records each reconcile in `slots` and acts on the crashes it holds (null: off). Logs each
    // crash found and forgets those of TrainJobs that are gone. Call before the first reconcile.
    void useInFlightSlots(InFlightSlots* slots, const log::Logger& log);
    // Records in `writes` each child this reconciler creates or changes (own_writes.hpp; null:
    // off, every event of a child queues its TrainJob). Call before the first reconcile.
    void useOwnWrites(OwnWrites* writes) { ownWrites_ = writes; }

private:
    struct Pass;  // one reconcile's working state (trainjob_reconciler.cpp)
    // Its steps, in order: the build and its children, Suspended, the status plugins, the
    // active deadline, the status write.
    ReconcileResult reconcileImpl(const ObjectKey& key, const log::Logger& log);
    std::optional<std::string> buildAndApply(Pass& p, const ObjectKey& key, ReadErrorLatch& cluster, const log::Logger& log);
    static bool markSuspension(Pass& p);
    std::optional<std::string> mapPluginStatus(Pass& p, ReadErrorLatch& cluster);
    void enforceDeadline(Pass& p, bool suspended, ReconcileResult& result, const log::Logger& log);
    void writeStatus(Pass& p, ReconcileResult& result, const log::Logger& log);
    // The poison-pill guard: a result when the TrainJob must not be built (marked now, or
    // marked before for this generation); removes a stale mark from `status`.
    std::optional<ReconcileResult> crashGuard(const json::object& trainJob, json::object& status, const log::Logger& log);
    // Deletes the children of `trainJob` whose status the TrainJobStatus plugins map (owned watches).
    std::string deleteStatusChildren(const json::object& trainJob);
    // Applies `objects` in order with one Store::applyAll (all or none on the embedded store);
    // the first failure as "<object>: <why>", empty when all applied.
    // Each object created or changed is recorded in ownWrites_ for `trainJob` (the status hooks
    // read the children after this, in the same reconcile); when all applied, each as stored is
    // added to `applied`, where the status hooks read it.
    std::string applyObjects(const std::vector<json::object>& objects, const ObjectKey& trainJob,
                             const log::Logger& log, ObjectSet& applied);

    Store& store_;
    const PluginRegistry& registry_;
    const Framework& framework_;
    const Clock& clock_;
    EventRecorder events_;
    InFlightSlots* slots_ = nullptr;
    OwnWrites* ownWrites_ = nullptr;
};

// TrainingRuntime / ClusterTrainingRuntime: removes the legacy finalizer, nothing else.
class RuntimeReconciler {
public:
    explicit RuntimeReconciler(Store& store) : store_(store) {}
    ReconcileResult reconcile(const ObjectKey& key, const log::Logger& log);

private:
    Store& store_;
};

}  // namespace trainer::core::controller
