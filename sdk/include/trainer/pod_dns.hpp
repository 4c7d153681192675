// The DNS names JobSet gives a TrainJob's pods, for addresses a plugin hands to the trainer
// (a rendezvous master, a coordinator, a tracker) before the pods exist. Header-only.
//
// JobSet names pod `p` of Job `j` of replicated job `r` `<job>-<r>-<j>-<p>` and serves it as
// `<that>.<subdomain>` through a headless Service named by the subdomain: the JobSet's
// `spec.network.subdomain` when set, else the JobSet's (= the TrainJob's) name
// (https://github.com/kubernetes-sigs/jobset, api/jobset/v1alpha2/jobset_types.go, Network).
// Info.podSets[].endpoints lists the same names, but only from PreComponentBuilder on; an ML
// policy, which runs earlier, builds them with these functions.
#pragma once

#include <trainer/plugin.hpp>

#include <cstdint>
#include <string>
#include <string_view>

namespace trainer::sdk {

// jobSetSpec.network.subdomain when set and non-empty, else the TrainJob's name.
inline std::string podSubdomain(const Info& info) {
    if (const json::object* net = getObject(info.jobSetSpec(), "network"))
        if (auto sd = getString(*net, "subdomain"); sd && !sd->empty()) return std::string(*sd);
    return std::string(info.name());
}

// "<job>-<replicatedJob>-<jobIndex>-<podIndex>.<subdomain>", the subdomain given.
inline std::string podDnsName(std::string_view job, std::string_view replicatedJob, int64_t jobIndex,
                              int64_t podIndex, std::string_view subdomain) {
    std::string out(job);
    out.append("-").append(replicatedJob).append("-").append(std::to_string(jobIndex));
    out.append("-").append(std::to_string(podIndex)).append(".").append(subdomain);
    return out;
}

// The DNS name of pod `podIndex` of Job `jobIndex` of `replicatedJob` in this TrainJob.
inline std::string podDnsName(const Info& info, std::string_view replicatedJob, int64_t jobIndex = 0,
                              int64_t podIndex = 0) {
    return podDnsName(info.name(), replicatedJob, jobIndex, podIndex, podSubdomain(info));
}

// The replicated job that holds the trainer: the PodSet whose ancestor is "trainer", or "node"
// (upstream's constants.Node, what every upstream runtime names it) when there is none.
inline std::string trainerReplicatedJob(const Info& info) {
    if (const json::object* ps = info.podSetByAncestor("trainer"))
        if (auto n = getString(*ps, "name"); n && !n->empty()) return std::string(*n);
    return "node";
}

// The trainer's first pod, rank 0 (its Job completion index is 0): the address torchrun's
// master, JAX's coordinator and XGBoost's tracker listen on, "<job>-node-0-0.<job>" in an
// upstream runtime. Honours a custom `network.subdomain` and a trainer replicated job not
// named "node" (upstream's torch, jax and xgboost plugins ignore both; the name would not
// resolve there).
inline std::string trainerPodDnsName(const Info& info) {
    return podDnsName(info, trainerReplicatedJob(info), 0, 0);
}

}  // namespace trainer::sdk
