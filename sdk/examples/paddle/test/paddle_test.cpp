#define BOOST_TEST_MODULE paddle_test
#include <boost/test/unit_test.hpp>

#include "../paddle.hpp"

#include <trainer/testing.hpp>

#include <map>

using namespace trainer::sdk;
using example::paddle::PaddlePlugin;

namespace {
// A minimal Info document (sdk/docs/info.md) with the given spec.trainer.
json::object info(json::object trainer) {
    auto o = json::parse(R"({"infoVersion":1,
      "trainJob":{"apiVersion":"trainer.kubeflow.org/v1alpha1","kind":"TrainJob",
                  "metadata":{"name":"job","namespace":"ns","uid":"u"},"spec":{}},
      "podSets":[{"name":"node","ancestor":"trainer","count":1,
                  "containers":[{"name":"node","env":[],"ports":[],"volumeMounts":[]}]}]})")
                 .as_object();
    o["trainJob"].as_object()["spec"].as_object()["trainer"] = std::move(trainer);
    return o;
}
}  // namespace

BOOST_AUTO_TEST_CASE(sets_env_and_port) {
    testing::Host host;
    auto ctx = host.context("paddle");
    PaddlePlugin p(json::object{}, ctx);
    Edits edits(ctx);
    p.enforceMLPolicy(Info(info(json::object{{"numNodes", 3}})), edits, ctx);
    BOOST_TEST(host.errors().empty());
    std::map<std::string, json::value> byPath;
    for (auto const& e : host.emitted) byPath[std::string(e.at("path").as_string())] = e.at("value");
    BOOST_TEST(byPath.at("/podSets/node/count").as_int64() == 3);
    BOOST_TEST(byPath.at("/podSets/node/containers/node/env/PADDLE_NNODES").at("value").as_string() == "3");
    BOOST_TEST(byPath.at("/podSets/node/containers/node/env/PADDLE_MASTER").at("value").as_string() ==
               "job-node-0-0.job:36789");
    BOOST_TEST(byPath.count("/podSets/node/containers/node/ports/36789") == 1u);
}

BOOST_AUTO_TEST_CASE(reserved_env_is_refused) {
    testing::Host host;
    auto ctx = host.context("paddle");
    PaddlePlugin p(json::object{}, ctx);
    p.validate(Info(info(json::object{{"env", json::array{json::object{{"name", "A"}},
                                                          json::object{{"name", "PADDLE_MASTER"}}}}})),
               ctx);
    BOOST_REQUIRE_EQUAL(host.errors().size(), 1u);
    BOOST_TEST(host.errors()[0].path == "spec.trainer.env[1].name");
    BOOST_TEST(host.errors()[0].message == "PADDLE_MASTER is reserved for the PaddlePaddle runtime");
}

BOOST_AUTO_TEST_CASE(bad_port_config_is_refused) {
    testing::Host host;
    auto ctx = host.context("paddle");
    PaddlePlugin p(json::object{{"port", 70000}}, ctx);
    BOOST_TEST(ctx.failed());
    BOOST_TEST(host.errors()[0].path == "port");
}
