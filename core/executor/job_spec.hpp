// A batch/v1 Job's spec as the Job controller reads it: the API server's defaults applied
// (kubernetes pkg/apis/batch/v1/defaults.go SetDefaults_Job) and the validation the API server
// would have done for the fields the controller relies on (pkg/apis/batch/validation).
#pragma once

#include "core/store/store.hpp"

#include <cstdint>
#include <optional>
#include <string>

namespace trainer::core::executor {

struct JobParams {
    int64_t parallelism = 1;
    std::optional<int64_t> completions;  // nil: any pod's success completes the Job
    bool indexed = false;                // completionMode Indexed
    int64_t backoffLimit = 6;
    bool suspend = false;
    bool onlyReplaceFailedPods = false;  // podReplacementPolicy Failed
    std::optional<int64_t> activeDeadlineSeconds;
    std::string restartPolicy;           // of the pod template: OnFailure or Never
    json::object podTemplate;            // spec.template
};

// Reads `spec` (a Job's .spec). On invalid input returns nullopt and sets `error` to an
// API-server-like message whose paths start with `path` (e.g. "spec.").
std::optional<JobParams> parseJobSpec(const json::object* spec, const std::string& path, std::string& error);

}  // namespace trainer::core::executor
