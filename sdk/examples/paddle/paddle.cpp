#include "paddle.hpp"

#include <string>

namespace example::paddle {

namespace {
bool validPort(int64_t p) { return p >= 1 && p <= 65535; }
}  // namespace

PaddlePlugin::PaddlePlugin(const json::object& config, Context& ctx) {
    if (auto p = getInt(config, "port")) {
        if (!validPort(*p)) ctx.error("port", "must be between 1 and 65535");
        port_ = *p;
    }
}

PluginMeta PaddlePlugin::meta() {
    return {.name = "paddle",
            .version = "0.1.0",
            .description = "PaddlePaddle collective training (mlPolicy.paddle)",
            .priority = 100,
            .claims = {"mlPolicy.paddle", "env:PADDLE_NNODES", "env:PADDLE_MASTER", "env:PADDLE_TRAINER_ID",
                       "env:PADDLE_TRAINERS_NUM", "envRefusal:{name} is reserved for the PaddlePaddle runtime"}};
}

int64_t PaddlePlugin::port(const Info& info) const {
    const json::object* policy = mlPolicyConfig(info, "paddle");
    return policy ? getInt(*policy, "port").value_or(port_) : port_;
}

void PaddlePlugin::validate(const Info& info, Context& ctx) {
    // The runtime's own config is checked when a TrainJob using it is admitted (sdk/docs/abi.md
    // "Checking a runtime's policy configuration"); the path names the runtime's field.
    const json::object* policy = mlPolicyConfig(info, "paddle");
    if (auto p = policy ? getInt(*policy, "port") : std::nullopt; p && !validPort(*p))
        ctx.error("spec.mlPolicy.paddle.port", "Invalid value: " + std::to_string(*p) + ": must be between 1 and 65535");
}

void PaddlePlugin::enforceMLPolicy(const Info& info, Edits& edits, Context& ctx) {
    auto nodes = applyTrainerNumNodes(info, edits);
    if (!nodes) {
        ctx.error("spec.template.spec.replicatedJobs", "a replicated job with ancestor label trainer is required");
        return;
    }
    if (!Info::container(*nodes->podSet, "node")) return;
    const std::string& podSet = nodes->name;
    const int64_t masterPort = port(info);
    edits.upsertEnv(podSet, "node", "PADDLE_NNODES", std::to_string(nodes->count));
    edits.upsertEnv(podSet, "node", "PADDLE_TRAINERS_NUM", std::to_string(nodes->count));
    edits.upsertEnv(podSet, "node", completionIndexEnv("PADDLE_TRAINER_ID"));
    edits.upsertEnv(podSet, "node", "PADDLE_MASTER", trainerPodDnsName(info) + ":" + std::to_string(masterPort));
    edits.upsertPort(podSet, "node", json::object{{"containerPort", masterPort}});
    ctx.debug("paddle env set for " + std::string(info.name()));
}

}  // namespace example::paddle
