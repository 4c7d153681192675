#include "@NAME@.hpp"

#include <optional>
#include <string>

namespace @IDENT@_plugin {

namespace {
bool validPort(int64_t p) { return p >= 1 && p <= 65535; }
}  // namespace

@CLASS@Plugin::@CLASS@Plugin(const json::object& config, Context& ctx) {
    if (auto p = getInt(config, "port")) {
        if (!validPort(*p)) ctx.error("port", "must be between 1 and 65535");
        port_ = *p;
    }
}

PluginMeta @CLASS@Plugin::meta() {
    return {.name = "@NAME@",
            .version = "0.1.0",
            .description = "@NAME@ ML policy (mlPolicy.@NAME@): @ENV_PREFIX@_* env vars on the trainer nodes",
            .priority = 100,
            // The policy key, every env var named @ENV_PREFIX@_*, and how the host words the
            // refusal of a TrainJob setting one of them (sdk/docs/abi.md rule 12).
            .claims = {"mlPolicy.@NAME@", "env:@ENV_PREFIX@_*", "envRefusal:{name} is reserved for the @NAME@ policy"}};
}

int64_t @CLASS@Plugin::port(const Info& info) const {
    const json::object* policy = mlPolicyConfig(info, "@NAME@");
    return policy ? getInt(*policy, "port").value_or(port_) : port_;
}

void @CLASS@Plugin::validate(const Info& info, Context& ctx) {
    // The runtime's policy block is checked when a TrainJob using it is admitted; the path names
    // the runtime's field.
    const json::object* policy = mlPolicyConfig(info, "@NAME@");
    if (auto p = policy ? getInt(*policy, "port") : std::nullopt; p && !validPort(*p))
        ctx.error("spec.mlPolicy.@NAME@.port",
                  "Invalid value: " + std::to_string(*p) + ": must be between 1 and 65535");
}

void @CLASS@Plugin::enforceMLPolicy(const Info& info, Edits& edits, Context& ctx) {
    // The ML policy in force applies the TrainJob's numNodes (sdk/docs/info.md "Conventions").
    auto nodes = applyTrainerNumNodes(info, edits);
    if (!nodes) {
        ctx.error("spec.template.spec.replicatedJobs", "a replicated job with ancestor label trainer is required");
        return;
    }
    if (!Info::container(*nodes->podSet, "node")) return;
    const std::string& podSet = nodes->name;
    edits.upsertEnv(podSet, "node", "@ENV_PREFIX@_NUM_NODES", std::to_string(nodes->count));
    edits.upsertEnv(podSet, "node", completionIndexEnv("@ENV_PREFIX@_NODE_RANK"));
    edits.upsertEnv(podSet, "node", "@ENV_PREFIX@_MASTER_ADDR", trainerPodDnsName(info));
    edits.upsertEnv(podSet, "node", "@ENV_PREFIX@_MASTER_PORT", std::to_string(port(info)));
    ctx.debug("@NAME@ env set for " + std::string(info.name()));
}

}  // namespace @IDENT@_plugin
