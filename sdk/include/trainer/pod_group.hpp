// Gang-scheduling helpers pod-group backends share, as upstream's two backends do them
// (https://github.com/kubeflow/trainer/blob/8c0f5059bd51ec3ba6d6a6a7b2e1471de7bc13b3/pkg/runtime/framework/plugins/coscheduling/coscheduling.go,
// https://github.com/kubeflow/trainer/blob/8c0f5059bd51ec3ba6d6a6a7b2e1471de7bc13b3/pkg/runtime/framework/plugins/volcano/volcano.go):
// the PodGroup sums minMember = Σ PodSet.count and minResources = Σ singlePodRequests × count, the
// "exists and not suspended → skip" rule, the PodGroup object frame and the backend watches.
// Header-only; no exceptions.
#pragma once

#include <trainer/plugin.hpp>
#include <trainer/policy.hpp>
#include <trainer/quantity.hpp>

#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace trainer::sdk {

// One problem at a field path, as Context::error reports it.
struct FieldError {
    std::string path;
    std::string message;
    friend bool operator==(const FieldError&, const FieldError&) = default;
};

// What a gang needs: Σ PodSet.count and Σ singlePodRequests × count (canonical quantities,
// sorted by resource name; {} when no PodSet has requests).
struct PodGroupTotals {
    int64_t minMember = 0;
    json::object minResources;
};

// The sums, or every problem found (totals are meaningful only when errors is empty).
struct PodGroupSums {
    PodGroupTotals totals;
    std::vector<FieldError> errors;
    bool ok() const { return errors.empty(); }
};

namespace detail {
// Quantity saturates at ±1e27 units instead of overflowing; a saturated total is an overflow.
inline bool saturated(const Quantity& q) {
    constexpr Quantity::Nano kSaturation =
        static_cast<Quantity::Nano>(1'000'000'000'000'000'000LL) * 1'000'000'000'000'000'000LL - 1;
    return q.nanoValue() >= kSaturation || q.nanoValue() <= -kSaturation;
}
}  // namespace detail

// Sums a podSets array (Info "podSets"). count defaults to 1 and must be in [0, 2^31-1]; errors
// at "podSets", "podSets[<name>].count" or "podSets[<name>].singlePodRequests[<resource>]".
inline PodGroupSums sumPodSets(const json::array& podSets) {
    constexpr int64_t kInt32Max = std::numeric_limits<int32_t>::max();
    PodGroupSums out;
    std::map<std::string, Quantity> sums;  // sorted by resource name, like a Go ResourceList
    for (auto const& entry : podSets) {
        if (!entry.is_object()) {
            out.errors.push_back({"podSets", "every PodSet must be an object"});
            continue;
        }
        auto const& ps = entry.as_object();
        std::string path = "podSets[" + std::string(getString(ps, "name").value_or("")) + "]";
        int64_t count = getInt(ps, "count").value_or(1);
        if (count < 0 || count > kInt32Max) {
            out.errors.push_back({path + ".count", "must be between 0 and 2147483647, got " + std::to_string(count)});
            continue;
        }
        out.totals.minMember += count;
        auto* requests = getObject(ps, "singlePodRequests");
        if (!requests) continue;
        for (auto const& [name, value] : *requests) {
            std::string rpath = path + ".singlePodRequests[" + std::string(name) + "]";
            auto q = Quantity::fromJson(value);
            if (!q) {
                out.errors.push_back({rpath, "is not a valid resource quantity: " + json::serialize(value)});
                continue;
            }
            auto& sum = sums[std::string(name)];
            sum = sum.add(q->multiply(count));
            if (detail::saturated(sum)) out.errors.push_back({rpath, "resource total overflows"});
        }
    }
    if (out.totals.minMember > kInt32Max)
        out.errors.push_back({"podSets", "the total pod count " + std::to_string(out.totals.minMember) +
                                             " exceeds the PodGroup minMember limit 2147483647"});
    if (out.ok())
        for (auto const& [name, q] : sums) out.totals.minResources[name] = q.toString();
    return out;
}

// Sums the PodSets of `info`, reporting every error on ctx.error; nullopt when there was one.
inline std::optional<PodGroupTotals> sumPodSets(const Info& info, Context& ctx) {
    auto sums = sumPodSets(info.podSets());
    for (auto const& e : sums.errors) ctx.error(e.path, e.message);
    if (!sums.ok()) return std::nullopt;
    return std::move(sums.totals);
}

// True when the PodGroup must be left alone: the TrainJob is not suspended and a PodGroup
// `kind` of `apiVersion` named like the TrainJob exists in its namespace (a running gang is
// never changed). Looks up only when not suspended; a lookup the host could not answer throws
// LookupError (Context::lookup), failing the hook rather than rebuilding a gang that may run.
inline bool keepExistingPodGroup(const Info& info, Context& ctx, std::string_view apiVersion,
                                 std::string_view kind = "PodGroup") {
    if (getBool(info.spec(), "suspend").value_or(false)) return false;
    return ctx.lookup(apiVersion, kind, info.ns(), info.name()).has_value();
}

// The same as podGroupPolicyConfig(info, backend) (<trainer/policy.hpp>), kept for plugins
// written before it.
inline const json::object* podGroupPolicy(const Info& info, std::string_view backend) {
    return podGroupPolicyConfig(info, backend);
}

// The PodGroup `<ns>/<job>` of `apiVersion`/`kind` with the TrainJob controller reference and `spec`.
inline json::object podGroupObject(const Info& info, std::string_view apiVersion, json::object spec,
                                   std::string_view kind = "PodGroup") {
    return json::object{
        {"apiVersion", apiVersion},
        {"kind", kind},
        {"metadata", json::object{{"name", info.name()},
                                  {"namespace", info.ns()},
                                  {"ownerReferences", json::array{controllerRef(info)}}}},
        {"spec", std::move(spec)},
    };
}

// The watches every pod-group backend declares (coscheduling.go ReconcilerBuilders): its own
// PodGroups (owned), any LimitRange (suspended TrainJobs of that namespace), a RuntimeClass
// (suspended TrainJobs whose runtime names it). `apiVersion` and `kind` must outlive the plugin
// (string literals).
inline std::vector<Watch> podGroupWatches(const char* apiVersion, const char* kind = "PodGroup") {
    return {{apiVersion, kind, TRN_WATCH_OWNED, nullptr},
            {"v1", "LimitRange", TRN_WATCH_SUSPENDED_IN_NAMESPACE, nullptr},
            {"node.k8s.io/v1", "RuntimeClass", TRN_WATCH_SUSPENDED_MATCHING, "runtimeClassName"}};
}

}  // namespace trainer::sdk
