// The batch/v1 Job controller of the local executor, as a store-level reconciler: it creates a
// Job's pods from its template, counts them into .status and finishes the Job, following the
// Kubernetes v1.32 Job controller
// (https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/controller/job/job_controller.go):
// parallelism/completions (NonIndexed and Indexed), backoffLimit (failed pods, and container
// restarts with restartPolicy OnFailure), activeDeadlineSeconds, suspend/resume, the
// job-tracking finalizer with status.uncountedTerminatedPods, the interim FailureTarget and
// SuccessCriteriaMet conditions before Failed / Complete, and status active, ready,
// terminating, succeeded, failed, completedIndexes, startTime, completionTime.
//
// Not implemented: podFailurePolicy, successPolicy, backoffLimitPerIndex, the pod failure
// back-off delay before replacing failed pods, managedBy, manualSelector/selector matching
// (pods are found by their controller ownerReference).
//
// Deliberate difference: a spec the API server would reject (e.g. no containers, a negative
// parallelism, Indexed without completions) finishes the Job at once with Failed=True, reason
// "InvalidJobSpec" and the validation error as message, instead of the create being refused.
#pragma once

#include "core/controller/clock.hpp"
#include "core/controller/trainjob_reconciler.hpp"
#include "core/log/log.hpp"
#include "core/store/store.hpp"

namespace trainer::core::executor {

inline constexpr std::string_view kReasonInvalidJobSpec = "InvalidJobSpec";

// One sync of the Job at `job`; never throws. A missing Job only releases the finalizers of the
// pods it left behind.
controller::ReconcileResult reconcileJob(Store& store, const ObjectKey& job, const controller::Clock& clock,
                                         const log::Logger& log);

}  // namespace trainer::core::executor
