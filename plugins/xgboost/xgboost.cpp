#include "xgboost.hpp"

#include <string>

namespace trainer::plugins::xgboost {

using sdk::getArray;
using sdk::getInt;
using sdk::getObject;
using sdk::getString;

int64_t workersPerNode(const sdk::Info& info) {
    int64_t gpu = sdk::gpuCount(sdk::effectiveResources(info));
    return gpu > 0 ? gpu : 1;
}

XGBoost::XGBoost(const json::object&, sdk::Context&) {}

sdk::PluginMeta XGBoost::meta() {
    return {.name = "xgboost",
            .version = "0.1.0",
            .description = "XGBoost ML policy: DMLC_* tracker env, the tracker port and the trainer env.",
            .claims = {"mlPolicy.xgboost", "env:DMLC_TRACKER_URI", "env:DMLC_TRACKER_PORT", "env:DMLC_TASK_ID",
                       "env:DMLC_NUM_WORKER", "envRefusal:{name} is reserved for the XGBoost runtime"}};
}

void XGBoost::enforceMLPolicy(const sdk::Info& info, sdk::Edits& edits, sdk::Context&) {
    if (!sdk::mlPolicyConfig(info, "xgboost")) return;
    const json::object* trainer = info.trainer();
    auto nodes = sdk::applyTrainerNumNodes(info, edits);  // 0 is propagated, as upstream
    if (!nodes || !trainer || !sdk::Info::container(*nodes->podSet, "node")) return;
    const std::string& psName = nodes->name;
    const int64_t count = nodes->count;

    // PlainML's part: the TrainJob env, before the DMLC_* values.
    if (auto* env = getArray(*trainer, "env"))
        for (auto const& e : *env)
            if (e.is_object() && getString(e.as_object(), "name")) edits.upsertEnv(psName, "node", e.as_object());

    edits.upsertEnv(psName, "node", kEnvTrackerUri, sdk::trainerPodDnsName(info));
    edits.upsertEnv(psName, "node", kEnvTrackerPort, std::to_string(kTrainerPort));
    edits.upsertEnv(psName, "node", sdk::completionIndexEnv(kEnvTaskId));
    edits.upsertEnv(psName, "node", kEnvNumWorker, std::to_string(count * workersPerNode(info)));
    edits.upsertPort(psName, "node", json::object{{"containerPort", kTrainerPort}});
}

}  // namespace trainer::plugins::xgboost
