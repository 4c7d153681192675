#include "volcano.hpp"

#include <trainer/quantity.hpp>

#include <algorithm>
#include <array>
#include <limits>
#include <map>

namespace trainer::plugins::volcano {
namespace {

// Built into every cluster; never looked up (upstream's exemption).
constexpr std::array<std::string_view, 2> kSystemPriorityClasses{"system-cluster-critical", "system-node-critical"};

const json::object* policy(const sdk::Info& info) {
    auto* pg = info.podGroupPolicy();
    return pg ? sdk::getObject(*pg, "volcano") : nullptr;
}

std::string podSetPath(std::string_view name) { return "podSets[" + std::string(name) + "]"; }

// sdk::Quantity saturates instead of overflowing; a saturated total is reported as an error.
bool saturated(const sdk::Quantity& q) {
    constexpr sdk::Quantity::Nano kSaturation = static_cast<sdk::Quantity::Nano>(1'000'000'000'000'000'000LL) *
                                                    1'000'000'000'000'000'000LL - 1;
    return q.nanoValue() >= kSaturation || q.nanoValue() <= -kSaturation;
}

// {mode, highestTierAllowed} from the policy, highestTierAllowed defaulting to 1.
std::optional<json::object> networkTopology(const json::object& pol) {
    auto* nt = sdk::getObject(pol, "networkTopology");
    if (!nt) return std::nullopt;
    json::object out;
    if (auto mode = sdk::getString(*nt, "mode")) out["mode"] = *mode;
    out["highestTierAllowed"] = sdk::getInt(*nt, "highestTierAllowed").value_or(kDefaultHighestTierAllowed);
    return out;
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

std::vector<std::string> priorityClassNames(const sdk::Info& info) {
    std::vector<std::string> names;
    auto* jobs = sdk::getArray(info.jobSetSpec(), "replicatedJobs");
    if (!jobs) return names;
    for (auto const& rj : *jobs) {
        if (!rj.is_object()) continue;
        auto* podSpec = sdk::getPath(rj.as_object(), {"template", "spec", "template", "spec"});
        if (!podSpec) continue;
        // An empty string is an unset field in an apply configuration.
        if (auto n = sdk::getString(*podSpec, "priorityClassName"); n && !n->empty()) names.emplace_back(*n);
    }
    return names;
}

std::optional<json::object> buildPodGroup(const sdk::Info& info, sdk::Context& ctx) {
    auto* pol = policy(info);
    if (!pol) return std::nullopt;
    // A running gang is never changed: rebuild only when absent or the TrainJob is suspended.
    bool suspended = sdk::getBool(info.spec(), "suspend").value_or(false);
    if (!suspended && ctx.lookup(kPodGroupApiVersion, "PodGroup", info.ns(), info.name())) return std::nullopt;
    auto totals = sumPodSets(info, ctx);
    if (!totals) return std::nullopt;

    json::object spec{{"minMember", totals->minMember}, {"minResources", std::move(totals->minResources)}};
    if (auto it = info.doc().find("annotations"); it != info.doc().end() && it->value().is_object())
        if (auto queue = sdk::getString(it->value().as_object(), kQueueNameAnnotation)) spec["queue"] = *queue;
    if (auto names = priorityClassNames(info); !names.empty()) spec["priorityClassName"] = names.back();
    if (auto nt = networkTopology(*pol)) spec["networkTopology"] = std::move(*nt);

    return json::object{
        {"apiVersion", kPodGroupApiVersion},
        {"kind", "PodGroup"},
        {"metadata", json::object{{"name", info.name()},
                                  {"namespace", info.ns()},
                                  {"ownerReferences", json::array{sdk::controllerRef(info)}}}},
        {"spec", std::move(spec)},
    };
}

void validateAdmission(const sdk::Info& info, sdk::Context& ctx) {
    if (!policy(info)) return;
    if (auto it = info.doc().find("annotations"); it != info.doc().end() && it->value().is_object()) {
        auto queue = sdk::getString(it->value().as_object(), kQueueNameAnnotation);
        if (queue && queue->empty())
            ctx.error(std::string("spec.annotations[") + kQueueNameAnnotation + "]", "Volcano queue name must not be empty");
    }
    std::vector<std::string> checked;
    for (auto const& name : priorityClassNames(info)) {
        if (std::find(checked.begin(), checked.end(), name) != checked.end()) continue;
        checked.push_back(name);
        if (std::find(kSystemPriorityClasses.begin(), kSystemPriorityClasses.end(), name) != kSystemPriorityClasses.end())
            continue;
        if (ctx.lookup("scheduling.k8s.io/v1", "PriorityClass", "", name)) continue;
        ctx.error("spec.templateSpec.priorityClassName", "PriorityClass \"" + name + "\" doesn't exist: " +
                                                             "priorityclasses.scheduling.k8s.io \"" + name +
                                                             "\" not found");
    }
}

Volcano::Volcano(const json::object& config, sdk::Context& ctx) {
    for (auto const& kv : config)
        ctx.warning(std::string(kv.key()), "unknown configuration key; volcano takes no configuration");
}

sdk::PluginMeta Volcano::meta() {
    return sdk::PluginMeta{
        .name = "volcano",
        .version = "0.1.0",
        .description = "Gang-schedules a TrainJob's pods with a Volcano PodGroup.",
        .priority = 0,
        .threadSafe = true,
        .claims = {"podGroupPolicy.volcano", "kind:scheduling.volcano.sh/v1beta1/PodGroup"},
        .watches = {{kPodGroupApiVersion, "PodGroup", TRN_WATCH_OWNED, nullptr},
                    {"v1", "LimitRange", TRN_WATCH_SUSPENDED_IN_NAMESPACE, nullptr},
                    {"node.k8s.io/v1", "RuntimeClass", TRN_WATCH_SUSPENDED_MATCHING, "runtimeClassName"}},
    };
}

void Volcano::validate(const sdk::Info& info, sdk::Context& ctx) { validateAdmission(info, ctx); }

void Volcano::enforcePodGroupPolicy(const sdk::Info& info, sdk::Edits& edits, sdk::Context&) {
    if (!policy(info)) return;
    edits.setPodAnnotation(kGroupNameAnnotation, info.name());
}

void Volcano::build(const sdk::Info& info, sdk::Objects& objects, sdk::Context& ctx) {
    if (auto pg = buildPodGroup(info, ctx)) objects.add(*pg);
}

}  // namespace trainer::plugins::volcano
