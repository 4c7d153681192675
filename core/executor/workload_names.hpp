// Names, labels and annotations the local executor's JobSet and Job controllers write, as the
// upstream controllers spell them:
//   https://github.com/kubernetes-sigs/JobSet/tree/v0.9.1/api (v1alpha2 jobset_types.go)
//   https://github.com/kubernetes-sigs/JobSet/blob/v0.9.1/pkg/constants/constants.go
//   https://github.com/kubernetes/kubernetes/blob/v1.32.0/staging/src/k8s.io/api/batch/v1/types.go
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace trainer::core::executor {

// Kinds.
inline constexpr std::string_view kJobSetApiVersion = "jobset.x-k8s.io/v1alpha2";
inline constexpr std::string_view kJobSetKind = "JobSet";
inline constexpr std::string_view kJobApiVersion = "batch/v1";
inline constexpr std::string_view kJobKind = "Job";
inline constexpr std::string_view kPodApiVersion = "v1";
inline constexpr std::string_view kPodKind = "Pod";
inline constexpr std::string_view kServiceKind = "Service";

// JobSet labels and annotations (on child Jobs and their pod templates).
inline constexpr std::string_view kJobSetNameKey = "jobset.sigs.k8s.io/jobset-name";
inline constexpr std::string_view kJobSetUidKey = "jobset.sigs.k8s.io/jobset-uid";
inline constexpr std::string_view kReplicatedJobReplicasKey = "jobset.sigs.k8s.io/replicatedjob-replicas";
inline constexpr std::string_view kGlobalReplicasKey = "jobset.sigs.k8s.io/global-replicas";
inline constexpr std::string_view kReplicatedJobNameKey = "jobset.sigs.k8s.io/replicatedjob-name";
inline constexpr std::string_view kJobIndexKey = "jobset.sigs.k8s.io/job-index";
inline constexpr std::string_view kJobGlobalIndexKey = "jobset.sigs.k8s.io/job-global-index";
inline constexpr std::string_view kJobKeyKey = "jobset.sigs.k8s.io/job-key";
inline constexpr std::string_view kRestartsKey = "jobset.sigs.k8s.io/restart-attempt";
inline constexpr std::string_view kGroupNameKey = "jobset.sigs.k8s.io/group-name";
inline constexpr std::string_view kGroupReplicasKey = "jobset.sigs.k8s.io/group-replicas";
inline constexpr std::string_view kJobGroupIndexKey = "jobset.sigs.k8s.io/job-group-index";
inline constexpr std::string_view kCoordinatorKey = "jobset.sigs.k8s.io/coordinator";
inline constexpr std::string_view kExclusiveKey = "alpha.jobset.sigs.k8s.io/exclusive-topology";
// spec.managedBy value the JobSet controller reconciles (absent means the same).
inline constexpr std::string_view kJobSetControllerName = "jobset.sigs.k8s.io/jobset-controller";

// batch/v1 Job labels, annotations and finalizer (on pods).
inline constexpr std::string_view kControllerUidLabel = "batch.kubernetes.io/controller-uid";
inline constexpr std::string_view kJobNameLabel = "batch.kubernetes.io/job-name";
inline constexpr std::string_view kLegacyControllerUidLabel = "controller-uid";
inline constexpr std::string_view kLegacyJobNameLabel = "job-name";
inline constexpr std::string_view kCompletionIndexKey = "batch.kubernetes.io/job-completion-index";
inline constexpr std::string_view kJobTrackingFinalizer = "batch.kubernetes.io/job-tracking";
inline constexpr std::string_view kCompletionIndexEnv = "JOB_COMPLETION_INDEX";

// The lower-case kind ("JobSet" lower-cased), which upstream's condition messages and the
// controller-runtime controller name start with; built at run time (core/ spells no plugin name).
std::string lowerJobSetKind();

// "<JobSet name>-<replicatedJob>-<index>" (JobSet pkg/util/placement GenJobName).
std::string childJobName(std::string_view jobSet, std::string_view replicatedJob, int64_t index);
// The 40-hex-digit SHA-1 of "<namespace>/<jobName>" (the job-key label).
std::string jobHashKey(std::string_view ns, std::string_view jobName);
// An Indexed Job's pod generateName "<job>-<index>-", the job part cut so the prefix fits the
// 58 characters left for a generated name (kubernetes podGenerateNameWithIndex).
std::string indexedPodGenerateName(std::string_view job, int64_t index);
// A NonIndexed Job's pod generateName "<job>-", cut to 58 characters.
std::string podGenerateName(std::string_view job);
// An Indexed Job's pod hostname "<job>-<index>".
std::string indexedPodHostname(std::string_view job, int64_t index);

}  // namespace trainer::core::executor
