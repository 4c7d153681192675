#include "coscheduling.hpp"

#include <trainer/quantity.hpp>

#include <limits>
#include <map>
#include <string>

namespace trainer::plugins::coscheduling {
namespace {

const json::object* policy(const sdk::Info& info) {
    auto* pg = info.podGroupPolicy();
    return pg ? sdk::getObject(*pg, "coscheduling") : nullptr;
}

std::string podSetPath(std::string_view name) { return "podSets[" + std::string(name) + "]"; }

// sdk::Quantity saturates instead of overflowing; a saturated total is reported as an error.
bool saturated(const sdk::Quantity& q) {
    constexpr sdk::Quantity::Nano kSaturation = static_cast<sdk::Quantity::Nano>(1'000'000'000'000'000'000LL) *
                                                    1'000'000'000'000'000'000LL - 1;
    return q.nanoValue() >= kSaturation || q.nanoValue() <= -kSaturation;
}

}  // namespace

std::optional<PodGroupTotals> sumPodSets(const sdk::Info& info, sdk::Context& ctx) {
    PodGroupTotals totals;
    std::map<std::string, sdk::Quantity> sums;  // sorted by resource name, like a Go ResourceList
    bool ok = true;
    for (auto const& entry : info.podSets()) {
        if (!entry.is_object()) {
            ctx.error("podSets", "every PodSet must be an object");
            ok = false;
            continue;
        }
        auto const& ps = entry.as_object();
        std::string path = podSetPath(sdk::getString(ps, "name").value_or(""));
        int64_t count = sdk::getInt(ps, "count").value_or(1);
        if (count < 0 || count > std::numeric_limits<int32_t>::max()) {
            ctx.error(path + ".count", "must be between 0 and 2147483647, got " + std::to_string(count));
            ok = false;
            continue;
        }
        totals.minMember += count;
        auto* requests = sdk::getObject(ps, "singlePodRequests");
        if (!requests) continue;
        for (auto const& [name, value] : *requests) {
            auto q = sdk::Quantity::fromJson(value);
            std::string rpath = path + ".singlePodRequests[" + std::string(name) + "]";
            if (!q) {
                ctx.error(rpath, "is not a valid resource quantity: " + json::serialize(value));
                ok = false;
                continue;
            }
            auto& sum = sums[std::string(name)];
            sum = sum.add(q->multiply(count));
            if (saturated(sum)) {
                ctx.error(rpath, "resource total overflows");
                ok = false;
            }
        }
    }
    if (totals.minMember > std::numeric_limits<int32_t>::max()) {
        ctx.error("podSets", "the total pod count " + std::to_string(totals.minMember) +
                                 " exceeds the PodGroup minMember limit 2147483647");
        ok = false;
    }
    if (!ok) return std::nullopt;
    for (auto const& [name, q] : sums) totals.minResources[name] = q.toString();
    return totals;
}

std::optional<json::object> buildPodGroup(const sdk::Info& info, sdk::Context& ctx) {
    auto* pol = policy(info);
    if (!pol) return std::nullopt;
    // A running gang is never changed: rebuild only when absent or the TrainJob is suspended.
    bool suspended = sdk::getBool(info.spec(), "suspend").value_or(false);
    if (!suspended && ctx.lookup(kPodGroupApiVersion, "PodGroup", info.ns(), info.name())) return std::nullopt;
    auto totals = sumPodSets(info, ctx);
    if (!totals) return std::nullopt;
    int64_t timeout = sdk::getInt(*pol, "scheduleTimeoutSeconds").value_or(kDefaultScheduleTimeoutSeconds);
    return json::object{
        {"apiVersion", kPodGroupApiVersion},
        {"kind", "PodGroup"},
        {"metadata", json::object{{"name", info.name()},
                                  {"namespace", info.ns()},
                                  {"ownerReferences", json::array{sdk::controllerRef(info)}}}},
        {"spec", json::object{{"minMember", totals->minMember},
                              {"minResources", std::move(totals->minResources)},
                              {"scheduleTimeoutSeconds", timeout}}},
    };
}

Coscheduling::Coscheduling(const json::object& config, sdk::Context& ctx) {
    for (auto const& kv : config)
        ctx.warning(std::string(kv.key()), "unknown configuration key; coscheduling takes no configuration");
}

sdk::PluginMeta Coscheduling::meta() {
    return sdk::PluginMeta{
        .name = "coscheduling",
        .version = "0.1.0",
        .description = "Gang-schedules a TrainJob's pods with a scheduler-plugins PodGroup.",
        .priority = 0,
        .threadSafe = true,
        .claims = {"podGroupPolicy.coscheduling", "kind:scheduling.x-k8s.io/v1alpha1/PodGroup"},
        .watches = {{kPodGroupApiVersion, "PodGroup", TRN_WATCH_OWNED, nullptr},
                    {"v1", "LimitRange", TRN_WATCH_SUSPENDED_IN_NAMESPACE, nullptr},
                    {"node.k8s.io/v1", "RuntimeClass", TRN_WATCH_SUSPENDED_MATCHING, "runtimeClassName"}},
    };
}

void Coscheduling::enforcePodGroupPolicy(const sdk::Info& info, sdk::Edits& edits, sdk::Context&) {
    if (!policy(info)) return;
    edits.setPodLabel(kPodGroupLabel, info.name());
}

void Coscheduling::build(const sdk::Info& info, sdk::Objects& objects, sdk::Context& ctx) {
    if (auto pg = buildPodGroup(info, ctx)) objects.add(*pg);
}

}  // namespace trainer::plugins::coscheduling
