#include "jax.hpp"

#include <string>

namespace trainer::plugins::jax {

using sdk::getInt;
using sdk::getObject;
using sdk::getString;

Jax::Jax(const json::object&, sdk::Context&) {}

sdk::PluginMeta Jax::meta() {
    sdk::PluginMeta m;
    m.name = "jax";
    m.version = "0.1.0";
    m.description = "JAX ML policy: JAX_* distributed env and the coordinator port.";
    m.claims = {"mlPolicy.jax", "env:JAX_NUM_PROCESSES", "env:JAX_PROCESS_ID", "env:JAX_COORDINATOR_ADDRESS"};
    return m;
}

void Jax::enforceMLPolicy(const sdk::Info& info, sdk::Edits& edits, sdk::Context&) {
    auto* ml = info.mlPolicy();
    if (!ml || !getObject(*ml, "jax")) return;
    const json::object* trainer = info.trainer();
    const json::object* ps = info.podSetByAncestor("trainer");
    if (!ps) return;
    std::string psName(getString(*ps, "name").value_or(""));

    // Info is a snapshot: keep the count we set.
    int64_t count = getInt(*ps, "count").value_or(1);
    if (trainer)
        if (auto n = getInt(*trainer, "numNodes")) {
            count = *n;
            edits.setCount(psName, count);
        }
    if (!trainer || !sdk::Info::container(*ps, "node")) return;

    std::string job(info.name());
    edits.upsertEnv(psName, "node", kEnvNumProcesses, std::to_string(count));
    edits.upsertEnv(psName, "node",
                    json::object{{"name", kEnvProcessId},
                                 {"valueFrom",
                                  json::object{{"fieldRef",
                                                json::object{{"fieldPath",
                                                              "metadata.annotations['batch.kubernetes.io/"
                                                              "job-completion-index']"}}}}}});
    edits.upsertEnv(psName, "node", kEnvCoordinatorAddress,
                    job + "-node-0-0." + job + ":" + std::to_string(kTrainerPort));
    edits.upsertPort(psName, "node", json::object{{"containerPort", kTrainerPort}});
}

}  // namespace trainer::plugins::jax
