#include <boost/test/unit_test.hpp>

#include "../../support/plugin_test.hpp"

#include "../../../plugins/torch/torch.hpp"

using namespace trainer::plugins;
using namespace trainer::test;
using trainer::sdk::testing::envNames;
using trainer::sdk::testing::envValue;
using trainer::sdk::testing::Hook;
using trainer::sdk::testing::Outcome;
namespace json = boost::json;

namespace {

// A torchtune runtime like upstream's: the node container command carries the immutable configs.
json::object tuneRuntime(const std::string& name, int64_t numNodes, json::value resources = nullptr) {
    json::object node{{"name", "node"},
                      {"image", "ghcr.io/kubeflow/trainer/torchtune-trainer"},
                      {"command", json::array{"tune", "run", "output_dir=/workspace/output", "epochs=1",
                                              "tokenizer.path=/workspace/model/original/tokenizer.model",
                                              "checkpointer.checkpoint_dir=/workspace/model",
                                              "tokenizer.merges_file=/workspace/model/merges.txt"}}};
    if (!resources.is_null()) node["resources"] = resources;
    return makeRuntime(json::object{{"numNodes", numNodes}, {"torch", json::object{}}}, node, name);
}

json::object gpus(int n) { return json::object{{"limits", json::object{{"nvidia.com/gpu", n}}}}; }

// torch's EnforceMLPolicy on the real host with a `tune run` trainer; the resulting command.
std::vector<std::string> runTune(const json::object& runtime, json::object trainer) {
    trainer["command"] = json::array{"tune", "run"};
    auto runtimeName = std::string(runtime.at("metadata").at("name").as_string());
    auto out = runHook<torch::Torch>(Hook::EnforceMLPolicy, runtime, makeTrainJob(trainer, runtimeName));
    BOOST_TEST(out.ok(), out.describe());
    std::vector<std::string> cmd;
    for (auto const& a : out.info.at("trainJob").at("spec").at("trainer").at("command").as_array())
        cmd.emplace_back(a.is_string() ? std::string(a.as_string()) : "<non-string>");
    return cmd;
}

const std::vector<std::string> kOverrides{"output_dir=/workspace/output",
                                          "tokenizer.path=/workspace/model/original/tokenizer.model",
                                          "checkpointer.checkpoint_dir=/workspace/model",
                                          "tokenizer.merges_file=/workspace/model/merges.txt"};

}  // namespace

BOOST_AUTO_TEST_CASE(model_from_runtime_ref_table) {
    const std::vector<std::pair<std::string, std::string>> rows{
        {"torchtune-llama3.2-1b", "llama3_2/1B"},   {"torchtune-llama3.2-3b", "llama3_2/3B"},
        {"torchtune-llama3.3-70b", "llama3_3/70B"}, {"torchtune-qwen2.5-1.5b", "qwen2_5/1.5B"},
        {"torch-distributed", ""},                  {"a-b-c-d", ""},
        {"", ""}};
    for (auto const& [in, want] : rows) BOOST_TEST(torch::modelFromRuntimeRef(in) == want, "runtimeRef " << in);
    for (auto m : {"llama3_2/1B", "llama3_2/3B", "llama3_3/70B", "qwen2_5/1.5B"}) BOOST_TEST(torch::isSupportedModel(m));
    BOOST_TEST(!torch::isSupportedModel("llama3_1/8B"));
    BOOST_TEST(!torch::isSupportedModel(""));
}

BOOST_AUTO_TEST_CASE(recipe_and_config_table) {
    using torch::NumProcPerNode;
    const json::array none;
    const json::array lora{"model.lora_attn_modules=[q_proj,v_proj]"};
    const json::array qlora{"model.lora_attn_modules=[q_proj]", "model.quantize_base= True "};
    const json::array dora{"model.quantize_base=true", "model.use_dora=TRUE"};
    const json::array quantFalse{"model.quantize_base=false"};
    struct Row {
        const char* name;
        int64_t nodes;
        NumProcPerNode nproc;
        int64_t gpu;
        const json::array* args;
        std::string recipe, config;
    };
    const NumProcPerNode one{false, 1}, four{false, 4}, autoN{true, 0};
    const std::vector<Row> rows{
        {"single full (nproc 1)", 1, one, 0, &none, "full_finetune_single_device", "llama3_2/1B_full_single_device"},
        {"single full (gpu 1)", 1, autoN, 1, &none, "full_finetune_single_device", "llama3_2/1B_full_single_device"},
        {"single lora", 1, one, 0, &lora, "lora_finetune_single_device", "llama3_2/1B_lora_single_device"},
        {"single qlora", 1, autoN, 1, &qlora, "lora_finetune_single_device", "llama3_2/1B_qlora_single_device"},
        {"distributed lora", 1, four, 0, &lora, "lora_finetune_distributed", "llama3_2/1B_lora"},
        {"distributed qlora", 1, autoN, 2, &qlora, "lora_finetune_distributed", "llama3_2/1B_qlora"},
        {"dora disables qlora", 1, four, 0, &dora, "full_finetune_distributed", "llama3_2/1B_full"},
        {"quantize false", 1, four, 0, &quantFalse, "full_finetune_distributed", "llama3_2/1B_full"},
        {"distributed full", 1, four, 0, &none, "full_finetune_distributed", "llama3_2/1B_full"},
        {"multinode", 2, autoN, 8, &none, "full_finetune_distributed", "llama3_2/1B_full_multinode"},
        {"multinode lora stays full", 3, one, 0, &lora, "full_finetune_distributed", "llama3_2/1B_full_multinode"},
    };
    for (auto const& r : rows) {
        auto rc = torch::recipeAndConfig(r.nodes, r.nproc, r.gpu, "llama3_2/1B", r.args);
        BOOST_TEST(rc.recipe == r.recipe, r.name);
        BOOST_TEST(rc.config == r.config, r.name);
    }
}

BOOST_AUTO_TEST_CASE(rendezvous_rule_table) {
    using torch::NumProcPerNode;
    struct Row {
        int64_t nodes;
        NumProcPerNode nproc;
        int64_t gpu;
        bool want;
    };
    const std::vector<Row> rows{{1, {false, 1}, 0, false}, {2, {false, 1}, 0, true},  {1, {false, 2}, 0, true},
                                {1, {true, 0}, 1, false},  {1, {true, 0}, 2, true},   {1, {false, 1}, 4, false}};
    for (auto const& r : rows)
        BOOST_TEST(torch::needsRendezvous(r.nodes, r.nproc, r.gpu) == r.want,
                   "nodes " << r.nodes << " nproc " << r.nproc.str() << " gpu " << r.gpu);
}

// Full command rewrite through EnforceMLPolicy, for each supported model.
BOOST_AUTO_TEST_CASE(torchtune_command_rewrite) {
    struct Row {
        const char* runtime;
        int64_t numNodes;
        json::value resources;
        json::array args;
        std::vector<std::string> head;  // expected command before the immutable overrides
    };
    const std::string rdzv = "--rdzv_endpoint=test-job-node-0-0.test-job:29500";
    const std::vector<Row> rows{
        {"torchtune-llama3.2-1b", 1, gpus(1), {}, {"tune", "run", "full_finetune_single_device", "--config", "llama3_2/1B_full_single_device"}},
        {"torchtune-llama3.2-3b", 1, gpus(2), {}, {"tune", "run", rdzv, "full_finetune_distributed", "--config", "llama3_2/3B_full"}},
        {"torchtune-llama3.2-3b", 1, gpus(1), json::array{"model.lora_attn_modules=[q_proj]"}, {"tune", "run", "lora_finetune_single_device", "--config", "llama3_2/3B_lora_single_device"}},
        {"torchtune-llama3.2-1b", 1, gpus(1), json::array{"model.quantize_base=True"}, {"tune", "run", "lora_finetune_single_device", "--config", "llama3_2/1B_qlora_single_device"}},
        {"torchtune-qwen2.5-1.5b", 1, gpus(4), json::array{"model.lora_attn_modules=[q_proj]"}, {"tune", "run", rdzv, "lora_finetune_distributed", "--config", "qwen2_5/1.5B_lora"}},
        {"torchtune-llama3.3-70b", 1, gpus(8), json::array{"model.quantize_base=true"}, {"tune", "run", rdzv, "lora_finetune_distributed", "--config", "llama3_3/70B_qlora"}},
        {"torchtune-llama3.3-70b", 4, gpus(8), {}, {"tune", "run", rdzv, "full_finetune_distributed", "--config", "llama3_3/70B_full_multinode"}},
        // CPU only: auto resolves to ceil(cpu) = 1 → single device, no rendezvous.
        {"torchtune-llama3.2-1b", 1, json::object{{"requests", json::object{{"cpu", "500m"}}}}, {}, {"tune", "run", "full_finetune_single_device", "--config", "llama3_2/1B_full_single_device"}},
    };
    for (auto const& r : rows) {
        BOOST_TEST_CONTEXT(r.runtime << " nodes " << r.numNodes << " args " << json::serialize(r.args)) {
            json::object trainer{{"numNodes", r.numNodes}, {"resourcesPerNode", r.resources}};
            if (!r.args.empty()) trainer["args"] = r.args;
            auto cmd = runTune(tuneRuntime(r.runtime, 1), trainer);
            std::vector<std::string> want = r.head;
            want.insert(want.end(), kOverrides.begin(), kOverrides.end());
            BOOST_TEST(cmd == want, boost::test_tools::per_element());
        }
    }
}

// Torchtune mode: PET_NNODES/NPROC/NODE_RANK and the port, but no PET_MASTER_ADDR/PORT.
BOOST_AUTO_TEST_CASE(torchtune_env_and_port) {
    json::object trainer{{"command", json::array{"tune", "run"}}, {"resourcesPerNode", gpus(1)}};
    auto out = runHook<torch::Torch>(Hook::EnforceMLPolicy, tuneRuntime("torchtune-llama3.2-1b", 1),
                                     makeTrainJob(trainer, "torchtune-llama3.2-1b"));
    BOOST_TEST_REQUIRE(out.ok(), out.describe());
    auto const& c = container(out.info, "node", "node");
    std::vector<std::string> want{"PET_NNODES", "PET_NPROC_PER_NODE", "PET_NODE_RANK"};
    BOOST_TEST(envNames(c) == want, boost::test_tools::per_element());
    BOOST_TEST(envValue(c, "PET_NPROC_PER_NODE") == "auto");
    BOOST_TEST(envValue(c, "PET_MASTER_ADDR") == "<unset>");
    BOOST_TEST(trainer::sdk::testing::containerPorts(c) == std::vector<int64_t>{29500}, boost::test_tools::per_element());
    // The command edit targets the TrainJob (the JobSet builder copies it into the container);
    // the container keeps the runtime's command.
    BOOST_TEST(out.info.at("trainJob").at("spec").at("trainer").at("command").as_array().size() > 2u);
    BOOST_TEST(c.at("command").as_array().size() == 7u);
}

BOOST_AUTO_TEST_CASE(immutable_overrides_only_from_trainer_node_container) {
    json::object runtime = tuneRuntime("torchtune-llama3.2-1b", 1);
    auto& jobs = runtime["spec"].as_object()["template"].as_object()["spec"].as_object()["replicatedJobs"].as_array();
    // A model-initializer whose command has an immutable key: ignored.
    jobs.insert(jobs.begin(), json::object{{"name", "model-initializer"},
                                           {"template", json::object{{"metadata", json::object{{"labels", json::object{{"trainer.kubeflow.org/trainjob-ancestor-step", "model-initializer"}}}}},
                                                                     {"spec", json::object{{"template", json::object{{"spec", json::object{{"containers", json::array{json::object{{"name", "model-initializer"}, {"command", json::array{"output_dir=/x"}}}}}}}}}}}}}});
    trainer::sdk::Info info(infoFor(makeTrainJob(json::object{}, "torchtune-llama3.2-1b"), runtime));
    BOOST_TEST(torch::immutableOverrides(info) == kOverrides, boost::test_tools::per_element());
    BOOST_TEST(torch::configKey("output_dir=/a=b") == "output_dir");
    BOOST_TEST(torch::configKey("epochs") == "epochs");
    for (auto k : {"output_dir", "tokenizer.path", "checkpointer.checkpoint_dir", "tokenizer.merges_file"})
        BOOST_TEST(torch::isImmutableConfig(k));
    BOOST_TEST(!torch::isImmutableConfig("epochs"));
}
