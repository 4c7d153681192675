// The torch ML policy (upstream
// https://github.com/kubeflow/trainer/blob/8c0f5059bd51ec3ba6d6a6a7b2e1471de7bc13b3/pkg/runtime/framework/plugins/torch/torch.go
// and torchtune.go beside it): PET_* env for torchrun, torchtune command rewriting, envInjection
// targets, and the torch admission checks.
#pragma once

#include <trainer/plugin.hpp>
#include <trainer/pod_dns.hpp>
#include <trainer/policy.hpp>
#include <trainer/resources.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace trainer::plugins::torch {

namespace json = boost::json;

// The shared resource arithmetic (torch.go EnforceMLPolicy's resources, GPU and CPU counts), from
// <trainer/resources.hpp>.
using sdk::ceilQuantity;
using sdk::cpuCount;
using sdk::effectiveResources;
using sdk::gpuCount;

// Upstream constants
// (https://github.com/kubeflow/trainer/blob/8c0f5059bd51ec3ba6d6a6a7b2e1471de7bc13b3/pkg/constants/constants.go).
inline constexpr std::string_view kEnvNumNodes = "PET_NNODES";
inline constexpr std::string_view kEnvNumProcPerNode = "PET_NPROC_PER_NODE";
inline constexpr std::string_view kEnvNodeRank = "PET_NODE_RANK";
inline constexpr std::string_view kEnvMasterAddr = "PET_MASTER_ADDR";
inline constexpr std::string_view kEnvMasterPort = "PET_MASTER_PORT";
inline constexpr int64_t kTrainerPort = 29500;
inline constexpr std::string_view kNode = "node";
inline constexpr std::string_view kAncestorTrainer = "trainer";
using sdk::kCompletionIndexFieldPath;

// torchrun's --nproc-per-node: an integer, or the literal "auto" (torchrun resolves it).
struct NumProcPerNode {
    bool isAuto = true;
    int64_t value = 0;
    std::string str() const { return isAuto ? "auto" : std::to_string(value); }
    bool isInt(int64_t v) const { return !isAuto && value == v; }
};

// TrainJob numProcPerNode, else "auto" (a non-integer value counts as unset).
NumProcPerNode jobNumProcPerNode(const json::object* trainer);
// torch.go EnforceMLPolicy: TrainJob numProcPerNode, else "auto"; "auto" without GPUs becomes
// max(1, ceil(cpu)) of `resources`; `gpu` is the GPU count of the same resources.
NumProcPerNode resolveNumProcPerNode(const json::object* trainer, const json::object* resources, int64_t gpu);

using sdk::completionIndexEnv;

// True when `command` is exactly ["tune","run"].
bool isTorchTune(const json::object* trainer);

// ---- torchtune (torchtune.cpp) ----

// `x-<m>-<s>` → "<m with . → _>/<S upper>"; "" unless exactly three '-' separated parts.
std::string modelFromRuntimeRef(std::string_view runtimeRefName);
// Some arg contains "model.lora_attn_modules".
bool isLoRA(const json::array* args);
// Some `key=value` arg with key containing "model.quantize_base" is true, and no
// "model.use_dora" arg is true.
bool isQLoRA(const json::array* args);

struct RecipeAndConfig {
    std::string recipe;
    std::string config;
};
// Recipe and config name (torchtune.go getRecipeAndConfig).
RecipeAndConfig recipeAndConfig(int64_t numNodes, const NumProcPerNode& nproc, int64_t gpu, std::string_view model,
                                const json::array* args);
// Whether `--rdzv_endpoint` is added.
bool needsRendezvous(int64_t numNodes, const NumProcPerNode& nproc, int64_t gpu);
// Key of a `key=value` argument (the whole string without '=').
std::string_view configKey(std::string_view arg);
bool isImmutableConfig(std::string_view key);
// Items of the runtime's trainer `node` container command whose key is an immutable config.
std::vector<std::string> immutableOverrides(const sdk::Info& info);
// The full torchtune command: ["tune","run"] + rdzv? + recipe, "--config", config + overrides.
json::array torchTuneCommand(const sdk::Info& info, int64_t numNodes, const NumProcPerNode& nproc, int64_t gpu);

// Models torchtune supports, recipes and config suffixes (upstream constants.go).
inline constexpr std::string_view kModelLlama32_1B = "llama3_2/1B";
inline constexpr std::string_view kModelLlama32_3B = "llama3_2/3B";
inline constexpr std::string_view kModelLlama33_70B = "llama3_3/70B";
inline constexpr std::string_view kModelQwen25_1_5B = "qwen2_5/1.5B";
bool isSupportedModel(std::string_view model);

// The plugin.
class Torch final : public sdk::Plugin, public sdk::CustomValidation, public sdk::EnforceMLPolicy {
public:
    Torch(const json::object& config, sdk::Context& ctx);
    static sdk::PluginMeta meta();

    void validate(const sdk::Info& info, sdk::Context& ctx) override;
    void enforceMLPolicy(const sdk::Info& info, sdk::Edits& edits, sdk::Context& ctx) override;
};

}  // namespace trainer::plugins::torch
