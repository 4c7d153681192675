// Resource arithmetic the xgboost plugin needs: Kubernetes quantities rounded up to integers,
// GPU detection and the runtime's trainer resources (spec §5.2 steps 3-4, reused by §5.6).
#pragma once

#include <trainer/plugin.hpp>

#include <cstdint>
#include <optional>
#include <string_view>

namespace trainer::plugins::xgboost {

namespace json = boost::json;

// Ceil of a Kubernetes quantity ("4", "2500m", "2.5", "1Gi", "1e3", or a JSON number), as
// Go's resource.Quantity.Value() (via <trainer/quantity.hpp>). nullopt when invalid or negative.
std::optional<int64_t> ceilQuantity(const json::value& q);

// Ceil of the first resource whose name contains "gpu" (any case) in `list`, else 0.
int64_t gpuInList(const json::object* list);

// GPU count of a ResourceRequirements: requests first, then limits when requests give 0.
int64_t gpuCount(const json::object* resources);

// ceil(requests.cpu) if non-zero, else ceil(limits.cpu), else 0.
int64_t cpuCount(const json::object* resources);

// The runtime's trainer resources: `resources` of the first container `node` in the first
// replicated job named `node` or labelled ancestor `trainer` that has resources; nullptr if none.
const json::object* runtimeTrainerResources(const sdk::Info& info);

// TrainJob `spec.trainer.resourcesPerNode` when set (used wholesale, §13.6), else the runtime's.
const json::object* effectiveResources(const sdk::Info& info);

}  // namespace trainer::plugins::xgboost
