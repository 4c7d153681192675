// Does what the host did for a case match what the case expects? Objects by identity
// (apiVersion, kind, namespace, name: the sets must be equal, the TrainJob's runtime snapshot
// ConfigMap ignored unless expected) and each as a subset (matcher.hpp); errors and warnings
// by field path and message substring (sdk/docs/golden-tests.md "Errors and warnings").
#pragma once

#include "core/api/errors.hpp"
#include "core/golden/case.hpp"

#include <boost/json.hpp>

#include <string>
#include <vector>

namespace trainer::core::golden {

// What the host reported for one case: admission's and the build's errors and warnings, and
// the objects one reconcile applies (the runtime snapshot ConfigMap included).
struct CaseOutcome {
    Diagnostics diagnostics;
    std::vector<json::object> objects;
};

// Every difference, one line each, saying where ("JobSet default/test-job:
// spec.replicatedJobs[name=node]...: expected "2", found "4""); lines of detail under one
// start with two spaces. Empty: the case passes.
std::vector<std::string> compareOutcome(const GoldenCase& c, const CaseOutcome& outcome);

}  // namespace trainer::core::golden
