// The XGBoost ML policy (upstream
// https://github.com/kubeflow/trainer/blob/8c0f5059bd51ec3ba6d6a6a7b2e1471de7bc13b3/pkg/runtime/framework/plugins/xgboost/xgboost.go):
// DMLC_* tracker env and port 29500 on the trainer `node` container, plus PlainML's duties for its
// runtimes (count from numNodes, trainer.env), because the default PlainML plugin does not run when
// an mlPolicy member is set.
#pragma once

#include <trainer/plugin.hpp>
#include <trainer/pod_dns.hpp>
#include <trainer/policy.hpp>
#include <trainer/resources.hpp>

#include <cstdint>
#include <string_view>

namespace trainer::plugins::xgboost {

namespace json = boost::json;

inline constexpr std::string_view kEnvTrackerUri = "DMLC_TRACKER_URI";
inline constexpr std::string_view kEnvTrackerPort = "DMLC_TRACKER_PORT";
inline constexpr std::string_view kEnvTaskId = "DMLC_TASK_ID";
inline constexpr std::string_view kEnvNumWorker = "DMLC_NUM_WORKER";
inline constexpr int64_t kTrainerPort = 29500;

// Workers per node: the GPU count of the TrainJob resourcesPerNode (wholesale) or of the
// runtime's trainer container, or 1 without GPUs.
int64_t workersPerNode(const sdk::Info& info);

// The plugin.
// Its one admission check, refusing the DMLC_* names in spec.trainer.env, is the host's, from
// its env: claims and its envRefusal: claim (upstream's message, per entry).
class XGBoost final : public sdk::Plugin, public sdk::EnforceMLPolicy {
public:
    XGBoost(const json::object& config, sdk::Context& ctx);
    static sdk::PluginMeta meta();

    void enforceMLPolicy(const sdk::Info& info, sdk::Edits& edits, sdk::Context& ctx) override;
};

}  // namespace trainer::plugins::xgboost
