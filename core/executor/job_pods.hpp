// The pods of a batch/v1 Job as its controller sees and changes them: classification (active,
// terminating, failed, ready, completion index), creation from the pod template, deletion and
// the batch.kubernetes.io/job-tracking finalizer
// (kubernetes pkg/controller/job/job_controller.go, indexed_job_utils.go; v1.32).
#pragma once

#include "core/executor/job_spec.hpp"
#include "core/store/store.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace trainer::core::executor {

struct JobPod {
    json::object object;
    ObjectKey key;
    std::string uid;
    std::string phase;        // "" reads as Pending
    bool ready = false;       // condition Ready=True
    bool deleted = false;     // metadata.deletionTimestamp set
    bool tracked = false;     // carries the job-tracking finalizer
    int64_t index = -1;       // completion index annotation, -1 when none or invalid
    int64_t restartCount = 0; // sum over containers and init containers
};

JobPod toJobPod(const json::object& pod);
// The pods in `ns` whose controller is the Job with `jobUid`, by name; an error when the list
// failed (never "no pods", which would have the controller create them again).
ReadValue<std::vector<JobPod>> podsOfJob(const Store& store, const std::string& ns, const std::string& jobUid);

bool isTerminal(const JobPod& p);
// controller.FilterActivePods: not Succeeded/Failed and not being deleted.
bool isActive(const JobPod& p);
// controller.CountTerminatingPods: being deleted and not Succeeded/Failed.
bool isTerminating(const JobPod& p);
// Failed, or (unless only failed pods are replaced) deleted before succeeding.
bool isPodFailed(const JobPod& p, bool onlyReplaceFailedPods);

// A pod for `job` from its template (index -1 for NonIndexed): generateName, the Job's selector
// labels, completion index label/annotation/hostname/JOB_COMPLETION_INDEX, the tracking finalizer
// and a controller ownerReference.
json::object newJobPod(const json::object& job, const JobParams& params, int64_t index);

// Deletes the pod, keeping its finalizer (it stays, marked, until the finalizer goes). "" on
// success or when already gone.
std::string deletePod(Store& store, const ObjectKey& key);
// Removes the job-tracking finalizer (re-reading on conflict). "" on success or when gone.
std::string removeTrackingFinalizer(Store& store, const ObjectKey& key);
// Removes the finalizer of pods in `ns` whose controller is a Job named `jobName` other than
// `keepUid` (pods left by a deleted Job, or by an earlier Job of the same name). Returns errors.
std::string releaseStalePods(Store& store, const std::string& ns, const std::string& jobName, const std::string& keepUid);

}  // namespace trainer::core::executor
