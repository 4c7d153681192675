#include "torch.hpp"

#include <algorithm>
#include <array>
#include <utility>

namespace trainer::plugins::torch {

using sdk::getArray;
using sdk::getInt;
using sdk::getObject;
using sdk::getString;

namespace {

// A container of an envInjection target, resolved.
struct Target {
    std::string podSet;
    std::string container;
    bool init;
};

// Resolves every envInjection target (regular containers first, then init containers);
// returns the messages of the missing ones.
std::vector<std::string> resolveTargets(const sdk::Info& info, const json::object& torchPolicy,
                                        std::vector<Target>& out) {
    std::vector<std::string> missing;
    auto* targets = sdk::getPath(torchPolicy, {"envInjection"});
    auto* list = targets ? getArray(*targets, "targets") : nullptr;
    if (!list) return missing;
    for (auto const& t : *list) {
        if (!t.is_object()) continue;
        std::string job(getString(t.as_object(), "jobName").value_or(""));
        auto* names = getArray(t.as_object(), "containerNames");
        if (!names) continue;
        auto* ps = info.podSet(job);
        for (auto const& n : *names) {
            std::string c(n.is_string() ? std::string_view(n.as_string()) : std::string_view());
            if (ps && sdk::Info::container(*ps, c)) out.push_back({job, c, false});
            else if (ps && sdk::Info::initContainer(*ps, c)) out.push_back({job, c, true});
            else
                missing.push_back("envInjection target podSet \"" + job + "\" container \"" + c +
                                  "\" not found in runtime template");
        }
    }
    return missing;
}

// The node count the build will use: the TrainJob's, else the runtime's mlPolicy.numNodes
// (the trainer PodSet's count), else 1. Upstream's validateTorchTune reads the TrainJob only
// (nil meaning 1), so a runtime with numNodes > 1 passes its single-node checks and the build
// then asks torchtune for a `<model>_full_multinode` config, silently dropping LoRA args; a
// deliberate difference (README "Where we deliberately differ from upstream").
int64_t effectiveNumNodes(const sdk::Info& info, const json::object* trainer) {
    if (trainer)
        if (auto n = getInt(*trainer, "numNodes")) return *n;
    if (auto* ml = info.mlPolicy())
        if (auto n = getInt(*ml, "numNodes")) return *n;
    return 1;
}

}  // namespace

NumProcPerNode jobNumProcPerNode(const json::object* trainer) {
    if (trainer) {
        auto it = trainer->find("numProcPerNode");
        if (it != trainer->end() && (it->value().is_int64() || it->value().is_uint64()))
            return NumProcPerNode{false, *getInt(*trainer, "numProcPerNode")};
    }
    return NumProcPerNode{};
}

NumProcPerNode resolveNumProcPerNode(const json::object* trainer, const json::object* resources, int64_t gpu) {
    NumProcPerNode n = jobNumProcPerNode(trainer);
    if (n.isAuto && gpu == 0) n = NumProcPerNode{false, std::max<int64_t>(1, cpuCount(resources))};
    return n;
}

bool isTorchTune(const json::object* trainer) {
    auto* cmd = trainer ? getArray(*trainer, "command") : nullptr;
    return cmd && cmd->size() == 2 && (*cmd)[0].is_string() && (*cmd)[0].as_string() == "tune" &&
           (*cmd)[1].is_string() && (*cmd)[1].as_string() == "run";
}

Torch::Torch(const json::object&, sdk::Context&) {}

sdk::PluginMeta Torch::meta() {
    return {.name = "torch",
            .version = "0.1.0",
            .description = "PyTorch ML policy: torchrun PET_* env, torchtune commands, env injection.",
            .claims = {"mlPolicy.torch", "env:PET_NNODES", "env:PET_NPROC_PER_NODE", "env:PET_NODE_RANK",
                       "env:PET_MASTER_ADDR", "env:PET_MASTER_PORT"}};
}

void Torch::enforceMLPolicy(const sdk::Info& info, sdk::Edits& edits, sdk::Context& ctx) {
    const json::object* torchPolicy = sdk::mlPolicyConfig(info, "torch");
    if (!torchPolicy) return;
    const json::object* trainer = info.trainer();

    // Step 1: the trainer PodSet's count; Info is a snapshot, so keep the value we set.
    const auto nodes = sdk::applyTrainerNumNodes(info, edits);
    const json::object* trainerPS = nodes ? nodes->podSet : nullptr;
    const std::string psName = nodes ? nodes->name : std::string();
    const int64_t numNodes = nodes ? nodes->count : 1;

    // Steps 2-5.
    const json::object* res = effectiveResources(info);
    int64_t gpu = gpuCount(res);
    NumProcPerNode nproc = resolveNumProcPerNode(trainer, res, gpu);
    std::string nnodes = std::to_string(numNodes);

    // Step 6: the main trainer container, only with spec.trainer.
    if (trainer && trainerPS && sdk::Info::container(*trainerPS, kNode)) {
        if (auto* env = getArray(*trainer, "env"))
            for (auto const& e : *env)
                if (e.is_object() && getString(e.as_object(), "name")) edits.upsertEnv(psName, kNode, e.as_object());
        edits.upsertEnv(psName, kNode, kEnvNumNodes, nnodes);
        edits.upsertEnv(psName, kNode, kEnvNumProcPerNode, nproc.str());
        edits.upsertEnv(psName, kNode, completionIndexEnv(kEnvNodeRank));
        if (!isTorchTune(trainer)) {
            edits.upsertEnv(psName, kNode, kEnvMasterAddr, sdk::trainerPodDnsName(info));
            edits.upsertEnv(psName, kNode, kEnvMasterPort, std::to_string(kTrainerPort));
        } else {
            edits.set("/trainJob/spec/trainer/command", torchTuneCommand(info, numNodes, nproc, gpu));
        }
        edits.upsertPort(psName, kNode, json::object{{"containerPort", kTrainerPort}});
    }

    // Step 7: envInjection targets, regardless of spec.trainer.
    std::vector<Target> targets;
    auto missing = resolveTargets(info, *torchPolicy, targets);
    if (!missing.empty()) {
        ctx.error("", missing.front());
        return;
    }
    const std::string masterAddr = sdk::trainerPodDnsName(info);
    for (auto const& t : targets) {
        edits.upsertEnv(t.podSet, t.container, kEnvNumNodes, nnodes, t.init);
        edits.upsertEnv(t.podSet, t.container, kEnvNumProcPerNode, nproc.str(), t.init);
        edits.upsertEnv(t.podSet, t.container, completionIndexEnv(kEnvNodeRank), t.init);
        edits.upsertEnv(t.podSet, t.container, kEnvMasterAddr, masterAddr, t.init);
        edits.upsertEnv(t.podSet, t.container, kEnvMasterPort, std::to_string(kTrainerPort), t.init);
    }
}

void Torch::validate(const sdk::Info& info, sdk::Context& ctx) {
    const json::object* torchPolicy = sdk::mlPolicyConfig(info, "torch");
    if (!torchPolicy) return;

    std::vector<Target> targets;
    for (auto const& msg : resolveTargets(info, *torchPolicy, targets)) ctx.error("spec.runtimeRef", msg);

    // The five PET_* names a TrainJob must not set are refused by the host from the env:
    // claims (sdk/docs/info.md "What the host refuses"), with upstream's message.
    const json::object* trainer = info.trainer();
    if (!trainer || !isTorchTune(trainer)) return;

    auto* ref = getObject(info.spec(), "runtimeRef");
    std::string model = modelFromRuntimeRef(ref ? getString(*ref, "name").value_or("") : "");
    if (!isSupportedModel(model))
        ctx.error("spec.runtimeRef.name", "must have a supported pretrained model, invalid model configured: " + model);

    int64_t numNodes = effectiveNumNodes(info, trainer);
    if (numNodes > 1 && model != kModelLlama33_70B)
        ctx.error("spec.trainer.numNodes", "must be 1 for " + model + " model");

    // As upstream's validateTorchTune: numProcPerNode is the TrainJob's or "auto", never the
    // CPU count EnforceMLPolicy resolves "auto" to, so CPU-only QLoRA with "auto" on a 1B/3B
    // model is refused (its single-device config needs the one GPU the message asks for).
    int64_t gpu = gpuCount(effectiveResources(info));
    NumProcPerNode nproc = jobNumProcPerNode(trainer);
    const json::array* args = getArray(*trainer, "args");
    std::string config = recipeAndConfig(numNodes, nproc, gpu, model, args).config;
    if (config.find("_qlora") != std::string::npos) {
        if (model == kModelQwen25_1_5B)
            ctx.error("spec.runtimeRef.name", "QLoRA is not supported for " + model + " model");
        if (config.find("_qlora_single_device") == std::string::npos &&
            (model == kModelLlama32_1B || model == kModelLlama32_3B)) {
            ctx.error("spec.trainer.numProcPerNode", "must be auto or 1 for " + model + " model when using QLoRA");
            ctx.error("spec.trainer.resourcesPerNode",
                      "must have gpu resource with value 1 for " + model + " model when using QLoRA");
        }
    }
    if (numNodes > 1 && (isLoRA(args) || isQLoRA(args)))
        ctx.error("spec.trainer.numNodes", "LoRA fine-tuning is not supported for multi-node training in TorchTune");

    if (args)
        for (size_t i = 0; i < args->size(); ++i) {
            if (!(*args)[i].is_string()) continue;
            std::string key(configKey(std::string_view((*args)[i].as_string())));
            if (isImmutableConfig(key))
                ctx.error("spec.trainer.args[" + std::to_string(i) + "]",
                          "must not set immutable config \"" + key + "\" in trainer args; it is managed by the runtime");
        }
}

}  // namespace trainer::plugins::torch
