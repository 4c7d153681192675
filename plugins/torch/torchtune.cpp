#include "torch.hpp"

#include <algorithm>
#include <array>
#include <cctype>

namespace trainer::plugins::torch {

using sdk::getArray;
using sdk::getObject;
using sdk::getString;

namespace {

constexpr std::array<std::string_view, 4> kModels{kModelLlama32_1B, kModelLlama32_3B, kModelLlama33_70B,
                                                  kModelQwen25_1_5B};
constexpr std::array<std::string_view, 4> kImmutableConfigs{"output_dir", "tokenizer.path",
                                                            "checkpointer.checkpoint_dir", "tokenizer.merges_file"};

constexpr std::string_view kFullSingle = "full_finetune_single_device";
constexpr std::string_view kFullDistributed = "full_finetune_distributed";
constexpr std::string_view kLoraSingle = "lora_finetune_single_device";
constexpr std::string_view kLoraDistributed = "lora_finetune_distributed";

std::string lowerTrimmed(std::string_view s) {
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
    std::string out(s);
    for (auto& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return out;
}

// True when some `key=value` arg has a key containing `needle` and the value "true".
bool hasTrueFlag(const json::array* args, std::string_view needle) {
    if (!args) return false;
    for (auto const& a : *args) {
        if (!a.is_string()) continue;
        std::string_view s(a.as_string());
        auto eq = s.find('=');
        if (eq == std::string_view::npos) continue;
        if (s.substr(0, eq).find(needle) != std::string_view::npos && lowerTrimmed(s.substr(eq + 1)) == "true")
            return true;
    }
    return false;
}

}  // namespace

std::string modelFromRuntimeRef(std::string_view name) {
    std::vector<std::string_view> parts;
    size_t start = 0;
    for (;;) {
        auto pos = name.find('-', start);
        parts.push_back(name.substr(start, pos == std::string_view::npos ? std::string_view::npos : pos - start));
        if (pos == std::string_view::npos) break;
        start = pos + 1;
    }
    if (parts.size() != 3) return "";
    std::string m(parts[1]);
    std::replace(m.begin(), m.end(), '.', '_');
    std::string s(parts[2]);
    for (auto& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    return m + "/" + s;
}

bool isSupportedModel(std::string_view model) {
    return std::find(kModels.begin(), kModels.end(), model) != kModels.end();
}

bool isLoRA(const json::array* args) {
    if (!args) return false;
    return std::any_of(args->begin(), args->end(), [](const json::value& a) {
        return a.is_string() && std::string_view(a.as_string()).find("model.lora_attn_modules") != std::string_view::npos;
    });
}

bool isQLoRA(const json::array* args) {
    return !hasTrueFlag(args, "model.use_dora") && hasTrueFlag(args, "model.quantize_base");
}

RecipeAndConfig recipeAndConfig(int64_t numNodes, const NumProcPerNode& nproc, int64_t gpu, std::string_view model,
                                const json::array* args) {
    std::string_view recipe = kFullDistributed, suffix = "_full";
    if (numNodes == 1 && (nproc.isInt(1) || gpu == 1)) {
        if (isQLoRA(args)) recipe = kLoraSingle, suffix = "_qlora_single_device";
        else if (isLoRA(args)) recipe = kLoraSingle, suffix = "_lora_single_device";
        else recipe = kFullSingle, suffix = "_full_single_device";
    } else if (numNodes == 1 && isQLoRA(args)) {
        recipe = kLoraDistributed, suffix = "_qlora";
    } else if (numNodes == 1 && isLoRA(args)) {
        recipe = kLoraDistributed, suffix = "_lora";
    } else if (numNodes > 1) {
        suffix = "_full_multinode";
    }
    return {std::string(recipe), std::string(model) + std::string(suffix)};
}

bool needsRendezvous(int64_t numNodes, const NumProcPerNode& nproc, int64_t gpu) {
    return numNodes > 1 || (!nproc.isAuto && nproc.value > 1) || (nproc.isAuto && gpu > 1);
}

std::string_view configKey(std::string_view arg) { return arg.substr(0, arg.find('=')); }

bool isImmutableConfig(std::string_view key) {
    return std::find(kImmutableConfigs.begin(), kImmutableConfigs.end(), key) != kImmutableConfigs.end();
}

std::vector<std::string> immutableOverrides(const sdk::Info& info) {
    std::vector<std::string> out;
    auto* jobs = getArray(info.jobSetSpec(), "replicatedJobs");
    if (!jobs) return out;
    for (auto const& j : *jobs) {
        if (!j.is_object()) continue;
        auto* labels = sdk::getPath(j.as_object(), {"template", "metadata", "labels"});
        if (!labels || getString(*labels, "trainer.kubeflow.org/trainjob-ancestor-step").value_or("") != kAncestorTrainer)
            continue;
        auto* pod = sdk::getPath(j.as_object(), {"template", "spec", "template", "spec"});
        auto* containers = pod ? getArray(*pod, "containers") : nullptr;
        if (!containers) continue;
        for (auto const& c : *containers) {
            if (!c.is_object() || getString(c.as_object(), "name").value_or("") != kNode) continue;
            if (auto* cmd = getArray(c.as_object(), "command"))
                for (auto const& item : *cmd)
                    if (item.is_string() && isImmutableConfig(configKey(std::string_view(item.as_string()))))
                        out.emplace_back(item.as_string());
        }
    }
    return out;
}

json::array torchTuneCommand(const sdk::Info& info, int64_t numNodes, const NumProcPerNode& nproc, int64_t gpu) {
    json::array cmd{"tune", "run"};
    if (needsRendezvous(numNodes, nproc, gpu))
        cmd.emplace_back("--rdzv_endpoint=" + sdk::trainerPodDnsName(info) + ":" + std::to_string(kTrainerPort));
    auto* ref = getObject(info.spec(), "runtimeRef");
    std::string model = modelFromRuntimeRef(ref ? getString(*ref, "name").value_or("") : "");
    const json::object* trainer = info.trainer();
    auto rc = recipeAndConfig(numNodes, nproc, gpu, model, trainer ? getArray(*trainer, "args") : nullptr);
    cmd.emplace_back(rc.recipe);
    cmd.emplace_back("--config");
    cmd.emplace_back(rc.config);
    for (auto& o : immutableOverrides(info)) cmd.emplace_back(o);
    return cmd;
}

}  // namespace trainer::plugins::torch
