#include "xgboost.hpp"

#include <algorithm>
#include <array>
#include <string>

namespace trainer::plugins::xgboost {

using sdk::getArray;
using sdk::getInt;
using sdk::getObject;
using sdk::getString;

namespace {
constexpr std::array<std::string_view, 4> kReserved{kEnvTrackerUri, kEnvTrackerPort, kEnvTaskId, kEnvNumWorker};
}  // namespace

bool isReservedEnv(std::string_view name) {
    return std::find(kReserved.begin(), kReserved.end(), name) != kReserved.end();
}

int64_t workersPerNode(const sdk::Info& info) {
    int64_t gpu = sdk::gpuCount(sdk::effectiveResources(info));
    return gpu > 0 ? gpu : 1;
}

XGBoost::XGBoost(const json::object&, sdk::Context&) {}

sdk::PluginMeta XGBoost::meta() {
    sdk::PluginMeta m;
    m.name = "xgboost";
    m.version = "0.1.0";
    m.description = "XGBoost ML policy: DMLC_* tracker env, the tracker port and the trainer env.";
    m.claims = {"mlPolicy.xgboost", "env:DMLC_TRACKER_URI", "env:DMLC_TRACKER_PORT", "env:DMLC_TASK_ID",
                "env:DMLC_NUM_WORKER"};
    return m;
}

void XGBoost::validate(const sdk::Info& info, sdk::Context& ctx) {
    const json::object* trainer = info.trainer();
    auto* env = trainer ? getArray(*trainer, "env") : nullptr;
    if (!env) return;
    for (size_t i = 0; i < env->size(); ++i) {
        if (!(*env)[i].is_object()) continue;
        auto name = getString((*env)[i].as_object(), "name");
        if (name && isReservedEnv(*name))
            ctx.error("spec.trainer.env[" + std::to_string(i) + "]",
                      std::string(*name) + " is reserved for the XGBoost runtime");
    }
}

void XGBoost::enforceMLPolicy(const sdk::Info& info, sdk::Edits& edits, sdk::Context&) {
    auto* ml = info.mlPolicy();
    if (!ml || !getObject(*ml, "xgboost")) return;
    const json::object* trainer = info.trainer();
    auto nodes = sdk::applyTrainerNumNodes(info, edits);  // 0 is propagated, as upstream
    if (!nodes || !trainer || !sdk::Info::container(*nodes->podSet, "node")) return;
    const std::string& psName = nodes->name;
    const int64_t count = nodes->count;

    // PlainML's part: the TrainJob env, before the DMLC_* values.
    if (auto* env = getArray(*trainer, "env"))
        for (auto const& e : *env)
            if (e.is_object() && getString(e.as_object(), "name")) edits.upsertEnv(psName, "node", e.as_object());

    std::string job(info.name());
    edits.upsertEnv(psName, "node", kEnvTrackerUri, job + "-node-0-0." + job);
    edits.upsertEnv(psName, "node", kEnvTrackerPort, std::to_string(kTrainerPort));
    edits.upsertEnv(psName, "node", sdk::completionIndexEnv(kEnvTaskId));
    edits.upsertEnv(psName, "node", kEnvNumWorker, std::to_string(count * workersPerNode(info)));
    edits.upsertPort(psName, "node", json::object{{"containerPort", kTrainerPort}});
}

}  // namespace trainer::plugins::xgboost
