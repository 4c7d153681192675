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
// A minimal Info document (sdk/docs/info.md): a trainer of `nodes` pods, one initializer pod,
// and podGroupPolicy.@NAME@.
json::object info(int64_t nodes, json::object policy = {}) {
    auto o = json::parse(R"({"infoVersion":1,
      "trainJob":{"apiVersion":"trainer.kubeflow.org/v1alpha1","kind":"TrainJob",
                  "metadata":{"name":"job","namespace":"ns","uid":"u"},"spec":{}},
      "podSets":[{"name":"node","ancestor":"trainer","count":1,"containers":[{"name":"node"}]},
                 {"name":"dataset-initializer","count":1,"containers":[{"name":"dataset-initializer"}]}]})")
                 .as_object();
    o["podSets"].as_array()[0].as_object()["count"] = nodes;
    o["runtimePolicy"] = json::object{{"podGroupPolicy", json::object{{"@NAME@", std::move(policy)}}}};
    return o;
}

std::map<std::string, std::string> editsByPath(const testing::Host& host) {
    std::map<std::string, std::string> byPath;
    for (auto const& e : host.emitted)
        byPath[std::string(e.at("path").as_string())] = std::string(e.at("value").as_string());
    return byPath;
}
}  // namespace

BOOST_AUTO_TEST_CASE(labels_and_annotates_every_pod_with_the_gang) {
    testing::Host host;
    auto ctx = host.context("@NAME@");
    @CLASS@Plugin p(json::object{}, ctx);
    Edits edits(ctx);
    p.enforcePodGroupPolicy(Info(info(3)), edits, ctx);
    BOOST_TEST(host.errors().empty());
    auto byPath = editsByPath(host);
    BOOST_TEST(byPath.at("/scheduler/podLabels/@NAME@.example.com~1pod-group") == "job");
    BOOST_TEST(byPath.at("/scheduler/podAnnotations/@NAME@.example.com~1min-member") == "4");
    BOOST_TEST(byPath.at("/scheduler/podAnnotations/@NAME@.example.com~1schedule-timeout-seconds") == "60");
}

BOOST_AUTO_TEST_CASE(the_runtime_timeout_wins_over_the_configured_one) {
    testing::Host host;
    auto ctx = host.context("@NAME@");
    @CLASS@Plugin p(json::object{{"scheduleTimeoutSeconds", 30}}, ctx);
    BOOST_TEST(p.timeoutSeconds(Info(info(1))) == 30);
    BOOST_TEST(p.timeoutSeconds(Info(info(1, json::object{{"scheduleTimeoutSeconds", 90}}))) == 90);
}

BOOST_AUTO_TEST_CASE(a_negative_runtime_timeout_is_refused_with_its_path) {
    testing::Host host;
    auto ctx = host.context("@NAME@");
    @CLASS@Plugin p(json::object{}, ctx);
    p.validate(Info(info(1, json::object{{"scheduleTimeoutSeconds", -1}})), ctx);
    BOOST_REQUIRE_EQUAL(host.errors().size(), 1u);
    BOOST_TEST(host.errors()[0].path == "spec.podGroupPolicy.@NAME@.scheduleTimeoutSeconds");
    BOOST_TEST(host.errors()[0].message == "Invalid value: -1: must be 0 or more");
    host.clear();
    p.validate(Info(info(1, json::object{{"scheduleTimeoutSeconds", 0}})), ctx);
    BOOST_TEST(host.errors().empty());
}

BOOST_AUTO_TEST_CASE(a_bad_pod_count_is_reported) {
    testing::Host host;
    auto ctx = host.context("@NAME@");
    @CLASS@Plugin p(json::object{}, ctx);
    Edits edits(ctx);
    p.enforcePodGroupPolicy(Info(info(-1)), edits, ctx);
    BOOST_REQUIRE_EQUAL(host.errors().size(), 1u);
    BOOST_TEST(host.errors()[0].path == "podSets[node].count");
    BOOST_TEST(host.emitted.empty());
}

// ---- The plugin on the operator's real host (<trainer/testing/real_host.hpp>) ----

namespace {
// @NAME@.yaml's runtime (with 2 nodes) and a TrainJob on it, as JSON.
json::object runtime(json::object policy = {}) {
    auto rt = json::parse(R"({"apiVersion":"trainer.kubeflow.org/v1alpha1","kind":"ClusterTrainingRuntime",
      "metadata":{"name":"@NAME@-runtime"},
      "spec":{"mlPolicy":{"numNodes":2},
        "template":{"spec":{"replicatedJobs":[{"name":"node",
          "template":{"metadata":{"labels":{"trainer.kubeflow.org/trainjob-ancestor-step":"trainer"}},
            "spec":{"template":{"spec":{"containers":[{"name":"node","image":"busybox",
              "command":["sh","-c","env"]}]}}}}}]}}}})")
                  .as_object();
    rt["spec"].as_object()["podGroupPolicy"] = json::object{{"@NAME@", std::move(policy)}};
    return rt;
}
json::object trainJob() {
    return json::object{{"apiVersion", "trainer.kubeflow.org/v1alpha1"},
                        {"kind", "TrainJob"},
                        {"metadata", json::object{{"name", "@NAME@-example"}, {"namespace", "default"}}},
                        {"spec", json::object{{"runtimeRef", json::object{{"name", "@NAME@-runtime"}}}}}};
}
}  // namespace

// The Info the operator builds, after the plugin's edits as the operator applies them.
BOOST_AUTO_TEST_CASE(the_resulting_info_on_the_real_host) {
    auto built = testing::buildInfo(trainJob(), runtime());
    BOOST_TEST_REQUIRE(built.ok(), built.describe());
    testing::RealHost host;
    BOOST_TEST_REQUIRE(host.add<@CLASS@Plugin>(json::object{{"scheduleTimeoutSeconds", 120}}));
    auto out = host.run(testing::Hook::EnforcePodGroupPolicy, built.info);
    BOOST_TEST_REQUIRE(out.ok(), out.describe());
    auto const& scheduler = out.info.at("scheduler");
    BOOST_TEST(scheduler.at("podLabels").at("@NAME@.example.com/pod-group").as_string() == "@NAME@-example");
    BOOST_TEST(scheduler.at("podAnnotations").at("@NAME@.example.com/min-member").as_string() == "2");
    BOOST_TEST(scheduler.at("podAnnotations").at("@NAME@.example.com/schedule-timeout-seconds").as_string() == "120");
}

// Admission as the webhook runs it: the runtime from the cluster, then the plugin's validation.
BOOST_AUTO_TEST_CASE(admission_on_the_real_host) {
    testing::RealHost host;
    BOOST_TEST_REQUIRE(host.add<@CLASS@Plugin>());
    host.addObject(runtime());
    BOOST_TEST(host.admit(trainJob()).ok());

    testing::RealHost refusing;
    BOOST_TEST_REQUIRE(refusing.add<@CLASS@Plugin>());
    refusing.addObject(runtime(json::object{{"scheduleTimeoutSeconds", -5}}));
    auto refused = refusing.admit(trainJob());
    BOOST_REQUIRE_EQUAL(refused.errors().size(), 1u);
    BOOST_TEST(refused.errors()[0].path == "spec.podGroupPolicy.@NAME@.scheduleTimeoutSeconds");
}
