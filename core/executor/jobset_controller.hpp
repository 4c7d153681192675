// The JobSet controller of the local executor, as a store-level reconciler: it turns a
// jobset.x-k8s.io/v1alpha2 JobSet into batch/v1 Jobs (and the headless Service for pod DNS
// hostnames) and keeps the JobSet's status, following pkg/controllers/jobset_controller.go of
// https://github.com/kubernetes-sigs/JobSet/tree/v0.9.1: replicated jobs in spec order,
// dependsOn, startupPolicy InOrder, suspend/resume, failurePolicy (maxRestarts, rules),
// successPolicy, ttlSecondsAfterFinished, status.replicatedJobsStatus, restarts and
// terminalState, and the deletion of the still-active Jobs once the JobSet finished.
//
// Not implemented: volumeClaimPolicies, elastic scaling, the nodeSelector strategy of exclusive
// placement (the exclusive-topology annotation is copied), events.
//
// Deliberate difference: a spec the JobSet webhook would have rejected (no replicated jobs, a
// negative replicas, a template that is not an object ...) fails the JobSet at once: condition
// Failed=True, reason "InvalidJobSet", the validation error as message, terminalState Failed.
#pragma once

#include "core/controller/clock.hpp"
#include "core/controller/trainjob_reconciler.hpp"
#include "core/log/log.hpp"
#include "core/store/store.hpp"

namespace trainer::core::executor {

// One reconcile of the JobSet at `jobSet`; never throws. Status is written with updateStatus,
// re-reading and retrying on a conflict.
controller::ReconcileResult reconcileJobSet(Store& store, const ObjectKey& jobSet, const controller::Clock& clock,
                                            const log::Logger& log);

}  // namespace trainer::core::executor
