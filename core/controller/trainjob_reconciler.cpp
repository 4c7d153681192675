#include "core/controller/trainjob_reconciler.hpp"

#include "core/api/admission.hpp"
#include "core/api/kinds.hpp"
#include "core/api/overlay_reader.hpp"
#include "core/api/read_error_latch.hpp"
#include "core/plugin/crash_context.hpp"
#include "core/plugin/pipeline.hpp"
#include "core/runtime/info_builder.hpp"

#include <algorithm>

namespace trainer::core::controller {

namespace {

const json::object* objectAt(const json::object& o, std::string_view k) {
    auto* v = o.if_contains(k);
    return v && v->is_object() ? &v->get_object() : nullptr;
}

std::string stringAt(const json::object* o, std::string_view k) {
    auto* v = o ? o->if_contains(k) : nullptr;
    return v && v->is_string() ? std::string(v->get_string()) : std::string();
}

bool isTrue(const json::object* c) { return c && stringAt(c, "status") == "True"; }

int64_t int64At(const json::object* o, std::string_view k) {
    auto* v = o ? o->if_contains(k) : nullptr;
    if (v && v->is_int64()) return v->get_int64();
    return v && v->is_uint64() ? static_cast<int64_t>(v->get_uint64()) : 0;
}

// metav1.Condition's observedGeneration on the condition of `type`.
void setObservedGeneration(json::object& status, std::string_view type, int64_t generation) {
    auto* conds = status.if_contains("conditions");
    if (!conds || !conds->is_array()) return;
    for (auto& c : conds->get_array())
        if (c.is_object() && stringAt(&c.get_object(), "type") == type) c.get_object()["observedGeneration"] = generation;
}

std::string joinErrors(const ErrorList& errors) {
    std::string out;
    for (auto const& e : errors) {
        if (!out.empty()) out += "; ";
        out += e.path.empty() ? e.message : e.path + ": " + e.message;
    }
    return out;
}

// How a failed resolve or build shows up in the Created condition.
std::string_view failureReason(const ErrorList& resolveErrors) {
    for (auto const& e : resolveErrors)
        if (e.message.find("not found") != std::string::npos) return kReasonRuntimeNotFound;
    return kReasonResourcesCreationFailed;
}

}  // namespace

const json::object* findCondition(const json::object& status, std::string_view type) {
    auto* conds = status.if_contains("conditions");
    if (!conds || !conds->is_array()) return nullptr;
    for (auto const& c : conds->get_array())
        if (c.is_object() && stringAt(&c.get_object(), "type") == type) return &c.get_object();
    return nullptr;
}

void setCondition(json::object& status, std::string_view type, std::string_view condStatus, std::string_view reason,
                  std::string_view message, Clock::time_point now) {
    auto& conds = status["conditions"];
    if (!conds.is_array()) conds = json::array();
    for (auto& c : conds.get_array()) {
        if (!c.is_object() || stringAt(&c.get_object(), "type") != type) continue;
        auto& o = c.get_object();
        if (stringAt(&o, "status") != condStatus) {
            o["status"] = condStatus;
            o["lastTransitionTime"] = formatRfc3339(now);
        }
        o["reason"] = reason;
        o["message"] = message;
        return;
    }
    conds.get_array().push_back(json::object{{"type", type},
                                             {"status", condStatus},
                                             {"lastTransitionTime", formatRfc3339(now)},
                                             {"reason", reason},
                                             {"message", message}});
}

bool removeCondition(json::object& status, std::string_view type) {
    auto* conds = status.if_contains("conditions");
    if (!conds || !conds->is_array()) return false;
    auto& a = conds->get_array();
    auto it = std::find_if(a.begin(), a.end(),
                           [&](const json::value& c) { return c.is_object() && stringAt(&c.get_object(), "type") == type; });
    if (it == a.end()) return false;
    a.erase(it);
    if (a.empty()) status.erase("conditions");
    return true;
}

bool isFinished(const json::object& status) {
    return isTrue(findCondition(status, "Complete")) || isTrue(findCondition(status, "Failed"));
}

TrainJobReconciler::TrainJobReconciler(Store& store, const PluginRegistry& registry, const Framework& framework,
                                       const Clock& clock)
    : store_(store), registry_(registry), framework_(framework), clock_(clock),
      events_(store, clock, std::string(kTrainJobEventComponent)) {}

ReconcileResult TrainJobReconciler::reconcile(const ObjectKey& key, const log::Logger& log) {
    TrainJobScope working(key.ns, key.name);  // crash reports and /readyz name it
    try {
        return reconcileImpl(key, log);
    } catch (const std::exception& e) {
        return ReconcileResult{std::string("internal error: ") + e.what(), false, std::nullopt};
    }
}

// What one reconcile works on; its steps below change `status` and add to `errors`.
struct TrainJobReconciler::Pass {
    const json::object& trainJob;
    const json::object& spec;      // an empty object when the TrainJob has none
    const json::object* metadata;  // null when it has none
    const json::object prevStatus;
    json::object status;
    Clock::time_point now;
    std::vector<std::string> errors;
    // The children this reconcile applied, as the store answered: what the status hooks read
    // of them (their own write read back, with no store read or parse; a later change of a
    // child is another write, whose event reconciles again: own_writes.hpp).
    ObjectSet applied;
};

namespace {

const json::object kNoSpec;

}  // namespace

ReconcileResult TrainJobReconciler::reconcileImpl(const ObjectKey& key, const log::Logger& log) {
    ReconcileResult result;
    auto current = store_.get(key);
    if (current.failed()) return readFailed(readFailureMessage(key, current.message));
    if (current.notFound()) return result;  // deleted: the store's GC removed the children
    const json::object& trainJob = current.object;
    // Every read of the build and of the status hooks goes through this: after a failed one,
    // nothing built or mapped from what was read is applied or written.
    ReadErrorLatch cluster(store_);
    const json::object* spec = objectAt(trainJob, "spec");
    std::string managedBy = stringAt(spec, "managedBy");
    if (!managedBy.empty() && managedBy != kTrainJobManagedBy) {
        log.debug("Skipping TrainJob managed by another controller", {{"managedBy", managedBy}});
        return result;
    }
    const json::object* prevStatus = objectAt(trainJob, "status");
    Pass p{trainJob, spec ? *spec : kNoSpec, objectAt(trainJob, "metadata"), prevStatus ? *prevStatus : json::object(), {}, {}, {}, {}};
    p.status = p.prevStatus;
    if (auto guarded = crashGuard(trainJob, p.status, log)) return *guarded;
    // Recorded until this reconcile ends: a fatal signal in a hook marks the TrainJob next time.
    std::optional<InFlightSlots::Claim> inFlight;
    if (slots_) inFlight.emplace(*slots_, stringAt(p.metadata, "uid"), key.ns, key.name, int64At(p.metadata, "generation"));
    p.now = clock_.now();

    const std::string runtimeKind = registryKey(trainJob);
    const bool supported = runtimeKind == "TrainingRuntime." + std::string(kTrainerGroup) ||
                           runtimeKind == "ClusterTrainingRuntime." + std::string(kTrainerGroup);
    if (!supported)
        setCondition(p.status, "Failed", "True", "TrainingRuntimeNotSupported", "unsupported runtime: " + runtimeKind, p.now);
    else if (!isFinished(p.status))  // status: prevStatus less a stale PluginCrashed mark
        if (auto failed = buildAndApply(p, key, cluster, log)) return readFailed(*failed);
    const bool suspended = markSuspension(p);
    // Status from the plugins on every reconcile of a supported runtime, as upstream's
    // setTrainJobStatus runs even when building failed (pkg/controller/trainjob_controller.go):
    // a JobSet that finishes still reaches the TrainJob when a later build cannot succeed.
    if (supported)
        if (auto failed = mapPluginStatus(p, cluster)) return readFailed(*failed);
    enforceDeadline(p, suspended, result, log);
    writeStatus(p, result, log);
    for (auto const& e : p.errors) result.error += (result.error.empty() ? "" : "; ") + e;
    return result;
}

// The build and its children (the runtime snapshot first, whether or not the build succeeded,
// as upstream writes it before building; with the built objects in one applyAll: one
// transaction on the embedded store). A read that failed is returned, and nothing is applied.
std::optional<std::string> TrainJobReconciler::buildAndApply(Pass& p, const ObjectKey& key, ReadErrorLatch& cluster,
                                                             const log::Logger& log) {
    ReconcileBuild b = buildTrainJob(framework_, p.trainJob, cluster);
    if (auto failed = cluster.firstError()) return failed;
    std::vector<json::object> children;
    if (b.snapshot) children.push_back(std::move(*b.snapshot));
    if (b.diagnostics.ok())
        children.insert(children.end(), std::make_move_iterator(b.objects.begin()), std::make_move_iterator(b.objects.end()));
    std::string failure = applyObjects(children, key, log, p.applied);
    if (failure.empty() && !b.diagnostics.ok()) failure = joinErrors(b.diagnostics.errors);
    for (auto const& w : b.diagnostics.warnings) log.warn(w.message, {{"path", w.path}});
    if (failure.empty()) {
        removeCondition(p.status, kCreatedCondition);
        return std::nullopt;
    }
    auto reason = b.runtimeResolved ? kReasonResourcesCreationFailed : failureReason(b.diagnostics.errors);
    events_.record(p.trainJob, "Warning", kReasonResourcesCreationFailed, "Reconciling",
                   "TrainJob resources reconciliation failed: " + failure);
    setCondition(p.status, kCreatedCondition, "False", reason, failure, p.now);
    p.errors.push_back(failure);
    return std::nullopt;
}

// The TrainJobStatus plugins' status, keeping a DeadlineExceeded failure this controller set.
// A read that failed is returned, and the status is left as it was.
std::optional<std::string> TrainJobReconciler::mapPluginStatus(Pass& p, ReadErrorLatch& cluster) {
    json::object withStatus = p.trainJob;
    if (p.status.empty()) withStatus.erase("status");
    else withStatus["status"] = p.status;
    Diagnostics sd;
    OverlayReader reads(p.applied, cluster);
    auto mapped = framework_.status(withStatus, reads, sd);
    if (auto failed = cluster.firstError()) return failed;
    if (auto s = std::move(mapped)) {
        json::object next = std::move(*s);
        if (auto* dl = findCondition(p.prevStatus, "Failed"); dl && stringAt(dl, "reason") == "DeadlineExceeded") {
            json::object copy = *dl;
            removeCondition(next, "Failed");
            auto& conds = next["conditions"];
            if (!conds.is_array()) conds = json::array();
            conds.get_array().push_back(std::move(copy));
        }
        p.status = std::move(next);
    }
    if (!sd.ok()) p.errors.push_back(joinErrors(sd.errors));
    return std::nullopt;
}

// spec.activeDeadlineSeconds: past it, the children are deleted and then the TrainJob Failed;
// before it, the reconcile comes back when it passes.
void TrainJobReconciler::enforceDeadline(Pass& p, bool suspended, ReconcileResult& result, const log::Logger& log) {
    auto* ads = p.spec.if_contains("activeDeadlineSeconds");
    if (!ads || !ads->is_int64() || ads->get_int64() <= 0 || isFinished(p.status) || suspended) return;
    auto start = parseRfc3339(stringAt(p.metadata, "creationTimestamp")).value_or(p.now);
    if (auto* resumed = findCondition(p.status, "Suspended"); resumed && stringAt(resumed, "status") == "False")
        if (auto t = parseRfc3339(stringAt(resumed, "lastTransitionTime"))) start = *t;
    auto deadline = start + std::chrono::seconds(ads->get_int64());
    if (p.now <= deadline) {
        result.requeueAfter = std::max<Clock::duration>(deadline - p.now, std::chrono::seconds(1));
        return;
    }
    // Failed is recorded once the children are gone: a finished TrainJob is not visited
    // again, so a deletion (or the list it needs) that failed is retried first.
    if (auto err = deleteStatusChildren(p.trainJob); !err.empty()) {
        p.errors.push_back(err);
    } else {
        setCondition(p.status, "Failed", "True", "DeadlineExceeded", "TrainJob exceeded its active deadline", p.now);
        log.info("TrainJob exceeded its active deadline");
    }
}

// The status, when it changed; a conflict comes back as a requeue.
void TrainJobReconciler::writeStatus(Pass& p, ReconcileResult& result, const log::Logger& log) {
    if (p.status == p.prevStatus) return;
    json::object next = p.trainJob;
    next["status"] = p.status;
    auto r = store_.updateStatus(next);
    if (r.status == StoreStatus::Conflict) {
        log.info("Status update conflicted; retrying", {{"message", r.message}});
        result.requeue = true;
    } else if (!r.ok()) {
        p.errors.push_back("updating status: " + r.message);
    }
}

// Suspended / Resumed; whether the TrainJob is suspended.
bool TrainJobReconciler::markSuspension(Pass& p) {
    auto suspendIt = p.spec.if_contains("suspend");
    const bool suspended = suspendIt && suspendIt->is_bool() && suspendIt->get_bool();
    if (suspended) setCondition(p.status, "Suspended", "True", "Suspended", "TrainJob is suspended", p.now);
    else if (isTrue(findCondition(p.status, "Suspended")))
        setCondition(p.status, "Suspended", "False", "Resumed", "TrainJob is resumed", p.now);
    return suspended;
}


void TrainJobReconciler::useInFlightSlots(InFlightSlots* slots, const log::Logger& log) {
    slots_ = slots;
    if (!slots_) return;
    for (auto const& c : slots_->crashed()) {
        auto current = store_.get(ObjectKey{std::string(kTrainerApiVersion), "TrainJob", c.ns, c.name});
        if (current.failed()) {  // unknown whether it is gone: the record stays for its reconcile
            log.error("Reading a TrainJob the previous operator process crashed on failed; its record is kept",
                      {{"trainJob", json::object{{"name", c.name}, {"namespace", c.ns}}}, {"error", current.message}});
            continue;
        }
        const json::object* md = current.found() ? objectAt(current.object, "metadata") : nullptr;
        const bool same = md && stringAt(md, "uid") == c.uid;
        const bool marked = same && !c.plugin.empty() && int64At(md, "generation") == c.generation;
        log.error("The previous operator process died of a fatal signal while reconciling a TrainJob",
                  {{"trainJob", json::object{{"name", c.name}, {"namespace", c.ns}}},
                   {"plugin", c.plugin},
                   {"hook", c.hook},
                   {"signal", signalName(c.signal)},
                   {"generation", c.generation},
                   {"action", marked           ? "marked Failed (PluginCrashed); not built again until its spec changes"
                              : !same          ? "none: the TrainJob is gone"
                              : c.plugin.empty() ? "none: no plugin hook was running; it is reconciled again"
                                                 : "none: its spec changed since; it is built again"}});
        if (!marked) slots_->resolve(c.uid);
    }
}

std::optional<ReconcileResult> TrainJobReconciler::crashGuard(const json::object& trainJob, json::object& status,
                                                              const log::Logger& log) {
    const json::object* md = objectAt(trainJob, "metadata");
    const int64_t generation = int64At(md, "generation");
    if (auto* failed = findCondition(status, "Failed");
        isTrue(failed) && stringAt(failed, "reason") == kReasonPluginCrashed) {
        if (int64At(failed, "observedGeneration") == generation) return ReconcileResult{};
        log.info("The spec changed since a plugin crashed the operator building this TrainJob; building it again",
                 {{"generation", generation}});
        removeCondition(status, "Failed");
    }
    const std::string uid = stringAt(md, "uid");
    auto crash = slots_ ? slots_->crashOf(uid) : std::nullopt;
    if (!crash) return std::nullopt;
    if (crash->generation != generation || crash->plugin.empty()) {  // an older spec crashed; this one may not
        slots_->resolve(uid);
        return std::nullopt;
    }
    const std::string message = describeCrash(*crash) + "; it is not built again until its spec changes";
    setCondition(status, "Failed", "True", kReasonPluginCrashed, message, clock_.now());
    setObservedGeneration(status, "Failed", generation);
    json::object next = trainJob;
    next["status"] = status;
    ReconcileResult result;
    auto r = store_.updateStatus(next);
    if (r.status == StoreStatus::Conflict) {
        result.requeue = true;
    } else if (!r.ok()) {
        result.error = "updating status: " + r.message;
    } else {
        slots_->resolve(uid);
        events_.record(trainJob, "Warning", kReasonPluginCrashed, "Reconciling", message);
        log.info("Marked the TrainJob failed: a plugin crashed the operator building it",
                 {{"plugin", crash->plugin}, {"hook", crash->hook}, {"signal", signalName(crash->signal)}});
    }
    return result;
}

std::string TrainJobReconciler::applyObjects(const std::vector<json::object>& objects, const ObjectKey& trainJob,
                                             const log::Logger& log, ObjectSet& applied) {
    if (objects.empty()) return {};
    auto all = store_.applyAll(objects, kFieldManager);
    for (size_t i = 0; i < all.applied.size(); ++i) {
        auto& r = all.applied[i];
        if (r.outcome != ApplyOutcome::Unchanged) {
            auto k = keyOf(objects[i]);
            if (ownWrites_) ownWrites_->record(k, r.object, trainJob);
            log.info("Applied object", {{"object", k.display()}, {"outcome", toString(r.outcome)}});
        }
        if (all.ok()) applied.put(std::move(r.object));
    }
    if (all.failed) return keyOf(objects[*all.failed]).display() + ": " + all.failure.message;
    return {};
}

std::string TrainJobReconciler::deleteStatusChildren(const json::object& trainJob) {
    auto key = keyOf(trainJob);
    std::string uid = stringAt(objectAt(trainJob, "metadata"), "uid");
    std::string error;
    for (auto const& p : registry_.plugins()) {
        if (!p->implements(Hook::TrainJobStatus)) continue;
        for (auto const& w : p->watches) {
            if (w.mode != TRN_WATCH_OWNED) continue;
            auto children = store_.list(w.apiVersion, w.kind, key.ns);
            if (!children.ok()) {
                error = "listing " + w.apiVersion + " " + w.kind + " to delete: " + *children.error;
                continue;
            }
            for (auto const& child : children.value) {
                const json::object* cmd = objectAt(child, "metadata");
                auto* refs = cmd ? cmd->if_contains("ownerReferences") : nullptr;
                bool owned = false;
                if (refs && refs->is_array())
                    for (auto const& r : refs->get_array())
                        if (r.is_object() && stringAt(&r.get_object(), "uid") == uid) owned = true;
                if (!owned) continue;
                auto r = store_.remove(keyOf(child));
                if (!r.ok() && r.status != StoreStatus::NotFound) error = r.message;
            }
        }
    }
    return error;
}

ReconcileResult readFailed(std::string message) {
    // An error result: the queue retries with backoff and the controller logs it.
    return ReconcileResult{"the store could not be read, nothing was changed; retrying: " + std::move(message), false,
                           std::nullopt};
}

ReconcileResult RuntimeReconciler::reconcile(const ObjectKey& key, const log::Logger& log) {
    ReconcileResult result;
    auto read = store_.get(key);
    if (read.failed()) return readFailed(readFailureMessage(key, read.message));
    if (read.notFound()) return result;
    const json::object* obj = &read.object;
    auto* md = obj->if_contains("metadata");
    auto* fins = md && md->is_object() ? md->get_object().if_contains("finalizers") : nullptr;
    if (!fins || !fins->is_array()) return result;
    json::array kept;
    for (auto const& f : fins->get_array())
        if (!(f.is_string() && f.get_string() == kLegacyRuntimeFinalizer)) kept.push_back(f);
    if (kept.size() == fins->get_array().size()) return result;
    json::object next = *obj;
    auto& nmd = next["metadata"].get_object();
    if (kept.empty()) nmd.erase("finalizers");
    else nmd["finalizers"] = std::move(kept);
    auto r = store_.update(next);
    if (r.status == StoreStatus::Conflict) result.requeue = true;
    else if (!r.ok()) result.error = r.message;
    else log.info("Removed the legacy finalizer", {{"finalizer", kLegacyRuntimeFinalizer}});
    return result;
}

}  // namespace trainer::core::controller
