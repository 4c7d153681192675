// Resource helpers ML policies share, as upstream's torch, mpi and xgboost EnforceMLPolicy use them
// (GetNumGPUPerNode and ExtractResourcePerNodeFromRuntime in
// https://github.com/kubeflow/trainer/blob/8c0f5059bd51ec3ba6d6a6a7b2e1471de7bc13b3/pkg/runtime/runtime.go;
// getNumCPUPerNode in
// https://github.com/kubeflow/trainer/blob/8c0f5059bd51ec3ba6d6a6a7b2e1471de7bc13b3/pkg/runtime/framework/plugins/torch/torch.go):
// Kubernetes quantities rounded up to integers, GPU and CPU counts of a ResourceRequirements object,
// and the trainer resources a policy sizes itself by. Header-only; no exceptions; never negative.
#pragma once

#include <trainer/plugin.hpp>
#include <trainer/quantity.hpp>

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace trainer::sdk {

// Ceil of a Kubernetes quantity ("4", "2500m", "2.5", "1Gi", "1e3", or a JSON number), as
// Go's resource.Quantity.Value(). nullopt when invalid or negative.
inline std::optional<int64_t> ceilQuantity(const json::value& q) {
    auto parsed = Quantity::fromJson(q);
    if (!parsed || parsed->nanoValue() < 0) return std::nullopt;
    return parsed->ceilToInt();
}

// True when a resource name contains "gpu" in any case ("nvidia.com/gpu", "amd.com/GPU").
inline bool isGpuResource(std::string_view name) {
    std::string lower(name);
    std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
    return lower.find("gpu") != std::string::npos;
}

// Ceil of the first GPU resource of a ResourceList (in document order); 0 when there is none
// or its quantity is invalid or negative.
inline int64_t gpuInList(const json::object* list) {
    if (!list) return 0;
    for (auto const& kv : *list)
        if (isGpuResource(kv.key())) return ceilQuantity(kv.value()).value_or(0);
    return 0;
}

// GPU count of a ResourceRequirements: its requests' GPU count, or its limits' when that is 0.
inline int64_t gpuCount(const json::object* resources) {
    if (!resources) return 0;
    int64_t g = gpuInList(getObject(*resources, "requests"));
    return g != 0 ? g : gpuInList(getObject(*resources, "limits"));
}

// ceil(requests.cpu) if non-zero, else ceil(limits.cpu), else 0 (invalid/negative count as absent).
inline int64_t cpuCount(const json::object* resources) {
    if (!resources) return 0;
    for (auto key : {"requests", "limits"}) {
        auto* list = getObject(*resources, key);
        if (!list) continue;
        auto it = list->find("cpu");
        if (it == list->end()) continue;
        if (auto v = ceilQuantity(it->value()); v && *v != 0) return *v;
    }
    return 0;
}

// The runtime's trainer resources: `resources` of the first container `node` that has them, in
// the first replicated job named `node` or labelled ancestor `trainer`; nullptr if none.
inline const json::object* runtimeTrainerResources(const Info& info) {
    auto* jobs = getArray(info.jobSetSpec(), "replicatedJobs");
    if (!jobs) return nullptr;
    for (auto const& j : *jobs) {
        if (!j.is_object()) continue;
        auto const& job = j.as_object();
        bool named = getString(job, "name").value_or("") == "node";
        auto* labels = getPath(job, {"template", "metadata", "labels"});
        bool trainer =
            labels && getString(*labels, "trainer.kubeflow.org/trainjob-ancestor-step").value_or("") == "trainer";
        if (!named && !trainer) continue;
        auto* pod = getPath(job, {"template", "spec", "template", "spec"});
        auto* containers = pod ? getArray(*pod, "containers") : nullptr;
        if (!containers) continue;
        for (auto const& c : *containers)
            if (c.is_object() && getString(c.as_object(), "name").value_or("") == "node")
                if (auto* res = getObject(c.as_object(), "resources")) return res;
    }
    return nullptr;
}

// The resources a policy sizes by: TrainJob `spec.trainer.resourcesPerNode` when set (used
// wholesale, not merged, as torch.go and mpi.go EnforceMLPolicy do), else runtimeTrainerResources();
// nullptr if neither.
inline const json::object* effectiveResources(const Info& info) {
    if (auto* t = info.trainer())
        if (auto* r = getObject(*t, "resourcesPerNode")) return r;
    return runtimeTrainerResources(info);
}

}  // namespace trainer::sdk
