#define BOOST_TEST_MODULE plugins_coscheduling_test
#include <boost/test/unit_test.hpp>

#include "coscheduling.hpp"
#include "fixtures.hpp"

#include "../../../plugins/jobset/jobset.hpp"
#include "../../../plugins/plainml/plainml.hpp"
#include "../../support/plugin_test.hpp"

#include <trainer/quantity.hpp>
#include <trainer/testing.hpp>

namespace cs = trainer::plugins::coscheduling;
namespace sdk = trainer::sdk;
namespace json = boost::json;
using cs::test::makeInfo;
using cs::test::PodSetSpec;

namespace {

// Runs the Build hook on `doc` against a cluster of `existing` objects.
std::vector<json::value> runBuild(sdk::testing::Host& host, const json::object& doc,
                                  std::vector<json::object> existing = {}) {
    host.cluster = std::move(existing);
    auto ctx = host.context("coscheduling");
    cs::Coscheduling plugin(json::object{}, ctx);
    sdk::Info info(doc);
    sdk::Objects objects(ctx);
    plugin.build(info, objects, ctx);
    return host.emitted;
}

json::object existingPodGroup() {
    return json::parse(R"({"apiVersion":"scheduling.x-k8s.io/v1alpha1","kind":"PodGroup",
        "metadata":{"name":"test-job","namespace":"default"},"spec":{"minMember":3}})")
        .as_object();
}

}  // namespace

BOOST_AUTO_TEST_CASE(case10_golden_podgroup) {
    // Conformance case 10: 100 trainer nodes + 2 initializers, cpu 1 each, timeout 120.
    sdk::testing::Host host;
    auto out = runBuild(host, makeInfo(cs::test::case10PodSets(), cs::test::coschedulingPolicy(120), true));
    BOOST_TEST(host.errors().empty());
    BOOST_REQUIRE_EQUAL(out.size(), 1u);
    auto expected = json::parse(R"({
      "apiVersion": "scheduling.x-k8s.io/v1alpha1",
      "kind": "PodGroup",
      "metadata": {
        "name": "test-job",
        "namespace": "default",
        "ownerReferences": [{"apiVersion": "trainer.kubeflow.org/v1alpha1", "kind": "TrainJob",
          "name": "test-job", "uid": "uid", "controller": true, "blockOwnerDeletion": true}]
      },
      "spec": {"minMember": 102, "minResources": {"cpu": "102"}, "scheduleTimeoutSeconds": 120}
    })");
    BOOST_TEST(json::serialize(out[0]) == json::serialize(expected));
    // No labels on the PodGroup: upstream's Build sets none
    // (https://github.com/kubeflow/trainer/blob/8c0f5059bd51ec3ba6d6a6a7b2e1471de7bc13b3/pkg/runtime/framework/plugins/coscheduling/coscheduling.go).
    BOOST_TEST(!out[0].as_object().at("metadata").as_object().contains("labels"));
}

// Conformance case 10 on the operator's real host (TrainerSDK::testing): the runtime in the
// cluster, the Info the operator builds (singlePodRequests from the runtime's containers and the
// TrainJob's resourcesPerNode), plainml's count, coscheduling's pod label and PodGroup, jobset's
// JobSet carrying the label.
BOOST_AUTO_TEST_CASE(case10_on_the_real_host) {
    auto c = trainer::test::readCase("10-cluster-runtime-coscheduling-suspended.json");
    sdk::testing::RealHost host;
    BOOST_TEST_REQUIRE(host.add<cs::Coscheduling>());
    BOOST_TEST_REQUIRE(host.add<trainer::plugins::plainml::PlainML>());
    BOOST_TEST_REQUIRE(host.add<trainer::plugins::jobset::JobSet>());
    host.addObject(c.at("runtimes").at(0).as_object());
    auto out = host.buildTrainJob(c.at("trainJob").as_object());
    BOOST_TEST_REQUIRE(out.ok(), out.describe());
    BOOST_TEST(out.runtimeSnapshot.has_value());
    auto* pg = out.object("PodGroup", "test-job");
    BOOST_TEST_REQUIRE(pg);
    BOOST_TEST(json::serialize(*pg) == json::serialize(c.at("expectedObjects").at(1)));
    BOOST_TEST(out.info.at("scheduler").at("podLabels") == json::parse(R"({"scheduling.x-k8s.io/pod-group":"test-job"})"));
    auto* js = out.object("JobSet", "test-job");
    BOOST_TEST_REQUIRE(js);
    BOOST_TEST(js->at("spec").at("suspend") == true);
    for (auto const& rj : js->at("spec").at("replicatedJobs").as_array())
        BOOST_TEST(rj.at("template").at("spec").at("template").at("metadata").at("labels").at("scheduling.x-k8s.io/pod-group") ==
                       "test-job",
                   rj.at("name").as_string());
}

struct SumCase {
    const char* name;
    std::vector<PodSetSpec> podSets;
    int64_t minMember;
    const char* minResources;  // JSON
};

BOOST_AUTO_TEST_CASE(sums_with_mixed_units) {
    const std::vector<SumCase> cases = {
        {"cpu 500m + 1.5 and memory 512Mi + 1Gi",
         {{"a", nullptr, 1, {{"cpu", "500m"}, {"memory", "512Mi"}}},
          {"b", nullptr, 1, {{"cpu", "1.5"}, {"memory", "1Gi"}}}},
         2,
         R"({"cpu":"2","memory":"1536Mi"})"},
        {"counts multiply requests",
         {{"a", nullptr, 1, {{"cpu", "500m"}, {"memory", "512Mi"}}},
          {"b", nullptr, 2, {{"cpu", "1.5"}, {"memory", "1Gi"}}}},
         3,
         R"({"cpu":"3500m","memory":"2560Mi"})"},
        {"initializers count toward minMember and resources",
         {{"dataset-initializer", "dataset-initializer", 1, {{"cpu", "2"}, {"memory", "4Gi"}}},
          {"model-initializer", "model-initializer", 1, {}},
          {"node", "trainer", 4, {{"cpu", "4"}, {"memory", "16Gi"}, {"nvidia.com/gpu", "2"}}}},
         6,
         R"({"cpu":"18","memory":"68Gi","nvidia.com/gpu":"8"})"},
        {"binary plus decimal is exact",
         {{"a", nullptr, 1, {{"memory", "1"}}}, {"b", nullptr, 1, {{"memory", "1Gi"}}}},
         2,
         R"({"memory":"1073741825"})"},
        {"decimal SI suffixes", {{"a", nullptr, 3, {{"memory", "1G"}, {"cpu", "250m"}}}}, 3,
         R"({"cpu":"750m","memory":"3G"})"},
        {"exponent form", {{"a", nullptr, 2, {{"ephemeral-storage", "1e3"}, {"cpu", "0.1"}}}}, 2,
         R"({"cpu":"200m","ephemeral-storage":"2k"})"},
        {"no requests at all", {{"a", nullptr, 2, {}}, {"b", nullptr, 1, {}}}, 3, R"({})"},
    };
    for (auto const& c : cases) {
        BOOST_TEST_CONTEXT(c.name) {
            sdk::testing::Host host;
            auto out = runBuild(host, makeInfo(c.podSets, cs::test::coschedulingPolicy()));
            BOOST_TEST(host.errors().empty());
            BOOST_REQUIRE_EQUAL(out.size(), 1u);
            auto const& spec = out[0].as_object().at("spec").as_object();
            BOOST_TEST(spec.at("minMember").to_number<int64_t>() == c.minMember);
            // Quantities compare by value (the conformance rule); the key sets must be equal.
            auto const& actual = spec.at("minResources").as_object();
            auto expected = json::parse(c.minResources).as_object();
            BOOST_TEST(actual.size() == expected.size());
            for (auto const& [k, v] : expected) {
                BOOST_TEST_CONTEXT(k) {
                    BOOST_REQUIRE(actual.contains(k));
                    BOOST_REQUIRE(actual.at(k).is_string());
                    auto a = sdk::Quantity::parse(actual.at(k).as_string());
                    BOOST_REQUIRE(a.has_value());
                    auto e = sdk::Quantity::parse(v.as_string());
                    BOOST_TEST((*a == *e), actual.at(k).as_string() << " == " << v.as_string());
                }
            }
        }
    }
}

BOOST_AUTO_TEST_CASE(existing_podgroup_skip_rule) {
    struct Case {
        const char* name;
        bool exists;
        bool suspend;
        size_t emitted;
    };
    const Case cases[] = {
        {"absent, running: built", false, false, 1},
        {"absent, suspended: built", false, true, 1},
        {"exists, running: nothing (running gangs are never changed)", true, false, 0},
        {"exists, suspended: rebuilt", true, true, 1},
    };
    for (auto const& c : cases) {
        BOOST_TEST_CONTEXT(c.name) {
            sdk::testing::Host host;
            std::vector<json::object> cluster;
            if (c.exists) cluster.push_back(existingPodGroup());
            auto out = runBuild(host, makeInfo(cs::test::case10PodSets(), cs::test::coschedulingPolicy(), c.suspend),
                                cluster);
            BOOST_TEST(host.errors().empty());
            BOOST_TEST(out.size() == c.emitted);
            if (!out.empty())
                BOOST_TEST(out[0].as_object().at("spec").as_object().at("minMember").to_number<int64_t>() == 102);
        }
    }
}

BOOST_AUTO_TEST_CASE(podgroup_in_other_namespace_does_not_count) {
    sdk::testing::Host host;
    auto other = existingPodGroup();
    other["metadata"].as_object()["namespace"] = "elsewhere";
    auto out = runBuild(host, makeInfo(cs::test::case10PodSets(), cs::test::coschedulingPolicy()), {other});
    BOOST_TEST(out.size() == 1u);
}

BOOST_AUTO_TEST_CASE(schedule_timeout_seconds) {
    struct Case {
        json::value configured;
        int64_t expected;
    };
    const Case cases[] = {{120, 120}, {5, 5}, {nullptr, cs::kDefaultScheduleTimeoutSeconds}};
    for (auto const& c : cases) {
        BOOST_TEST_CONTEXT("configured " << json::serialize(c.configured)) {
            sdk::testing::Host host;
            auto out = runBuild(host, makeInfo(cs::test::case10PodSets(), cs::test::coschedulingPolicy(c.configured)));
            BOOST_REQUIRE_EQUAL(out.size(), 1u);
            BOOST_TEST(out[0].as_object().at("spec").as_object().at("scheduleTimeoutSeconds").to_number<int64_t>() ==
                       c.expected);
        }
    }
}

// Issue 4: a negative timeout is refused at admission and never built (upstream would emit it).
BOOST_AUTO_TEST_CASE(negative_schedule_timeout_is_refused) {
    for (int64_t t : {-1, -60}) {
        BOOST_TEST_CONTEXT("timeout " << t) {
            sdk::testing::Host host;
            auto doc = makeInfo(cs::test::case10PodSets(), cs::test::coschedulingPolicy(json::value(t)));
            auto out = runBuild(host, doc);
            BOOST_TEST(out.empty());
            BOOST_REQUIRE_EQUAL(host.errors().size(), 1u);
            BOOST_TEST(host.errors()[0].path == "spec.podGroupPolicy.coscheduling.scheduleTimeoutSeconds");
            BOOST_TEST(host.errors()[0].message.find("Invalid value: " + std::to_string(t) +
                                                     ": ") == 0u, host.errors()[0].message);
            sdk::testing::Host admission;
            auto ctx = admission.context("coscheduling");
            cs::Coscheduling plugin(json::object{}, ctx);
            plugin.validate(sdk::Info(doc), ctx);
            BOOST_TEST(admission.errors().size() == 1u);
        }
    }
    sdk::testing::Host zero;
    auto ctx = zero.context("coscheduling");
    cs::Coscheduling plugin(json::object{}, ctx);
    plugin.validate(sdk::Info(makeInfo(cs::test::case10PodSets(), cs::test::coschedulingPolicy(json::value(0)))), ctx);
    BOOST_TEST(zero.errors().empty());
}

BOOST_AUTO_TEST_CASE(enforce_sets_pod_group_label) {
    sdk::testing::Host host;
    auto ctx = host.context("coscheduling");
    cs::Coscheduling plugin(json::object{}, ctx);
    sdk::Info info(makeInfo(cs::test::case10PodSets(), cs::test::coschedulingPolicy()));
    sdk::Edits edits(ctx);
    plugin.enforcePodGroupPolicy(info, edits, ctx);
    BOOST_REQUIRE_EQUAL(host.emitted.size(), 1u);
    auto expected = json::parse(
        R"({"op":"set","path":"/scheduler/podLabels/scheduling.x-k8s.io~1pod-group","value":"test-job"})");
    BOOST_TEST(json::serialize(host.emitted[0]) == json::serialize(expected));
    BOOST_TEST(host.errors().empty());
}

BOOST_AUTO_TEST_CASE(inactive_without_coscheduling_policy) {
    sdk::testing::Host host;
    auto doc = makeInfo(cs::test::case10PodSets(), json::object{{"volcano", json::object{}}});
    BOOST_TEST(runBuild(host, doc).empty());
    auto ctx = host.context("coscheduling");
    cs::Coscheduling plugin(json::object{}, ctx);
    sdk::Edits edits(ctx);
    plugin.enforcePodGroupPolicy(sdk::Info(doc), edits, ctx);
    BOOST_TEST(host.emitted.empty());
}

BOOST_AUTO_TEST_CASE(bad_input_is_an_error_with_a_path) {
    struct Case {
        const char* name;
        std::vector<PodSetSpec> podSets;
        const char* path;
    };
    const std::vector<Case> cases = {
        {"malformed quantity", {{"node", "trainer", 1, {{"cpu", "one"}}}}, "podSets[node].singlePodRequests[cpu]"},
        {"negative count", {{"node", "trainer", -1, {}}}, "podSets[node].count"},
        {"overflowing total", {{"node", "trainer", 2000000000, {{"memory", "1Ei"}}}},
         "podSets[node].singlePodRequests[memory]"},
        {"minMember above int32", {{"a", nullptr, 2000000000, {}}, {"b", nullptr, 2000000000, {}}}, "podSets"},
    };
    for (auto const& c : cases) {
        BOOST_TEST_CONTEXT(c.name) {
            sdk::testing::Host host;
            auto out = runBuild(host, makeInfo(c.podSets, cs::test::coschedulingPolicy()));
            BOOST_TEST(out.empty());
            BOOST_REQUIRE_EQUAL(host.errors().size(), 1u);
            BOOST_TEST(host.errors()[0].path == c.path);
        }
    }
}

BOOST_AUTO_TEST_CASE(unknown_configuration_is_a_warning) {
    sdk::testing::Host host;
    auto ctx = host.context("coscheduling");
    cs::Coscheduling plugin(json::object{{"foo", 1}}, ctx);
    BOOST_TEST(!ctx.failed());
    BOOST_REQUIRE_EQUAL(host.warnings().size(), 1u);
    BOOST_TEST(host.warnings()[0].path == "foo");
}
