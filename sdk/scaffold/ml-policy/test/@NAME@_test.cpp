#define BOOST_TEST_MODULE @IDENT@_test
#include <boost/test/unit_test.hpp>

#include "../@NAME@.hpp"

#include <trainer/testing.hpp>
#include <trainer/testing/real_host.hpp>

#include <map>
#include <string>

using namespace trainer::sdk;
using @IDENT@_plugin::@CLASS@Plugin;

// ---- The hooks alone, on the fake host (<trainer/testing.hpp>) ----

namespace {
// A minimal Info document (sdk/docs/info.md) with the given spec.trainer and mlPolicy.@NAME@.
json::object info(json::object trainer, json::object policy = {}) {
    auto o = json::parse(R"({"infoVersion":1,
      "trainJob":{"apiVersion":"trainer.kubeflow.org/v1alpha1","kind":"TrainJob",
                  "metadata":{"name":"job","namespace":"ns","uid":"u"},"spec":{}},
      "podSets":[{"name":"node","ancestor":"trainer","count":1,
                  "containers":[{"name":"node","env":[],"ports":[],"volumeMounts":[]}]}]})")
                 .as_object();
    o["trainJob"].as_object()["spec"].as_object()["trainer"] = std::move(trainer);
    o["runtimePolicy"] = json::object{{"mlPolicy", json::object{{"@NAME@", std::move(policy)}}}};
    return o;
}

std::map<std::string, json::value> editsByPath(const testing::Host& host) {
    std::map<std::string, json::value> byPath;
    for (auto const& e : host.emitted) byPath[std::string(e.at("path").as_string())] = e.at("value");
    return byPath;
}

std::string envEdit(const std::map<std::string, json::value>& byPath, const std::string& name) {
    return std::string(byPath.at("/podSets/node/containers/node/env/" + name).at("value").as_string());
}
}  // namespace

BOOST_AUTO_TEST_CASE(sets_the_env_and_the_node_count) {
    testing::Host host;
    auto ctx = host.context("@NAME@");
    @CLASS@Plugin p(json::object{}, ctx);
    Edits edits(ctx);
    p.enforceMLPolicy(Info(info(json::object{{"numNodes", 3}})), edits, ctx);
    BOOST_TEST(host.errors().empty());
    auto byPath = editsByPath(host);
    BOOST_TEST(byPath.at("/podSets/node/count").as_int64() == 3);
    BOOST_TEST(envEdit(byPath, "@ENV_PREFIX@_NUM_NODES") == "3");
    BOOST_TEST(envEdit(byPath, "@ENV_PREFIX@_MASTER_ADDR") == "job-node-0-0.job");
    BOOST_TEST(envEdit(byPath, "@ENV_PREFIX@_MASTER_PORT") == "29500");
}

BOOST_AUTO_TEST_CASE(the_runtime_port_wins_over_the_configured_one) {
    testing::Host host;
    auto ctx = host.context("@NAME@");
    @CLASS@Plugin p(json::object{{"port", 4000}}, ctx);
    BOOST_TEST(p.port(Info(info(json::object{}))) == 4000);
    BOOST_TEST(p.port(Info(info(json::object{}, json::object{{"port", 5000}}))) == 5000);
}

BOOST_AUTO_TEST_CASE(a_bad_runtime_port_is_refused_with_its_path) {
    testing::Host host;
    auto ctx = host.context("@NAME@");
    @CLASS@Plugin p(json::object{}, ctx);
    p.validate(Info(info(json::object{}, json::object{{"port", 0}})), ctx);
    BOOST_REQUIRE_EQUAL(host.errors().size(), 1u);
    BOOST_TEST(host.errors()[0].path == "spec.mlPolicy.@NAME@.port");
    BOOST_TEST(host.errors()[0].message == "Invalid value: 0: must be between 1 and 65535");
    host.clear();
    p.validate(Info(info(json::object{}, json::object{{"port", 65535}})), ctx);
    BOOST_TEST(host.errors().empty());
}

BOOST_AUTO_TEST_CASE(a_bad_configured_port_is_refused) {
    testing::Host host;
    auto ctx = host.context("@NAME@");
    @CLASS@Plugin p(json::object{{"port", 70000}}, ctx);
    BOOST_TEST(ctx.failed());
    BOOST_TEST(host.errors()[0].path == "port");
}

// ---- The plugin on the operator's real host (<trainer/testing/real_host.hpp>) ----

namespace {
// @NAME@.yaml's runtime and TrainJob, as JSON.
json::object runtime() {
    return json::parse(R"({"apiVersion":"trainer.kubeflow.org/v1alpha1","kind":"ClusterTrainingRuntime",
      "metadata":{"name":"@NAME@-runtime"},
      "spec":{"mlPolicy":{"numNodes":1,"@NAME@":{}},
        "template":{"spec":{"replicatedJobs":[{"name":"node",
          "template":{"metadata":{"labels":{"trainer.kubeflow.org/trainjob-ancestor-step":"trainer"}},
            "spec":{"template":{"spec":{"containers":[{"name":"node","image":"busybox",
              "command":["sh","-c","env"]}]}}}}}]}}}})")
        .as_object();
}
json::object trainJob(json::object trainer) {
    return json::object{{"apiVersion", "trainer.kubeflow.org/v1alpha1"},
                        {"kind", "TrainJob"},
                        {"metadata", json::object{{"name", "@NAME@-example"}, {"namespace", "default"}}},
                        {"spec", json::object{{"runtimeRef", json::object{{"name", "@NAME@-runtime"}}},
                                              {"trainer", std::move(trainer)}}}};
}
}  // namespace

// The Info the operator builds, after the plugin's edits as the operator applies them.
BOOST_AUTO_TEST_CASE(the_resulting_info_on_the_real_host) {
    auto built = testing::buildInfo(trainJob(json::object{{"numNodes", 3}}), runtime());
    BOOST_TEST_REQUIRE(built.ok(), built.describe());
    testing::RealHost host;
    BOOST_TEST_REQUIRE(host.add<@CLASS@Plugin>(json::object{{"port", 1234}}));
    auto out = host.run(testing::Hook::EnforceMLPolicy, built.info);
    BOOST_TEST_REQUIRE(out.ok(), out.describe());
    BOOST_TEST(out.info.at("podSets").at(0).at("count").as_int64() == 3);
    auto* node = testing::podSetContainer(out.info, "node", "node");
    BOOST_TEST_REQUIRE(node);
    BOOST_TEST(testing::envValue(*node, "@ENV_PREFIX@_NUM_NODES") == "3");
    BOOST_TEST(testing::envValue(*node, "@ENV_PREFIX@_MASTER_ADDR") == "@NAME@-example-node-0-0.@NAME@-example");
    BOOST_TEST(testing::envValue(*node, "@ENV_PREFIX@_MASTER_PORT") == "1234");
    BOOST_TEST(testing::envValue(*node, "@ENV_PREFIX@_NODE_RANK") == "<valueFrom>");
}

// Admission as the webhook runs it: the runtime from the cluster, then the plugin's validation
// and the host's refusal of a claimed env var.
BOOST_AUTO_TEST_CASE(admission_on_the_real_host) {
    testing::RealHost host;
    BOOST_TEST_REQUIRE(host.add<@CLASS@Plugin>());
    host.addObject(runtime());
    BOOST_TEST(host.admit(trainJob(json::object{{"numNodes", 2}})).ok());
    auto refused = host.admit(trainJob(
        json::object{{"env", json::array{json::object{{"name", "@ENV_PREFIX@_NUM_NODES"}, {"value", "9"}}}}}));
    BOOST_REQUIRE_EQUAL(refused.errors().size(), 1u);
    BOOST_TEST(refused.errors()[0].path == "spec.trainer.env[0]");
    BOOST_TEST(refused.errors()[0].message == "@ENV_PREFIX@_NUM_NODES is reserved for the @NAME@ policy");
}
