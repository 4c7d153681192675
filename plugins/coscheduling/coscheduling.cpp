#include "coscheduling.hpp"

#include <string>

namespace trainer::plugins::coscheduling {
namespace {

const json::object* policy(const sdk::Info& info) { return sdk::podGroupPolicyConfig(info, "coscheduling"); }

}  // namespace

bool checkTimeout(const sdk::Info& info, sdk::Context& ctx) {
    auto* pol = policy(info);
    if (!pol) return true;
    auto timeout = sdk::getInt(*pol, "scheduleTimeoutSeconds");
    if (!timeout || *timeout >= 0) return true;
    std::string runtime;
    if (auto* rt = info.objectMember("runtime"))
        if (auto* md = sdk::getObject(*rt, "metadata"))
            runtime = std::string(sdk::getString(*rt, "kind").value_or("runtime")) + " \"" +
                      std::string(sdk::getString(*md, "name").value_or("")) + "\" ";
    ctx.error("spec.podGroupPolicy.coscheduling.scheduleTimeoutSeconds",
              "Invalid value: " + std::to_string(*timeout) + ": " + runtime +
                  "must set a timeout greater than or equal to 0 seconds");
    return false;
}

std::optional<json::object> buildPodGroup(const sdk::Info& info, sdk::Context& ctx) {
    auto* pol = policy(info);
    if (!pol) return std::nullopt;
    if (!checkTimeout(info, ctx)) return std::nullopt;
    if (sdk::keepExistingPodGroup(info, ctx, kPodGroupApiVersion)) return std::nullopt;
    auto totals = sdk::sumPodSets(info, ctx);
    if (!totals) return std::nullopt;
    int64_t timeout = sdk::getInt(*pol, "scheduleTimeoutSeconds").value_or(kDefaultScheduleTimeoutSeconds);
    return sdk::podGroupObject(info, kPodGroupApiVersion,
                               json::object{{"minMember", totals->minMember},
                                            {"minResources", std::move(totals->minResources)},
                                            {"scheduleTimeoutSeconds", timeout}});
}

Coscheduling::Coscheduling(const json::object& config, sdk::Context& ctx) {
    for (auto const& kv : config)
        ctx.warning(std::string(kv.key()), "unknown configuration key; coscheduling takes no configuration");
}

sdk::PluginMeta Coscheduling::meta() {
    return {
        .name = "coscheduling",
        .version = "0.1.0",
        .description = "Gang-schedules a TrainJob's pods with a scheduler-plugins PodGroup.",
        .claims = {"podGroupPolicy.coscheduling", "kind:scheduling.x-k8s.io/v1alpha1/PodGroup"},
        .watches = sdk::podGroupWatches(kPodGroupApiVersion),
    };
}

void Coscheduling::validate(const sdk::Info& info, sdk::Context& ctx) { checkTimeout(info, ctx); }

void Coscheduling::enforcePodGroupPolicy(const sdk::Info& info, sdk::Edits& edits, sdk::Context&) {
    if (!policy(info)) return;
    edits.setPodLabel(kPodGroupLabel, info.name());
}

void Coscheduling::build(const sdk::Info& info, sdk::Objects& objects, sdk::Context& ctx) {
    if (auto pg = buildPodGroup(info, ctx)) objects.add(*pg);
}

}  // namespace trainer::plugins::coscheduling
