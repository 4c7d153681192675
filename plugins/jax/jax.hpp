// The JAX ML policy (upstream
// https://github.com/kubeflow/trainer/blob/8c0f5059bd51ec3ba6d6a6a7b2e1471de7bc13b3/pkg/runtime/framework/plugins/jax/jax.go):
// trainer count from numNodes and, with spec.trainer, the JAX distributed env and port 29500 on the
// trainer `node` container.
#pragma once

#include <trainer/plugin.hpp>
#include <trainer/pod_dns.hpp>
#include <trainer/policy.hpp>

#include <cstdint>
#include <string_view>

namespace trainer::plugins::jax {

namespace json = boost::json;

inline constexpr std::string_view kEnvNumProcesses = "JAX_NUM_PROCESSES";
inline constexpr std::string_view kEnvProcessId = "JAX_PROCESS_ID";
inline constexpr std::string_view kEnvCoordinatorAddress = "JAX_COORDINATOR_ADDRESS";
inline constexpr int64_t kTrainerPort = 29500;

// The plugin. Upstream's Validate is a no-op, so no CustomValidation table is exported.
class Jax final : public sdk::Plugin, public sdk::EnforceMLPolicy {
public:
    Jax(const json::object& config, sdk::Context& ctx);
    static sdk::PluginMeta meta();

    void enforceMLPolicy(const sdk::Info& info, sdk::Edits& edits, sdk::Context& ctx) override;
};

}  // namespace trainer::plugins::jax
