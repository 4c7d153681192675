#define BOOST_TEST_MODULE xgboost_plugin_test
#include <boost/test/unit_test.hpp>

#include "../../support/plugin_test.hpp"

#include "../../../plugins/xgboost/xgboost.hpp"

using namespace trainer::plugins;
using namespace trainer::test;
using trainer::sdk::testing::envNames;
using trainer::sdk::testing::envValue;
using trainer::sdk::testing::Hook;
namespace json = boost::json;

namespace {

// xgboost's EnforceMLPolicy on the real host; the Info after its edits.
json::object runEnforce(const json::object& runtime, const json::object& trainJob) {
    auto out = runHook<xgboost::XGBoost>(Hook::EnforceMLPolicy, runtime, trainJob);
    BOOST_TEST(out.ok(), out.describe());
    return out.info;
}

std::vector<int64_t> ports(const json::object& c) { return trainer::sdk::testing::containerPorts(c); }

json::object xgbRuntime(int64_t numNodes, json::value resources = nullptr) {
    json::object node{{"name", "node"}, {"env", json::array{json::object{{"name", "RUNTIME"}, {"value", "r"}}}}};
    if (!resources.is_null()) node["resources"] = resources;
    return makeRuntime(json::object{{"numNodes", numNodes}, {"xgboost", json::object{}}}, node);
}

}  // namespace

BOOST_AUTO_TEST_CASE(xgboost_workers_table) {
    struct Row {
        const char* name;
        json::object trainer;
        json::value runtimeResources;
        int64_t runtimeNodes;
        int64_t wantCount;
        std::string wantWorkers;
    };
    const std::vector<Row> rows{
        {"cpu: one worker per node", {{"numNodes", 3}}, nullptr, 1, 3, "3"},
        {"runtime nodes", {}, nullptr, 2, 2, "2"},
        {"TrainJob gpus", {{"numNodes", 2}, {"resourcesPerNode", json::object{{"limits", json::object{{"nvidia.com/gpu", "4"}}}}}}, nullptr, 1, 2, "8"},
        {"runtime gpus", {}, json::object{{"requests", json::object{{"nvidia.com/gpu", 2}}}}, 3, 3, "6"},
        {"TrainJob resources hide runtime gpus", {{"resourcesPerNode", json::object{{"requests", json::object{{"cpu", "4"}}}}}},
         json::object{{"limits", json::object{{"nvidia.com/gpu", "2"}}}}, 2, 2, "2"},
        {"numNodes 0", {{"numNodes", 0}}, nullptr, 2, 0, "0"},
    };
    for (auto const& r : rows) {
        BOOST_TEST_CONTEXT(r.name) {
            auto out = runEnforce(xgbRuntime(r.runtimeNodes, r.runtimeResources), makeTrainJob(r.trainer));
            BOOST_TEST(podSetCount(out, "node") == r.wantCount);
            auto const& c = container(out, "node", "node");
            BOOST_TEST(envValue(c, "DMLC_NUM_WORKER") == r.wantWorkers);
            BOOST_TEST(envValue(c, "DMLC_TRACKER_URI") == "test-job-node-0-0.test-job");
            BOOST_TEST(envValue(c, "DMLC_TRACKER_PORT") == "29500");
            BOOST_TEST(envValue(c, "DMLC_TASK_ID") == "<valueFrom>");
            BOOST_TEST(ports(c) == std::vector<int64_t>{29500}, boost::test_tools::per_element());
        }
    }
}

// PlainML's job for xgboost runtimes: trainer.env upserted (before the DMLC_* values).
BOOST_AUTO_TEST_CASE(xgboost_trainer_env_order) {
    json::object trainer{{"env", json::array{json::object{{"name", "RUNTIME"}, {"value", "override"}},
                                             json::object{{"name", "USER"}, {"value", "u"}}}}};
    auto out = runEnforce(xgbRuntime(1), makeTrainJob(trainer));
    auto const& c = container(out, "node", "node");
    std::vector<std::string> want{"RUNTIME", "USER", "DMLC_TRACKER_URI", "DMLC_TRACKER_PORT", "DMLC_TASK_ID", "DMLC_NUM_WORKER"};
    BOOST_TEST(envNames(c) == want, boost::test_tools::per_element());
    BOOST_TEST(envValue(c, "RUNTIME") == "override");
    BOOST_TEST(envValue(c, "DMLC_NUM_WORKER") == "1");
}

BOOST_AUTO_TEST_CASE(xgboost_without_trainer_or_policy) {
    auto out = runEnforce(xgbRuntime(2), makeTrainJob(nullptr));
    BOOST_TEST(mlPolicyEdits<xgboost::XGBoost>(xgbRuntime(2), makeTrainJob(nullptr)).empty());
    BOOST_TEST(envNames(container(out, "node", "node")) == std::vector<std::string>{"RUNTIME"}, boost::test_tools::per_element());
    // The host never runs xgboost there (its policy is not configured); xgboost checks anyway.
    BOOST_TEST(mlPolicyEdits<xgboost::XGBoost>(makeRuntime(json::object{{"torch", json::object{}}}, json::object{{"name", "node"}}),
                                               makeTrainJob(json::object{{"numNodes", 2}}))
                   .empty());
}

// The DMLC_* names in spec.trainer.env are refused by the host from the env: and envRefusal:
// claims (test/core/plugin/reserved_env_test.cpp; through this plugin: test/e2e/cli_e2e_test.cpp).
