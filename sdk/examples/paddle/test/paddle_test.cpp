#define BOOST_TEST_MODULE paddle_test
#include <boost/test/unit_test.hpp>

#include "../paddle.hpp"

#include <trainer/testing.hpp>
#include <trainer/testing/real_host.hpp>

#include <map>

using namespace trainer::sdk;
using example::paddle::PaddlePlugin;

namespace {
// A minimal Info document (sdk/docs/info.md) with the given spec.trainer and mlPolicy.paddle.
json::object info(json::object trainer, json::object paddlePolicy = {}) {
    auto o = json::parse(R"({"infoVersion":1,
      "trainJob":{"apiVersion":"trainer.kubeflow.org/v1alpha1","kind":"TrainJob",
                  "metadata":{"name":"job","namespace":"ns","uid":"u"},"spec":{}},
      "podSets":[{"name":"node","ancestor":"trainer","count":1,
                  "containers":[{"name":"node","env":[],"ports":[],"volumeMounts":[]}]}]})")
                 .as_object();
    o["trainJob"].as_object()["spec"].as_object()["trainer"] = std::move(trainer);
    o["runtimePolicy"] = json::object{{"mlPolicy", json::object{{"paddle", std::move(paddlePolicy)}}}};
    return o;
}

std::map<std::string, json::value> editsByPath(const testing::Host& host) {
    std::map<std::string, json::value> byPath;
    for (auto const& e : host.emitted) byPath[std::string(e.at("path").as_string())] = e.at("value");
    return byPath;
}
}  // namespace

BOOST_AUTO_TEST_CASE(sets_env_and_port) {
    testing::Host host;
    auto ctx = host.context("paddle");
    PaddlePlugin p(json::object{}, ctx);
    Edits edits(ctx);
    p.enforceMLPolicy(Info(info(json::object{{"numNodes", 3}})), edits, ctx);
    BOOST_TEST(host.errors().empty());
    auto byPath = editsByPath(host);
    BOOST_TEST(byPath.at("/podSets/node/count").as_int64() == 3);
    BOOST_TEST(byPath.at("/podSets/node/containers/node/env/PADDLE_NNODES").at("value").as_string() == "3");
    BOOST_TEST(byPath.at("/podSets/node/containers/node/env/PADDLE_MASTER").at("value").as_string() ==
               "job-node-0-0.job:36789");
    BOOST_TEST(byPath.count("/podSets/node/containers/node/ports/36789") == 1u);
}

// The runtime's mlPolicy.paddle.port wins over the plugin's configured port.
BOOST_AUTO_TEST_CASE(runtime_port_overrides_the_configured_one) {
    testing::Host host;
    auto ctx = host.context("paddle");
    PaddlePlugin p(json::object{{"port", 4000}}, ctx);
    Edits edits(ctx);
    p.enforceMLPolicy(Info(info(json::object{}, json::object{{"port", 5000}})), edits, ctx);
    auto byPath = editsByPath(host);
    BOOST_TEST(byPath.at("/podSets/node/containers/node/env/PADDLE_MASTER").at("value").as_string() ==
               "job-node-0-0.job:5000");
    BOOST_TEST(byPath.count("/podSets/node/containers/node/ports/5000") == 1u);
    BOOST_TEST(p.port(Info(info(json::object{}))) == 4000);
}

BOOST_AUTO_TEST_CASE(bad_runtime_port_is_refused) {
    testing::Host host;
    auto ctx = host.context("paddle");
    PaddlePlugin p(json::object{}, ctx);
    p.validate(Info(info(json::object{}, json::object{{"port", 0}})), ctx);
    BOOST_REQUIRE_EQUAL(host.errors().size(), 1u);
    BOOST_TEST(host.errors()[0].path == "spec.mlPolicy.paddle.port");
    BOOST_TEST(host.errors()[0].message == "Invalid value: 0: must be between 1 and 65535");
    host.clear();
    p.validate(Info(info(json::object{}, json::object{{"port", 65535}})), ctx);
    BOOST_TEST(host.errors().empty());
}

BOOST_AUTO_TEST_CASE(bad_port_config_is_refused) {
    testing::Host host;
    auto ctx = host.context("paddle");
    PaddlePlugin p(json::object{{"port", 70000}}, ctx);
    BOOST_TEST(ctx.failed());
    BOOST_TEST(host.errors()[0].path == "port");
}

// ---- The same plugin on the operator's real host (TrainerSDK::testing) ----

namespace {
// paddle.yaml's runtime and TrainJob, as JSON.
json::object runtime() {
    return json::parse(R"({"apiVersion":"trainer.kubeflow.org/v1alpha1","kind":"ClusterTrainingRuntime",
      "metadata":{"name":"paddle-distributed"},
      "spec":{"mlPolicy":{"numNodes":1,"paddle":{}},
        "template":{"spec":{"replicatedJobs":[{"name":"node",
          "template":{"metadata":{"labels":{"trainer.kubeflow.org/trainjob-ancestor-step":"trainer"}},
            "spec":{"template":{"spec":{"containers":[{"name":"node","image":"paddlepaddle/paddle:3.0.0",
              "command":["python","-m","paddle.distributed.launch","train.py"]}]}}}}}]}}}})")
        .as_object();
}
json::object trainJob(json::object trainer) {
    return json::object{{"apiVersion", "trainer.kubeflow.org/v1alpha1"},
                        {"kind", "TrainJob"},
                        {"metadata", json::object{{"name", "paddle-example"}, {"namespace", "default"}}},
                        {"spec", json::object{{"runtimeRef", json::object{{"name", "paddle-distributed"}}},
                                              {"trainer", std::move(trainer)}}}};
}

// Another plugin of the same operator that writes paddle's env var.
struct Meddler : Plugin, EnforcePodSpec {
    Meddler(const json::object&, Context&) {}
    static PluginMeta meta() { return {"meddler", "0.1.0", "writes PADDLE_MASTER", 200, true, {}, {}}; }
    void enforcePodSpec(const Info&, Edits& edits, Context&) override {
        edits.upsertEnv("node", "node", "PADDLE_MASTER", "elsewhere:1");
    }
};
}  // namespace

// The Info the operator builds, after paddle's edits as the operator applies them.
BOOST_AUTO_TEST_CASE(resulting_info_on_the_real_host) {
    auto built = testing::buildInfo(trainJob(json::object{{"numNodes", 3}}), runtime());
    BOOST_TEST_REQUIRE(built.ok(), built.describe());
    testing::RealHost host;
    BOOST_TEST_REQUIRE(host.add<PaddlePlugin>(json::object{{"port", 1234}}));
    auto out = host.run(testing::Hook::EnforceMLPolicy, built.info);
    BOOST_TEST_REQUIRE(out.ok(), out.describe());
    BOOST_TEST(out.info.at("podSets").at(0).at("count").as_int64() == 3);
    auto* node = testing::podSetContainer(out.info, "node", "node");
    BOOST_TEST_REQUIRE(node);
    BOOST_TEST(testing::envValue(*node, "PADDLE_NNODES") == "3");
    BOOST_TEST(testing::envValue(*node, "PADDLE_MASTER") == "paddle-example-node-0-0.paddle-example:1234");
    BOOST_TEST(testing::envValue(*node, "PADDLE_TRAINER_ID") == "<valueFrom>");
    BOOST_TEST(testing::containerPorts(*node) == std::vector<int64_t>{1234}, boost::test_tools::per_element());
}

// Beside another plugin: its write of a claimed env var is refused as the operator refuses it.
BOOST_AUTO_TEST_CASE(claims_hold_against_other_plugins) {
    testing::RealHost host;
    BOOST_TEST_REQUIRE(host.add<PaddlePlugin>());
    BOOST_TEST_REQUIRE(host.add<Meddler>());
    auto out = host.build(testing::buildInfo(trainJob(json::object{{"numNodes", 2}}), runtime()).info);
    BOOST_REQUIRE_EQUAL(out.errors().size(), 1u);
    BOOST_TEST(out.errors()[0].message ==
               "plugin meddler wrote /podSets/node/containers/node/env/PADDLE_MASTER, but \"env:PADDLE_MASTER\" is "
               "claimed by plugin paddle");
}

// Admission as the webhook runs it: the runtime from the cluster, then paddle's validation.
BOOST_AUTO_TEST_CASE(admission_on_the_real_host) {
    testing::RealHost host;
    BOOST_TEST_REQUIRE(host.add<PaddlePlugin>());
    host.addObject(runtime());
    BOOST_TEST(host.admit(trainJob(json::object{{"numNodes", 2}})).ok());
    auto refused = host.admit(trainJob(json::object{{"env", json::array{json::object{{"name", "PADDLE_MASTER"}, {"value", "x"}}}}}));
    BOOST_REQUIRE_EQUAL(refused.errors().size(), 1u);
    BOOST_TEST(refused.errors()[0].path == "spec.trainer.env[0]");
}
