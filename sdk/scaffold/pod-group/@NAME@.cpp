#include "@NAME@.hpp"

#include <optional>
#include <string>

namespace @IDENT@_plugin {

@CLASS@Plugin::@CLASS@Plugin(const json::object& config, Context& ctx) {
    if (auto t = getInt(config, "scheduleTimeoutSeconds")) {
        if (*t < 0) ctx.error("scheduleTimeoutSeconds", "must be 0 or more");
        timeout_ = *t;
    }
}

PluginMeta @CLASS@Plugin::meta() {
    return {.name = "@NAME@",
            .version = "0.1.0",
            .description = "@NAME@ pod-group policy (podGroupPolicy.@NAME@): gang labels on every pod",
            // The policy key (sdk/docs/abi.md rule 12). A backend building its own objects claims
            // their kind too: "kind:<apiVersion>/<Kind>".
            .claims = {"podGroupPolicy.@NAME@"}};
}

int64_t @CLASS@Plugin::timeoutSeconds(const Info& info) const {
    const json::object* policy = podGroupPolicyConfig(info, "@NAME@");
    return policy ? getInt(*policy, "scheduleTimeoutSeconds").value_or(timeout_) : timeout_;
}

void @CLASS@Plugin::validate(const Info& info, Context& ctx) {
    // The runtime's policy block is checked when a TrainJob using it is admitted; the path names
    // the runtime's field.
    const json::object* policy = podGroupPolicyConfig(info, "@NAME@");
    if (auto t = policy ? getInt(*policy, "scheduleTimeoutSeconds") : std::nullopt; t && *t < 0)
        ctx.error("spec.podGroupPolicy.@NAME@.scheduleTimeoutSeconds",
                  "Invalid value: " + std::to_string(*t) + ": must be 0 or more");
}

void @CLASS@Plugin::enforcePodGroupPolicy(const Info& info, Edits& edits, Context& ctx) {
    // This phase sees the ML policy's counts (numNodes applied): the gang is every pod of them.
    auto totals = sumPodSets(info, ctx);
    if (!totals) return;
    edits.setPodLabel(kPodGroupLabel, info.name());
    edits.setPodAnnotation(kMinMemberAnnotation, std::to_string(totals->minMember));
    edits.setPodAnnotation(kTimeoutAnnotation, std::to_string(timeoutSeconds(info)));
    ctx.debug("@NAME@ gang of " + std::to_string(totals->minMember) + " for " + std::string(info.name()));
}

}  // namespace @IDENT@_plugin
