#include "jax.hpp"

#include <string>

namespace trainer::plugins::jax {

using sdk::getInt;
using sdk::getObject;
using sdk::getString;

Jax::Jax(const json::object&, sdk::Context&) {}

sdk::PluginMeta Jax::meta() {
    return {.name = "jax",
            .version = "0.1.0",
            .description = "JAX ML policy: JAX_* distributed env and the coordinator port.",
            .claims = {"mlPolicy.jax", "env:JAX_NUM_PROCESSES", "env:JAX_PROCESS_ID", "env:JAX_COORDINATOR_ADDRESS"}};
}

void Jax::enforceMLPolicy(const sdk::Info& info, sdk::Edits& edits, sdk::Context&) {
    if (!sdk::mlPolicyConfig(info, "jax")) return;
    const json::object* trainer = info.trainer();
    auto nodes = sdk::applyTrainerNumNodes(info, edits);
    if (!nodes || !trainer || !sdk::Info::container(*nodes->podSet, "node")) return;
    const std::string& psName = nodes->name;

    edits.upsertEnv(psName, "node", kEnvNumProcesses, std::to_string(nodes->count));
    edits.upsertEnv(psName, "node", sdk::completionIndexEnv(kEnvProcessId));
    edits.upsertEnv(psName, "node", kEnvCoordinatorAddress,
                    sdk::trainerPodDnsName(info) + ":" + std::to_string(kTrainerPort));
    edits.upsertPort(psName, "node", json::object{{"containerPort", kTrainerPort}});
}

}  // namespace trainer::plugins::jax
