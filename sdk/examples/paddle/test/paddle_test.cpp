#define BOOST_TEST_MODULE paddle_test
#include <boost/test/unit_test.hpp>

#include "../paddle.hpp"

#include <trainer/testing.hpp>

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
