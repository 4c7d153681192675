#define BOOST_TEST_MODULE jax_plugin_test
#include <boost/test/unit_test.hpp>

#include "../../support/plugin_test.hpp"

#include "../../../plugins/jax/jax.hpp"

using namespace trainer::plugins;
using namespace trainer::test;
using trainer::sdk::testing::envNames;
using trainer::sdk::testing::envValue;
using trainer::sdk::testing::Hook;
using trainer::sdk::testing::Outcome;
namespace json = boost::json;

namespace {

// jax's EnforceMLPolicy on the real host; the Info after its edits.
json::object runEnforce(const json::object& runtime, const json::object& trainJob) {
    auto out = runHook<jax::Jax>(Hook::EnforceMLPolicy, runtime, trainJob);
    BOOST_TEST(out.ok(), out.describe());
    return out.info;
}

std::vector<int64_t> ports(const json::object& c) { return trainer::sdk::testing::containerPorts(c); }

json::object jaxRuntime(int64_t numNodes) {
    json::object node{{"name", "node"}, {"env", json::array{json::object{{"name", "RUNTIME"}, {"value", "r"}}}}};
    return makeRuntime(json::object{{"numNodes", numNodes}, {"jax", json::object{}}}, node);
}

}  // namespace

BOOST_AUTO_TEST_CASE(jax_env_table) {
    struct Row {
        const char* name;
        json::value trainer;
        int64_t runtimeNodes;
        int64_t wantCount;
        std::string wantProcesses;  // "<unset>" when no env is expected
    };
    const std::vector<Row> rows{
        {"numNodes from TrainJob", json::object{{"numNodes", 4}}, 2, 4, "4"},
        {"numNodes from runtime", json::object{}, 3, 3, "3"},
        {"numNodes 0 propagated", json::object{{"numNodes", 0}}, 2, 0, "0"},
        {"no spec.trainer", nullptr, 2, 2, "<unset>"},
    };
    for (auto const& r : rows) {
        BOOST_TEST_CONTEXT(r.name) {
            auto out = runEnforce(jaxRuntime(r.runtimeNodes), makeTrainJob(r.trainer));
            BOOST_TEST(podSetCount(out, "node") == r.wantCount);
            auto const& c = container(out, "node", "node");
            BOOST_TEST(envValue(c, "JAX_NUM_PROCESSES") == r.wantProcesses);
            if (r.trainer.is_null()) {
                BOOST_TEST(envNames(c) == std::vector<std::string>{"RUNTIME"}, boost::test_tools::per_element());
                BOOST_TEST(ports(c).empty());
                continue;
            }
            std::vector<std::string> want{"RUNTIME", "JAX_NUM_PROCESSES", "JAX_PROCESS_ID", "JAX_COORDINATOR_ADDRESS"};
            BOOST_TEST(envNames(c) == want, boost::test_tools::per_element());
            BOOST_TEST(envValue(c, "JAX_PROCESS_ID") == "<valueFrom>");
            BOOST_TEST(envValue(c, "JAX_COORDINATOR_ADDRESS") == "test-job-node-0-0.test-job:29500");
            BOOST_TEST(ports(c) == std::vector<int64_t>{29500}, boost::test_tools::per_element());
        }
    }
}

// JAX does not upsert trainer.env itself (the JobSet builder does).
BOOST_AUTO_TEST_CASE(jax_does_not_copy_trainer_env) {
    json::object trainer{{"env", json::array{json::object{{"name", "USER_ENV"}, {"value", "1"}}}}};
    auto out = runEnforce(jaxRuntime(1), makeTrainJob(trainer));
    BOOST_TEST(envValue(container(out, "node", "node"), "USER_ENV") == "<unset>");
    auto* pid = trainer::sdk::findByKey(trainer::sdk::getArray(container(out, "node", "node"), "env"), "name", "JAX_PROCESS_ID");
    BOOST_REQUIRE(pid);
    BOOST_TEST(json::serialize(pid->at("valueFrom")) ==
               R"({"fieldRef":{"fieldPath":"metadata.annotations['batch.kubernetes.io/job-completion-index']"}})");
}

BOOST_AUTO_TEST_CASE(jax_without_policy_is_a_no_op) {
    // The host never runs jax there (its policy is not configured); jax checks anyway.
    BOOST_TEST(mlPolicyEdits<jax::Jax>(makeRuntime(json::object{{"numNodes", 2}, {"torch", json::object{}}},
                                                   json::object{{"name", "node"}}),
                                       makeTrainJob(json::object{{"numNodes", 3}}))
                   .empty());
}
