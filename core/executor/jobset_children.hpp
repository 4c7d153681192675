// The objects a JobSet owns: one batch/v1 Job per replicated job replica and the headless
// Service behind pod DNS hostnames (constructJob, labelAndAnnotateObject and
// createHeadlessSvcIfNecessary of pkg/controllers/jobset_controller.go,
// https://github.com/kubernetes-sigs/JobSet/tree/v0.9.1).
#pragma once

#include "core/executor/jobset_spec.hpp"
#include "core/store/store.hpp"

#include <cstdint>

namespace trainer::core::executor {

// The Job `<js>-<rjob>-<jobIndex>` for `restarts` (the restart-attempt), labelled and annotated
// on itself and its pod template, owned by the JobSet, suspended as the JobSet is.
json::object constructChildJob(const json::object& js, const JobSetParams& params, const ReplicatedJobSpec& rjob,
                               int64_t jobIndex, int64_t restarts);
// The headless Service named like the subdomain, selecting the JobSet's pods.
json::object constructHeadlessService(const json::object& js, const JobSetParams& params);

}  // namespace trainer::core::executor
