#include "volcano.hpp"

#include <algorithm>
#include <array>

namespace trainer::plugins::volcano {
namespace {

// Built into every cluster; never looked up (upstream's exemption).
constexpr std::array<std::string_view, 2> kSystemPriorityClasses{"system-cluster-critical", "system-node-critical"};

const json::object* policy(const sdk::Info& info) { return sdk::podGroupPolicyConfig(info, "volcano"); }

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
    if (sdk::keepExistingPodGroup(info, ctx, kPodGroupApiVersion)) return std::nullopt;
    auto totals = sdk::sumPodSets(info, ctx);
    if (!totals) return std::nullopt;

    json::object spec{{"minMember", totals->minMember}, {"minResources", std::move(totals->minResources)}};
    if (auto* annotations = info.objectMember("annotations"))
        if (auto queue = sdk::getString(*annotations, kQueueNameAnnotation)) spec["queue"] = *queue;
    if (auto names = priorityClassNames(info); !names.empty()) spec["priorityClassName"] = names.back();
    if (auto nt = networkTopology(*pol)) spec["networkTopology"] = std::move(*nt);

    return sdk::podGroupObject(info, kPodGroupApiVersion, std::move(spec));
}

void validateAdmission(const sdk::Info& info, sdk::Context& ctx) {
    if (!policy(info)) return;
    if (auto* annotations = info.objectMember("annotations")) {
        auto queue = sdk::getString(*annotations, kQueueNameAnnotation);
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
    return {
        .name = "volcano",
        .version = "0.1.0",
        .description = "Gang-schedules a TrainJob's pods with a Volcano PodGroup.",
        .claims = {"podGroupPolicy.volcano", "kind:scheduling.volcano.sh/v1beta1/PodGroup"},
        .watches = sdk::podGroupWatches(kPodGroupApiVersion),
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
