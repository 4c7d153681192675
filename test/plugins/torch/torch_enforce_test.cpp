#define BOOST_TEST_MODULE torch_plugin_test
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

// EnforceMLPolicy of torch on the real host: the Info the operator builds, the edits applied by
// its ledger.
Outcome enforceTorch(const json::object& runtime, const json::object& trainJob) {
    return runHook<torch::Torch>(Hook::EnforceMLPolicy, runtime, trainJob);
}

std::vector<json::value> rawEdits(const json::object& runtime, const json::object& trainJob) {
    return mlPolicyEdits<torch::Torch>(runtime, trainJob);
}

std::vector<int64_t> ports(const json::object& c) { return trainer::sdk::testing::containerPorts(c); }

json::object nodeContainer(json::value resources = nullptr) {
    json::object c{{"name", "node"}, {"image", "test:runtime"}};
    if (!resources.is_null()) c["resources"] = resources;
    return c;
}

json::object torchPolicy(int64_t numNodes = 1) { return json::object{{"numNodes", numNodes}, {"torch", json::object{}}}; }

}  // namespace

BOOST_AUTO_TEST_CASE(quantity_ceil_table) {
    struct Row {
        json::value in;
        std::optional<int64_t> want;
    };
    const std::vector<Row> rows{{"4", 4},          {"2500m", 3},  {"2.5", 3},         {"0.7", 1},   {"1", 1},
                                {"0", 0},          {"100m", 1},   {"1k", 1000},       {"1Ki", 1024}, {"1e3", 1000},
                                {"1.5Gi", 1610612736}, {"5n", 1},  {"+2", 2},          {json::value(2), 2},
                                {json::value(0.5), 1}, {"-1", std::nullopt}, {"abc", std::nullopt}, {"", std::nullopt},
                                {"1x", std::nullopt}, {json::value(true), std::nullopt}};
    for (auto const& r : rows) {
        BOOST_TEST_CONTEXT("quantity " << json::serialize(r.in)) {
            auto got = torch::ceilQuantity(r.in);
            BOOST_TEST(got.has_value() == r.want.has_value());
            if (got && r.want) BOOST_TEST(*got == *r.want);
        }
    }
}

// Upstream's nproc without GPUs, max(1, cpu) (EnforceMLPolicy in
// https://github.com/kubeflow/trainer/blob/8c0f5059bd51ec3ba6d6a6a7b2e1471de7bc13b3/pkg/runtime/framework/plugins/torch/torch.go):
// numProcPerNode unset, CPU only.
BOOST_AUTO_TEST_CASE(nproc_auto_cpu_only_table) {
    struct Row {
        const char* name;
        json::value resourcesPerNode;  // TrainJob resourcesPerNode, null = none
        json::value runtimeResources;  // runtime node container resources
        std::string want;
    };
    const std::vector<Row> rows{
        {"4", json::object{{"requests", json::object{{"cpu", "4"}}}}, nullptr, "4"},
        {"2500m", json::object{{"requests", json::object{{"cpu", "2500m"}}}}, nullptr, "3"},
        {"2.5", json::object{{"requests", json::object{{"cpu", "2.5"}}}}, nullptr, "3"},
        {"0.7", json::object{{"requests", json::object{{"cpu", "0.7"}}}}, nullptr, "1"},
        {"none", nullptr, nullptr, "1"},
        {"limits only", json::object{{"limits", json::object{{"cpu", "6"}}}}, nullptr, "6"},
        {"requests zero falls to limits", json::object{{"requests", json::object{{"cpu", "0"}}}, {"limits", json::object{{"cpu", "2"}}}}, nullptr, "2"},
        {"runtime resources", nullptr, json::object{{"requests", json::object{{"cpu", "3"}}}}, "3"},
        {"trainjob wins wholesale", json::object{{"requests", json::object{{"memory", "1Gi"}}}}, json::object{{"requests", json::object{{"cpu", "8"}}}}, "1"},
    };
    for (auto const& r : rows) {
        BOOST_TEST_CONTEXT(r.name) {
            json::object trainer{{"numNodes", 2}};
            if (!r.resourcesPerNode.is_null()) trainer["resourcesPerNode"] = r.resourcesPerNode;
            auto out = enforceTorch(makeRuntime(torchPolicy(), nodeContainer(r.runtimeResources)), makeTrainJob(trainer));
            BOOST_TEST(out.ok(), out.describe());
            BOOST_TEST(envValue(container(out.info, "node", "node"), "PET_NPROC_PER_NODE") == r.want);
        }
    }
}

BOOST_AUTO_TEST_CASE(nproc_gpu_and_integer_table) {
    struct Row {
        const char* name;
        json::object trainer;
        json::value runtimeResources;
        std::string want;
    };
    const std::vector<Row> rows{
        {"gpu requests → auto", {{"resourcesPerNode", json::object{{"requests", json::object{{"nvidia.com/gpu", "2"}, {"cpu", "4"}}}}}}, nullptr, "auto"},
        {"gpu limits only → auto", {{"resourcesPerNode", json::object{{"limits", json::object{{"nvidia.com/gpu", 1}}}}}}, nullptr, "auto"},
        {"runtime gpu → auto", {}, json::object{{"limits", json::object{{"amd.com/GPU", "4"}}}}, "auto"},
        {"integer wins over gpu", {{"numProcPerNode", 3}, {"resourcesPerNode", json::object{{"requests", json::object{{"nvidia.com/gpu", "2"}}}}}}, nullptr, "3"},
        {"integer without resources", {{"numProcPerNode", 5}}, nullptr, "5"},
        // torch.go's quirk: the TrainJob's resourcesPerNode is used wholesale, hiding the runtime GPUs.
        {"TrainJob resources hide the runtime GPUs", {{"resourcesPerNode", json::object{{"requests", json::object{{"cpu", "4"}}}}}}, json::object{{"limits", json::object{{"nvidia.com/gpu", "2"}}}}, "4"},
    };
    for (auto const& r : rows) {
        BOOST_TEST_CONTEXT(r.name) {
            auto out = enforceTorch(makeRuntime(torchPolicy(), nodeContainer(r.runtimeResources)), makeTrainJob(r.trainer));
            BOOST_TEST(out.ok(), out.describe());
            BOOST_TEST(envValue(container(out.info, "node", "node"), "PET_NPROC_PER_NODE") == r.want);
        }
    }
}

BOOST_AUTO_TEST_CASE(numnodes_zero_and_default) {
    auto out = enforceTorch(makeRuntime(torchPolicy(4), nodeContainer()), makeTrainJob(json::object{{"numNodes", 0}}));
    BOOST_TEST(podSetCount(out.info, "node") == 0);
    BOOST_TEST(envValue(container(out.info, "node", "node"), "PET_NNODES") == "0");

    out = enforceTorch(makeRuntime(torchPolicy(4), nodeContainer()), makeTrainJob(json::object{}));
    BOOST_TEST(podSetCount(out.info, "node") == 4);
    BOOST_TEST(envValue(container(out.info, "node", "node"), "PET_NNODES") == "4");
    // Without spec.trainer.numNodes the count is not written at all (another plugin may own it).
    for (auto const& e : rawEdits(makeRuntime(torchPolicy(4), nodeContainer()), makeTrainJob(json::object{})))
        BOOST_TEST(std::string(e.as_object().at("path").as_string()) != "/podSets/node/count");
}

// As torch.go: no spec.trainer → no PET_* env and no port.
BOOST_AUTO_TEST_CASE(no_trainer_no_env) {
    auto out = enforceTorch(makeRuntime(torchPolicy(3), nodeContainer()), makeTrainJob(nullptr));
    BOOST_TEST(out.ok(), out.describe());
    BOOST_TEST(rawEdits(makeRuntime(torchPolicy(3), nodeContainer()), makeTrainJob(nullptr)).empty());
    BOOST_TEST(envNames(container(out.info, "node", "node")).empty());
    BOOST_TEST(ports(container(out.info, "node", "node")).empty());
}

BOOST_AUTO_TEST_CASE(no_torch_policy_is_a_no_op) {
    // The host never runs torch there (its policy is not configured); torch checks anyway.
    BOOST_TEST(rawEdits(makeRuntime(json::object{{"numNodes", 2}}, nodeContainer()), makeTrainJob(json::object{{"numNodes", 5}})).empty());
}

// The worked example (test/plugins/jobset/fixtures.hpp): upstream's
// TestTrainingRuntimeNewObjects, case "succeeded to build JobSet with Torch values from the Runtime and envs." in
// https://github.com/kubeflow/trainer/blob/8c0f5059bd51ec3ba6d6a6a7b2e1471de7bc13b3/pkg/runtime/core/trainingruntime_test.go.
BOOST_AUTO_TEST_CASE(worked_example_section_6) {
    json::object node = nodeContainer(json::object{{"requests", json::object{{"cpu", "1"}}}});
    node["env"] = json::array{json::object{{"name", "TRAIN_JOB"}, {"value", "original"}},
                              json::object{{"name", "RUNTIME"}, {"value", "test:runtime"}}};
    json::object trainer{{"image", "test:trainjob"},
                         {"command", json::array{"trainjob"}},
                         {"args", json::array{"trainjob"}},
                         {"resourcesPerNode", json::object{{"requests", json::object{{"cpu", "1"}}}}},
                         {"env", json::array{json::object{{"name", "TRAIN_JOB"}, {"value", "override"}},
                                             json::object{{"name", "TRAIN_JOB_CUSTOM"}, {"value", "test:trainjob"}}}}};
    auto out = enforceTorch(makeRuntime(torchPolicy(100), node), makeTrainJob(trainer));
    BOOST_TEST_REQUIRE(out.ok(), out.describe());
    auto const& c = container(out.info, "node", "node");
    std::vector<std::string> want{"TRAIN_JOB",  "RUNTIME",           "TRAIN_JOB_CUSTOM", "PET_NNODES",
                                  "PET_NPROC_PER_NODE", "PET_NODE_RANK", "PET_MASTER_ADDR", "PET_MASTER_PORT"};
    BOOST_TEST(envNames(c) == want, boost::test_tools::per_element());
    BOOST_TEST(envValue(c, "TRAIN_JOB") == "override");
    BOOST_TEST(envValue(c, "RUNTIME") == "test:runtime");
    BOOST_TEST(envValue(c, "TRAIN_JOB_CUSTOM") == "test:trainjob");
    BOOST_TEST(envValue(c, "PET_NNODES") == "100");
    BOOST_TEST(envValue(c, "PET_NPROC_PER_NODE") == "1");
    BOOST_TEST(envValue(c, "PET_MASTER_ADDR") == "test-job-node-0-0.test-job");
    BOOST_TEST(envValue(c, "PET_MASTER_PORT") == "29500");
    auto* rank = trainer::sdk::findByKey(trainer::sdk::getArray(c, "env"), "name", "PET_NODE_RANK");
    BOOST_REQUIRE(rank);
    BOOST_TEST(json::serialize(rank->at("valueFrom")) ==
               R"({"fieldRef":{"fieldPath":"metadata.annotations['batch.kubernetes.io/job-completion-index']"}})");
    BOOST_TEST(ports(c) == std::vector<int64_t>{29500}, boost::test_tools::per_element());
    BOOST_TEST(podSetCount(out.info, "node") == 100);
}

// Conformance case 04: the edits produce the expected env and port of the node container.
BOOST_AUTO_TEST_CASE(conformance_case_04) {
    auto cs = readCase("04-torch-numnodes-and-int-numprocpernode.json");
    auto out = enforceTorch(cs.at("runtimes").as_array()[0].as_object(), cs.at("trainJob").as_object());
    BOOST_TEST_REQUIRE(out.ok(), out.describe());
    BOOST_TEST(podSetCount(out.info, "node") == 30);
    BOOST_TEST(podSetCount(out.info, "dataset-initializer") == 1);
    auto const& got = container(out.info, "node", "node");
    auto& jobs = cs.at("expectedObjects").as_array()[0].at("spec").at("replicatedJobs").as_array();
    const json::object* want = nullptr;
    for (auto const& j : jobs)
        if (j.at("name") == "node")
            want = &j.at("template").at("spec").at("template").at("spec").at("containers").as_array()[0].as_object();
    BOOST_REQUIRE(want);
    for (auto const& e : want->at("env").as_array()) {
        auto* g = trainer::sdk::findByKey(trainer::sdk::getArray(got, "env"), "name", e.at("name").as_string());
        BOOST_TEST_CONTEXT("env " << e.at("name")) {
            BOOST_REQUIRE(g);
            BOOST_TEST(json::serialize(*g) == json::serialize(e));
        }
    }
    BOOST_TEST(envNames(got).size() == want->at("env").as_array().size());
    BOOST_TEST(ports(got) == std::vector<int64_t>{29500}, boost::test_tools::per_element());
    // Initializer containers are untouched.
    BOOST_TEST(envNames(container(out.info, "dataset-initializer", "dataset-initializer")).empty());
}

BOOST_AUTO_TEST_CASE(env_injection_targets) {
    json::object runtime = makeRuntime(
        json::object{{"numNodes", 2},
                     {"torch", json::object{{"envInjection",
                                             json::object{{"targets", json::array{json::object{
                                                                          {"jobName", "node"},
                                                                          {"containerNames", json::array{"sidecar", "setup"}}}}}}}}}},
        nodeContainer());
    auto& pod = runtime["spec"].as_object()["template"].as_object()["spec"].as_object()["replicatedJobs"].as_array()[0]
                    .as_object()["template"].as_object()["spec"].as_object()["template"].as_object()["spec"].as_object();
    pod["containers"].as_array().push_back(json::object{{"name", "sidecar"}});
    pod["initContainers"] = json::array{json::object{{"name", "setup"}}};

    for (bool withTrainer : {true, false}) {
        BOOST_TEST_CONTEXT("spec.trainer present: " << withTrainer) {
            auto out = enforceTorch(runtime, makeTrainJob(withTrainer ? json::value(json::object{{"numProcPerNode", 2}}) : json::value(nullptr)));
            BOOST_TEST_REQUIRE(out.ok(), out.describe());
            std::vector<std::string> want{"PET_NNODES", "PET_NPROC_PER_NODE", "PET_NODE_RANK", "PET_MASTER_ADDR", "PET_MASTER_PORT"};
            for (auto [name, init] : {std::pair{"sidecar", false}, std::pair{"setup", true}}) {
                auto const& c = container(out.info, "node", name, init);
                BOOST_TEST(envNames(c) == want, boost::test_tools::per_element());
                BOOST_TEST(envValue(c, "PET_NNODES") == "2");
                BOOST_TEST(envValue(c, "PET_NPROC_PER_NODE") == (withTrainer ? "2" : "1"));
                BOOST_TEST(envValue(c, "PET_MASTER_ADDR") == "test-job-node-0-0.test-job");
                BOOST_TEST(envValue(c, "PET_MASTER_PORT") == "29500");
                BOOST_TEST(ports(c).empty());
            }
            BOOST_TEST(envNames(container(out.info, "node", "node")).size() == (withTrainer ? 5u : 0u));
        }
    }

    // Missing container → the exact error.
    auto& targets = runtime["spec"].as_object()["mlPolicy"].as_object()["torch"].as_object()["envInjection"].as_object()["targets"].as_array();
    targets.push_back(json::object{{"jobName", "launcher"}, {"containerNames", json::array{"x"}}});
    auto out = enforceTorch(runtime, makeTrainJob(json::object{}));
    BOOST_REQUIRE(out.errors().size() == 1u);
    BOOST_TEST(out.errors()[0].message == R"(envInjection target podSet "launcher" container "x" not found in runtime template)");
}
