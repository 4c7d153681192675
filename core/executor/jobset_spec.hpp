// A jobset.x-k8s.io/v1alpha2 JobSet's spec as its controller reads it, with the defaults the
// JobSet webhook and CRD would have applied (pkg/webhooks/jobset_webhook.go Default of
// https://github.com/kubernetes-sigs/JobSet/tree/v0.9.1: successPolicy All, completionMode
// Indexed, restartPolicy OnFailure, enableDNSHostnames and publishNotReadyAddresses true;
// replicas 1, groupName "default") and the validation they would have done.
#pragma once

#include "core/executor/job_spec.hpp"
#include "core/store/store.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace trainer::core::executor {

struct DependsOnSpec {
    std::string name;
    std::string status;  // Ready | Complete
};

struct ReplicatedJobSpec {
    std::string name;
    std::string groupName = "default";
    int64_t replicas = 1;
    json::object templateMetadata;  // template.metadata (labels, annotations)
    json::object jobSpec;           // template.spec, defaulted
    std::vector<DependsOnSpec> dependsOn;
};

struct FailurePolicyRule {
    std::string name;
    std::string action;  // FailJobSet | RestartJobSet | RestartJobSetAndIgnoreMaxRestarts
    std::vector<std::string> onJobFailureReasons;
    std::vector<std::string> targetReplicatedJobs;
};

struct JobSetParams {
    std::vector<ReplicatedJobSpec> replicatedJobs;
    bool suspend = false;
    bool dnsHostnames = true;
    std::string subdomain;  // network.subdomain, else the JobSet's name
    bool publishNotReadyAddresses = true;
    std::string successOperator = "All";  // All | Any
    std::vector<std::string> successTargets;
    bool hasFailurePolicy = false;
    int64_t maxRestarts = 0;
    bool blockingRecreate = false;  // failurePolicy.restartStrategy BlockingRecreate
    std::vector<FailurePolicyRule> failureRules;
    bool inOrderStartup = false;
    std::optional<int64_t> ttlSecondsAfterFinished;
    std::string coordinatorEndpoint;  // "<js>-<rjob>-<job>-<pod>.<subdomain>" when a coordinator is set
    std::string managedBy;

    const ReplicatedJobSpec* find(const std::string& name) const;
};

// Reads the JobSet `js`. On invalid input returns nullopt and sets `error` (paths from "spec.").
std::optional<JobSetParams> parseJobSet(const json::object& js, std::string& error);

}  // namespace trainer::core::executor
