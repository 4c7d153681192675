#include <boost/test/unit_test.hpp>

#include "../../support/plugin_test.hpp"

#include "../../../plugins/torch/torch.hpp"

using namespace trainer::plugins;
using namespace trainer::test;
using trainer::sdk::testing::Hook;
namespace json = boost::json;

namespace {

// One reported error, comparable and printable for BOOST_TEST.
struct Err {
    std::string path, message;
    bool operator==(const Err&) const = default;
};
std::ostream& operator<<(std::ostream& os, const Err& e) { return os << e.path << ": " << e.message; }
using Errors = std::vector<Err>;

// torch's CustomValidation on the real host (admission CREATE of the Info the operator builds).
Errors validate(const json::object& runtime, const json::object& trainJob) {
    auto r = runHook<torch::Torch>(Hook::CustomValidation, runtime, trainJob);
    Errors out;
    for (auto const& d : r.diagnostics) {
        BOOST_TEST(d.severity == TRN_SEVERITY_ERROR);
        out.push_back({d.path, d.message});
    }
    return out;
}

json::object tuneRuntime(const std::string& name, json::value resources = nullptr, int64_t numNodes = 1) {
    json::object node{{"name", "node"}, {"command", json::array{"tune", "run", "output_dir=/workspace/output"}}};
    if (!resources.is_null()) node["resources"] = resources;
    return makeRuntime(json::object{{"numNodes", numNodes}, {"torch", json::object{}}}, node, name);
}

json::object gpus(int n) { return json::object{{"limits", json::object{{"nvidia.com/gpu", n}}}}; }

}  // namespace

// The PET_* names in spec.trainer.env are refused by the host from the env: claims
// (test/core/plugin/reserved_env_test.cpp; through this plugin: test/e2e/cli_e2e_test.cpp).

BOOST_AUTO_TEST_CASE(env_injection_target_missing) {
    json::object runtime = makeRuntime(
        json::object{{"torch", json::object{{"envInjection", json::object{{"targets", json::array{json::object{{"jobName", "node"}, {"containerNames", json::array{"missing"}}}}}}}}}},
        json::object{{"name", "node"}});
    Errors want{{"spec.runtimeRef", R"(envInjection target podSet "node" container "missing" not found in runtime template)"}};
    BOOST_TEST(validate(runtime, makeTrainJob(json::object{})) == want, boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(torchtune_validation_table) {
    struct Row {
        const char* name;
        std::string runtime;
        json::object trainer;  // command tune run is added
        Errors want;
    };
    const std::string qloraMsg1 = "must be auto or 1 for llama3_2/1B model when using QLoRA";
    const std::string qloraMsg2 = "must have gpu resource with value 1 for llama3_2/1B model when using QLoRA";
    const std::vector<Row> rows{
        {"supported single device", "torchtune-llama3.2-1b", {{"resourcesPerNode", gpus(1)}}, {}},
        {"unsupported model", "torchtune-llama3.1-8b", {{"resourcesPerNode", gpus(1)}},
         {{"spec.runtimeRef.name", "must have a supported pretrained model, invalid model configured: llama3_1/8B"}}},
        {"not a model name", "my-runtime", {{"resourcesPerNode", gpus(1)}},
         {{"spec.runtimeRef.name", "must have a supported pretrained model, invalid model configured: "}}},
        {"multi-node non 70B", "torchtune-llama3.2-3b", {{"numNodes", 2}, {"resourcesPerNode", gpus(1)}},
         {{"spec.trainer.numNodes", "must be 1 for llama3_2/3B model"}}},
        {"multi-node 70B ok", "torchtune-llama3.3-70b", {{"numNodes", 2}, {"resourcesPerNode", gpus(8)}}, {}},
        {"qwen qlora", "torchtune-qwen2.5-1.5b", {{"resourcesPerNode", gpus(1)}, {"args", json::array{"model.quantize_base=true"}}},
         {{"spec.runtimeRef.name", "QLoRA is not supported for qwen2_5/1.5B model"}}},
        {"llama 1B qlora distributed", "torchtune-llama3.2-1b", {{"resourcesPerNode", gpus(2)}, {"args", json::array{"model.quantize_base=true"}}},
         {{"spec.trainer.numProcPerNode", qloraMsg1}, {"spec.trainer.resourcesPerNode", qloraMsg2}}},
        {"llama 1B qlora single device ok", "torchtune-llama3.2-1b", {{"resourcesPerNode", gpus(1)}, {"args", json::array{"model.quantize_base=true"}}}, {}},
        // Upstream's validateTorchTune keeps "auto" unresolved: without a GPU it is not single
        // device, whatever the CPU count the build would resolve it to.
        {"llama 1B qlora auto on one cpu", "torchtune-llama3.2-1b",
         {{"resourcesPerNode", json::object{{"requests", json::object{{"cpu", 1}}}}}, {"args", json::array{"model.quantize_base=true"}}},
         {{"spec.trainer.numProcPerNode", qloraMsg1}, {"spec.trainer.resourcesPerNode", qloraMsg2}}},
        {"llama 1B qlora auto without resources", "torchtune-llama3.2-1b", {{"args", json::array{"model.quantize_base=true"}}},
         {{"spec.trainer.numProcPerNode", qloraMsg1}, {"spec.trainer.resourcesPerNode", qloraMsg2}}},
        {"llama 1B qlora numProcPerNode 1 on cpu ok", "torchtune-llama3.2-1b",
         {{"numProcPerNode", 1}, {"resourcesPerNode", json::object{{"requests", json::object{{"cpu", 4}}}}}, {"args", json::array{"model.quantize_base=true"}}},
         {}},
        {"70B qlora distributed ok", "torchtune-llama3.3-70b", {{"resourcesPerNode", gpus(8)}, {"args", json::array{"model.quantize_base=true"}}}, {}},
        {"multi-node lora", "torchtune-llama3.3-70b", {{"numNodes", 2}, {"resourcesPerNode", gpus(8)}, {"args", json::array{"model.lora_attn_modules=[q_proj]"}}},
         {{"spec.trainer.numNodes", "LoRA fine-tuning is not supported for multi-node training in TorchTune"}}},
        {"multi-node qlora", "torchtune-llama3.3-70b", {{"numNodes", 3}, {"resourcesPerNode", gpus(8)}, {"args", json::array{"model.quantize_base=true"}}},
         {{"spec.trainer.numNodes", "LoRA fine-tuning is not supported for multi-node training in TorchTune"}}},
        {"immutable args", "torchtune-llama3.2-1b",
         {{"resourcesPerNode", gpus(1)}, {"args", json::array{"epochs=2", "output_dir=/tmp/x", "tokenizer.path=/t", "checkpointer.checkpoint_dir=/c", "tokenizer.merges_file=/m"}}},
         {{"spec.trainer.args[1]", R"(must not set immutable config "output_dir" in trainer args; it is managed by the runtime)"},
          {"spec.trainer.args[2]", R"(must not set immutable config "tokenizer.path" in trainer args; it is managed by the runtime)"},
          {"spec.trainer.args[3]", R"(must not set immutable config "checkpointer.checkpoint_dir" in trainer args; it is managed by the runtime)"},
          {"spec.trainer.args[4]", R"(must not set immutable config "tokenizer.merges_file" in trainer args; it is managed by the runtime)"}}},
    };
    for (auto const& r : rows) {
        BOOST_TEST_CONTEXT(r.name) {
            json::object trainer = r.trainer;
            trainer["command"] = json::array{"tune", "run"};
            auto got = validate(tuneRuntime(r.runtime), makeTrainJob(trainer, r.runtime));
            BOOST_TEST(got == r.want, boost::test_tools::per_element());
        }
    }
}

// Deliberate difference: upstream validates torchtune with the TrainJob's numNodes only (unset =
// 1); a runtime whose mlPolicy.numNodes is 2 then builds `llama3_2/1B_full_multinode` (no such
// torchtune config) and drops LoRA args. Here the runtime's count is checked when the TrainJob
// sets none.
BOOST_AUTO_TEST_CASE(torchtune_num_nodes_from_the_runtime) {
    json::object trainer{{"command", json::array{"tune", "run"}}, {"resourcesPerNode", gpus(1)},
                         {"args", json::array{"model.lora_attn_modules=[q_proj]"}}};
    auto runtime = tuneRuntime("torchtune-llama3.2-1b", nullptr, 2);
    Errors want{{"spec.trainer.numNodes", "must be 1 for llama3_2/1B model"},
                {"spec.trainer.numNodes", "LoRA fine-tuning is not supported for multi-node training in TorchTune"}};
    BOOST_TEST(validate(runtime, makeTrainJob(trainer, "torchtune-llama3.2-1b")) == want, boost::test_tools::per_element());
    // The TrainJob's own numNodes wins over the runtime's.
    trainer["numNodes"] = 1;
    BOOST_TEST(validate(runtime, makeTrainJob(trainer, "torchtune-llama3.2-1b")).empty());
}

// Only the exact ["tune","run"] command is torchtune mode.
BOOST_AUTO_TEST_CASE(not_torchtune_command) {
    json::object trainer{{"command", json::array{"tune", "run", "extra"}}};
    BOOST_TEST(validate(tuneRuntime("my-runtime"), makeTrainJob(trainer, "my-runtime")).empty());
    BOOST_TEST(!torch::isTorchTune(&trainer));
    json::object tune{{"command", json::array{"tune", "run"}}};
    BOOST_TEST(torch::isTorchTune(&tune));
}
