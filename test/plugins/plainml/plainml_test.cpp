// The plainml plugin: EnforceMLPolicy edits (upstream
// https://github.com/kubeflow/trainer/blob/8c0f5059bd51ec3ba6d6a6a7b2e1471de7bc13b3/pkg/runtime/framework/plugins/plainml/plainml.go),
// the Info they make on the real host, and its ABI descriptor.
#define BOOST_TEST_MODULE plainml_test
#include <boost/test/unit_test.hpp>

#include "plainml.hpp"

#include <trainer/testing/real_host.hpp>

#include <dlfcn.h>

#include <string>
#include <vector>

namespace sdk = trainer::sdk;
namespace json = boost::json;
using trainer::plugins::plainml::PlainML;

namespace {

json::object info(const char* trainer, const char* mlPolicy = nullptr) {
    auto doc = json::parse(R"({"infoVersion":1,
      "trainJob":{"metadata":{"name":"job","namespace":"default","uid":"u"},"spec":{}},
      "labels":{},"annotations":{},"runtimePolicy":{},
      "jobSetSpec":{"replicatedJobs":[{"name":"dataset-initializer"},{"name":"trainer-job"}]},
      "podSets":[
        {"name":"dataset-initializer","ancestor":"dataset-initializer","count":1,"containers":[{"name":"dataset-initializer","env":[]}]},
        {"name":"trainer-job","ancestor":"trainer","count":3,
         "containers":[{"name":"sidecar","env":[]},{"name":"node","env":[{"name":"RUNTIME","value":"rt"}]}]}]})")
                   .as_object();
    if (trainer) doc["trainJob"].as_object()["spec"].as_object()["trainer"] = json::parse(trainer);
    if (mlPolicy) doc["runtimePolicy"].as_object()["mlPolicy"] = json::parse(mlPolicy);
    return doc;
}

std::vector<json::value> enforce(const json::object& doc) {
    sdk::testing::Host host;
    auto ctx = host.context("plainml");
    PlainML plugin(json::object{}, ctx);
    sdk::Edits edits(ctx);
    plugin.enforceMLPolicy(sdk::Info(doc), edits, ctx);
    BOOST_TEST(host.diagnostics.empty());
    return host.emitted;
}

std::vector<std::string> paths(const std::vector<json::value>& edits) {
    std::vector<std::string> out;
    for (auto const& e : edits) {
        BOOST_TEST(e.at("op").as_string() == "set");
        out.emplace_back(e.at("path").as_string());
    }
    return out;
}

}  // namespace

BOOST_AUTO_TEST_CASE(enforce_table) {
    struct Case {
        const char* name;
        const char* trainer;
        const char* mlPolicy;
        std::vector<std::string> paths;
        std::vector<std::string> values;  // serialised values, same order
    };
    const std::string env = "/podSets/trainer-job/containers/node/env/";
    const std::vector<Case> cases = {
        {"no trainer: nothing", nullptr, nullptr, {}, {}},
        {"numNodes → trainer PodSet count", R"({"numNodes":5})", nullptr, {"/podSets/trainer-job/count"}, {"5"}},
        {"numNodes 0 propagates", R"({"numNodes":0})", R"({"numNodes":2})", {"/podSets/trainer-job/count"}, {"0"}},
        {"env upserted into container node, in order",
         R"({"env":[{"name":"RUNTIME","value":"tj"},{"name":"B","valueFrom":{"fieldRef":{"fieldPath":"metadata.name"}}}]})",
         nullptr,
         {env + "RUNTIME", env + "B"},
         {R"({"name":"RUNTIME","value":"tj"})", R"({"name":"B","valueFrom":{"fieldRef":{"fieldPath":"metadata.name"}}})"}},
        {"numNodes and env", R"({"numNodes":2,"env":[{"name":"A~/B","value":"1"}]})", R"({"numNodes":4})",
         {"/podSets/trainer-job/count", env + "A~0~1B"}, {"2", R"({"name":"A~/B","value":"1"})"}},
        {"trainer without numNodes or env: nothing", R"({"image":"x"})", nullptr, {}, {}},
        {"framework policy present: inert", R"({"numNodes":5,"env":[{"name":"A","value":"1"}]})",
         R"({"numNodes":1,"torch":{}})", {}, {}},
    };
    for (auto const& c : cases) {
        BOOST_TEST_CONTEXT(c.name) {
            auto edits = enforce(info(c.trainer, c.mlPolicy));
            BOOST_TEST(paths(edits) == c.paths, boost::test_tools::per_element());
            BOOST_REQUIRE_EQUAL(edits.size(), c.values.size());
            for (size_t i = 0; i < edits.size(); ++i) BOOST_TEST(edits[i].at("value") == json::parse(c.values[i]));
        }
    }
}

// The same edits applied by the operator's ledger on the real host (TrainerSDK::testing), on the
// Info it builds: the resulting count and env of the trainer's `node` container.
BOOST_AUTO_TEST_CASE(resulting_info_on_the_real_host) {
    struct Case {
        const char* name;
        const char* trainer;
        const char* mlPolicy;  // the runtime's; nullptr: none
        int64_t count;
        const char* env;  // the node container's env afterwards
    };
    const std::vector<Case> cases = {
        {"no trainer: runtime values", nullptr, R"({"numNodes":2})", 2, R"([{"name":"RUNTIME","value":"rt"}])"},
        {"numNodes over the runtime's", R"({"numNodes":5})", R"({"numNodes":2})", 5, R"([{"name":"RUNTIME","value":"rt"}])"},
        {"no mlPolicy: PodSet count from the template", R"({"numNodes":3})", nullptr, 3, R"([{"name":"RUNTIME","value":"rt"}])"},
        {"env replaced in place, then appended, names escaped and back",
         R"({"env":[{"name":"RUNTIME","value":"tj"},{"name":"A~/B","value":"1"}]})", R"({"numNodes":1})", 1,
         R"([{"name":"RUNTIME","value":"tj"},{"name":"A~/B","value":"1"}])"},
    };
    for (auto const& c : cases) {
        BOOST_TEST_CONTEXT(c.name) {
            auto runtime = json::parse(R"({"apiVersion":"trainer.kubeflow.org/v1alpha1","kind":"TrainingRuntime",
              "metadata":{"name":"rt","namespace":"default"},
              "spec":{"template":{"spec":{"replicatedJobs":[{"name":"trainer-job",
                "template":{"metadata":{"labels":{"trainer.kubeflow.org/trainjob-ancestor-step":"trainer"}},
                  "spec":{"template":{"spec":{"containers":[{"name":"sidecar","image":"s"},
                    {"name":"node","image":"i","env":[{"name":"RUNTIME","value":"rt"}]}]}}}}}]}}}})")
                               .as_object();
            if (c.mlPolicy) runtime["spec"].as_object()["mlPolicy"] = json::parse(c.mlPolicy);
            auto trainJob = json::parse(R"({"apiVersion":"trainer.kubeflow.org/v1alpha1","kind":"TrainJob",
              "metadata":{"name":"job","namespace":"default","uid":"u"},
              "spec":{"runtimeRef":{"name":"rt","kind":"TrainingRuntime"}}})")
                                .as_object();
            if (c.trainer) trainJob["spec"].as_object()["trainer"] = json::parse(c.trainer);
            auto built = sdk::testing::buildInfo(trainJob, runtime);
            BOOST_TEST_REQUIRE(built.ok(), built.describe());
            sdk::testing::RealHost host;
            BOOST_TEST_REQUIRE(host.add<PlainML>());
            auto out = host.run(sdk::testing::Hook::EnforceMLPolicy, built.info);
            BOOST_TEST_REQUIRE(out.ok(), out.describe());
            auto* ps = sdk::findByKey(sdk::getArray(out.info, "podSets"), "name", "trainer-job");
            BOOST_TEST_REQUIRE(ps);
            BOOST_TEST(ps->at("count").as_int64() == c.count);
            BOOST_TEST(sdk::Info::container(*ps, "node")->at("env") == json::parse(c.env));
            BOOST_TEST(sdk::Info::container(*ps, "sidecar")->at("env").as_array().empty());
        }
    }
}

BOOST_AUTO_TEST_CASE(no_trainer_podset_or_node_container) {
    auto doc = info(R"({"numNodes":5,"env":[{"name":"A","value":"1"}]})");
    doc["podSets"].as_array().pop_back();
    BOOST_TEST(enforce(doc).empty());

    auto noNode = info(R"({"numNodes":5,"env":[{"name":"A","value":"1"}]})");
    noNode["podSets"].as_array()[1].as_object()["containers"].as_array().pop_back();
    BOOST_TEST(paths(enforce(noNode)) == std::vector<std::string>{"/podSets/trainer-job/count"},
               boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(descriptor_through_dlopen) {
    sdk::testing::Host host;
    std::string error;
    const trn_plugin_descriptor* d = host.load(PLAINML_PLUGIN_PATH, error);
    BOOST_REQUIRE_MESSAGE(d, error);
    BOOST_TEST(std::string(d->name) == "plainml");
    BOOST_TEST(d->priority == 0);
    BOOST_REQUIRE_EQUAL(d->claim_count, 1u);
    BOOST_TEST(std::string(d->claims[0]) == "mlPolicy");
    BOOST_TEST(d->enforce_ml_policy != nullptr);
    BOOST_TEST(d->custom_validation == nullptr);
    BOOST_TEST(d->watch_extension == nullptr);
    BOOST_TEST(d->enforce_pod_group_policy == nullptr);
    BOOST_TEST(d->enforce_pod_spec == nullptr);
    BOOST_TEST(d->pre_component_builder == nullptr);
    BOOST_TEST(d->component_builder == nullptr);
    BOOST_TEST(d->trainjob_status == nullptr);

    // One hook call across the boundary: count edit emitted as JSON.
    trn_instance* self = d->create(host.call(), sdk::toAbi(""));
    BOOST_REQUIRE(self);
    std::string in = json::serialize(info(R"({"numNodes":7})"));
    BOOST_TEST(d->enforce_ml_policy->enforce(self, host.call(), sdk::toAbi(in)) == TRN_OK);
    BOOST_REQUIRE_EQUAL(host.emitted.size(), 1u);
    BOOST_TEST(host.emitted[0] == json::parse(R"({"op":"set","path":"/podSets/trainer-job/count","value":7})"));
    d->destroy(self);
}
