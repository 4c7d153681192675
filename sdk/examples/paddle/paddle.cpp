#include "paddle.hpp"

#include <algorithm>
#include <array>
#include <string>

namespace example::paddle {

namespace {
constexpr std::array<std::string_view, 4> kEnv{"PADDLE_NNODES", "PADDLE_MASTER", "PADDLE_TRAINER_ID",
                                               "PADDLE_TRAINERS_NUM"};
}

PaddlePlugin::PaddlePlugin(const json::object& config, Context& ctx) {
    if (auto p = getInt(config, "port")) {
        if (*p < 1 || *p > 65535) ctx.error("port", "must be between 1 and 65535");
        port_ = *p;
    }
}

PluginMeta PaddlePlugin::meta() {
    return PluginMeta{"paddle", "0.1.0", "PaddlePaddle collective training (mlPolicy.paddle)", 100, true,
                      {"mlPolicy.paddle", "env:PADDLE_NNODES", "env:PADDLE_MASTER", "env:PADDLE_TRAINER_ID",
                       "env:PADDLE_TRAINERS_NUM"},
                      {}};
}

void PaddlePlugin::validate(const Info& info, Context& ctx) {
    auto* trainer = info.trainer();
    if (!trainer) return;
    if (auto* env = getArray(*trainer, "env"))
        for (size_t i = 0; i < env->size(); ++i) {
            if (!(*env)[i].is_object()) continue;
            auto name = getString((*env)[i].as_object(), "name").value_or("");
            if (std::find(kEnv.begin(), kEnv.end(), name) != kEnv.end())
                ctx.error("spec.trainer.env[" + std::to_string(i) + "].name",
                          std::string(name) + " is reserved for the PaddlePaddle runtime");
        }
}

void PaddlePlugin::enforceMLPolicy(const Info& info, Edits& edits, Context& ctx) {
    auto nodes = applyTrainerNumNodes(info, edits);
    if (!nodes) {
        ctx.error("spec.template.spec.replicatedJobs", "a replicated job with ancestor label trainer is required");
        return;
    }
    if (!Info::container(*nodes->podSet, "node")) return;
    const std::string& podSet = nodes->name;
    std::string job(info.name());
    edits.upsertEnv(podSet, "node", "PADDLE_NNODES", std::to_string(nodes->count));
    edits.upsertEnv(podSet, "node", "PADDLE_TRAINERS_NUM", std::to_string(nodes->count));
    edits.upsertEnv(podSet, "node", completionIndexEnv("PADDLE_TRAINER_ID"));
    edits.upsertEnv(podSet, "node", "PADDLE_MASTER", job + "-" + podSet + "-0-0." + job + ":" + std::to_string(port_));
    edits.upsertPort(podSet, "node", json::object{{"containerPort", port_}});
    ctx.debug("paddle env set for " + job);
}

}  // namespace example::paddle
