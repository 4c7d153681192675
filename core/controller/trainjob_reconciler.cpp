#include "core/controller/trainjob_reconciler.hpp"

#include "core/api/admission.hpp"
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
    try {
        return reconcileImpl(key, log);
    } catch (const std::exception& e) {
        return ReconcileResult{std::string("internal error: ") + e.what(), false, std::nullopt};
    }
}

ReconcileResult TrainJobReconciler::reconcileImpl(const ObjectKey& key, const log::Logger& log) {
    ReconcileResult result;
    auto current = store_.get(key);
    if (!current) return result;  // deleted: the store's GC removed the children
    const json::object& trainJob = *current;
    static const json::object kEmpty;
    const json::object* spec = objectAt(trainJob, "spec");
    const json::object& specRef = spec ? *spec : kEmpty;
    const json::object* md = objectAt(trainJob, "metadata");

    std::string managedBy = stringAt(spec, "managedBy");
    if (!managedBy.empty() && managedBy != kTrainJobManagedBy) {
        log.debug("Skipping TrainJob managed by another controller", {{"managedBy", managedBy}});
        return result;
    }

    const json::object* prevStatusPtr = objectAt(trainJob, "status");
    const json::object prevStatus = prevStatusPtr ? *prevStatusPtr : json::object();
    json::object status = prevStatus;
    auto now = clock_.now();
    std::vector<std::string> errors;

    std::string key_ = registryKey(trainJob);
    const bool supported = key_ == "TrainingRuntime." + std::string(kTrainerGroup) ||
                           key_ == "ClusterTrainingRuntime." + std::string(kTrainerGroup);
    if (!supported) {
        setCondition(status, "Failed", "True", "TrainingRuntimeNotSupported", "unsupported runtime: " + key_, now);
    } else if (!isFinished(prevStatus)) {
        Diagnostics resolveDiag;
        auto runtime = resolveRuntime(trainJob, store_, resolveDiag, /*useSnapshot=*/true);
        ReconcileBuild b;
        if (runtime) b = buildTrainJob(framework_, trainJob, store_);
        else b.diagnostics = resolveDiag;
        // The snapshot first, whether or not the build succeeded (upstream writes it before building).
        std::string failure = b.snapshot ? applyObjects({*b.snapshot}, log) : std::string();
        if (failure.empty() && b.diagnostics.ok()) {
            failure = applyObjects(b.objects, log);
        } else if (failure.empty()) {
            failure = joinErrors(b.diagnostics.errors);
        }
        for (auto const& w : b.diagnostics.warnings) log.warn(w.message, {{"path", w.path}});
        if (!failure.empty()) {
            auto reason = runtime ? kReasonResourcesCreationFailed : failureReason(resolveDiag.errors);
            events_.record(trainJob, "Warning", kReasonResourcesCreationFailed, "Reconciling",
                           "TrainJob resources reconciliation failed: " + failure);
            setCondition(status, kCreatedCondition, "False", reason, failure, now);
            errors.push_back(failure);
        } else {
            removeCondition(status, kCreatedCondition);
        }
    }

    // Suspended / Resumed.
    auto suspendIt = specRef.if_contains("suspend");
    const bool suspended = suspendIt && suspendIt->is_bool() && suspendIt->get_bool();
    if (suspended) setCondition(status, "Suspended", "True", "Suspended", "TrainJob is suspended", now);
    else if (isTrue(findCondition(status, "Suspended")))
        setCondition(status, "Suspended", "False", "Resumed", "TrainJob is resumed", now);

    // Status from the plugins on every reconcile of a supported runtime, as upstream's
    // setTrainJobStatus runs even when building failed (pkg/controller/trainjob_controller.go):
    // a JobSet that finishes still reaches the TrainJob when a later build cannot succeed.
    if (supported) {
        json::object withStatus = trainJob;
        if (status.empty()) withStatus.erase("status");
        else withStatus["status"] = status;
        Diagnostics sd;
        if (auto s = framework_.status(withStatus, store_, sd)) {
            json::object next = std::move(*s);
            if (auto* dl = findCondition(prevStatus, "Failed"); dl && stringAt(dl, "reason") == "DeadlineExceeded") {
                json::object copy = *dl;
                removeCondition(next, "Failed");
                auto& conds = next["conditions"];
                if (!conds.is_array()) conds = json::array();
                conds.get_array().push_back(std::move(copy));
            }
            status = std::move(next);
        }
        if (!sd.ok()) errors.push_back(joinErrors(sd.errors));
    }

    // Active deadline.
    auto* ads = specRef.if_contains("activeDeadlineSeconds");
    if (ads && ads->is_int64() && ads->get_int64() > 0 && !isFinished(status) && !suspended) {
        auto start = parseRfc3339(stringAt(md, "creationTimestamp")).value_or(now);
        if (auto* resumed = findCondition(status, "Suspended"); resumed && stringAt(resumed, "status") == "False")
            if (auto t = parseRfc3339(stringAt(resumed, "lastTransitionTime"))) start = *t;
        auto deadline = start + std::chrono::seconds(ads->get_int64());
        if (now > deadline) {
            setCondition(status, "Failed", "True", "DeadlineExceeded", "TrainJob exceeded its active deadline", now);
            if (auto err = deleteStatusChildren(trainJob); !err.empty()) errors.push_back(err);
            log.info("TrainJob exceeded its active deadline");
        } else {
            result.requeueAfter = std::max<Clock::duration>(deadline - now, std::chrono::seconds(1));
        }
    }

    if (status != prevStatus) {
        json::object next = trainJob;
        next["status"] = status;
        auto r = store_.updateStatus(next);
        if (r.status == StoreStatus::Conflict) {
            log.info("Status update conflicted; retrying", {{"message", r.message}});
            result.requeue = true;
        } else if (!r.ok()) {
            errors.push_back("updating status: " + r.message);
        }
    }
    for (auto const& e : errors) result.error += (result.error.empty() ? "" : "; ") + e;
    return result;
}

std::string TrainJobReconciler::applyObjects(const std::vector<json::object>& objects, const log::Logger& log) {
    for (auto const& obj : objects) {
        auto r = store_.apply(obj, kFieldManager);
        auto k = keyOf(obj);
        if (!r.ok()) return k.display() + ": " + r.message;
        if (r.outcome != ApplyOutcome::Unchanged)
            log.info("Applied object", {{"object", k.display()}, {"outcome", toString(r.outcome)}});
    }
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
            for (auto const& child : store_.list(w.apiVersion, w.kind, key.ns)) {
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

ReconcileResult RuntimeReconciler::reconcile(const ObjectKey& key, const log::Logger& log) {
    ReconcileResult result;
    auto obj = store_.get(key);
    if (!obj) return result;
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
