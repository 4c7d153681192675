#define BOOST_TEST_MODULE volcano_test
#include <boost/test/unit_test.hpp>

#include "test/fixtures.hpp"
#include "volcano.hpp"

#include <trainer/quantity.hpp>
#include <trainer/testing.hpp>
#include <trainer/testing/real_host.hpp>

namespace vc = trainer::plugins::volcano;
namespace sdk = trainer::sdk;
namespace json = boost::json;
using vc::test::Job;
using vc::test::makeInfo;

namespace {

std::vector<json::value> runBuild(sdk::testing::Host& host, const json::object& doc,
                                  std::vector<json::object> existing = {}) {
    host.cluster = std::move(existing);
    auto ctx = host.context("volcano");
    vc::Volcano plugin(json::object{}, ctx);
    sdk::Objects objects(ctx);
    plugin.build(sdk::Info(doc), objects, ctx);
    return host.emitted;
}

void runValidate(sdk::testing::Host& host, json::object doc, std::vector<json::object> existing = {}) {
    host.cluster = std::move(existing);
    doc["admission"] = json::object{{"operation", "CREATE"}};
    auto ctx = host.context("volcano");
    vc::Volcano plugin(json::object{}, ctx);
    plugin.validate(sdk::Info(std::move(doc)), ctx);
}

json::object priorityClass(std::string_view name) {
    return json::object{{"apiVersion", "scheduling.k8s.io/v1"},
                        {"kind", "PriorityClass"},
                        {"metadata", json::object{{"name", name}}},
                        {"value", 1000}};
}

json::object existingPodGroup() {
    return json::object{{"apiVersion", "scheduling.volcano.sh/v1beta1"},
                        {"kind", "PodGroup"},
                        {"metadata", json::object{{"name", "test-job"}, {"namespace", "default"}}},
                        {"spec", json::object{{"minMember", 6}}}};
}

const json::object& specOf(const json::value& pg) { return pg.as_object().at("spec").as_object(); }

}  // namespace

BOOST_AUTO_TEST_CASE(golden_podgroup) {
    sdk::testing::Host host;
    auto jobs = vc::test::defaultJobs();
    jobs[2].priorityClassName = "high";
    auto out = runBuild(host,
                        makeInfo(jobs, json::object{{"networkTopology", json::object{{"mode", "hard"}, {"highestTierAllowed", 2}}}},
                                 json::object{{"scheduling.volcano.sh/queue-name", "research"}}));
    BOOST_TEST(host.errors().empty());
    BOOST_REQUIRE_EQUAL(out.size(), 1u);
    // 6 pods; cpu 500m + 1.5 + 4x2 = 10; memory 512Mi + 1Gi + 4x4Gi = 17.5Gi = 17920Mi.
    auto expected = json::parse(R"({
      "apiVersion": "scheduling.volcano.sh/v1beta1",
      "kind": "PodGroup",
      "metadata": {
        "name": "test-job",
        "namespace": "default",
        "ownerReferences": [{"apiVersion": "trainer.kubeflow.org/v1alpha1", "kind": "TrainJob",
          "name": "test-job", "uid": "uid", "controller": true, "blockOwnerDeletion": true}]
      },
      "spec": {
        "minMember": 6,
        "minResources": {"cpu": "10", "memory": "17920Mi", "nvidia.com/gpu": "4"},
        "queue": "research",
        "priorityClassName": "high",
        "networkTopology": {"mode": "hard", "highestTierAllowed": 2}
      }
    })");
    BOOST_TEST(json::serialize(out[0]) == json::serialize(expected));
}

// The same PodGroup on the operator's real host (TrainerSDK::testing, from the installed SDK):
// a TrainJob on a runtime in the cluster, the Info the operator builds (PodSet counts and
// singlePodRequests from the runtime's containers), volcano's pod annotation and PodGroup, and
// admission refusing the missing PriorityClass.
BOOST_AUTO_TEST_CASE(golden_podgroup_on_the_real_host) {
    auto runtime = json::parse(R"({"apiVersion":"trainer.kubeflow.org/v1alpha1","kind":"TrainingRuntime",
      "metadata":{"name":"test-runtime","namespace":"default"},
      "spec":{"mlPolicy":{"numNodes":4},
        "podGroupPolicy":{"volcano":{"networkTopology":{"mode":"hard","highestTierAllowed":2}}},
        "template":{"metadata":{"annotations":{"scheduling.volcano.sh/queue-name":"research"}},
          "spec":{"replicatedJobs":[
          {"name":"dataset-initializer","template":{"metadata":{"labels":{"trainer.kubeflow.org/trainjob-ancestor-step":"dataset-initializer"}},
            "spec":{"template":{"spec":{"containers":[{"name":"dataset-initializer","image":"i",
              "resources":{"requests":{"cpu":"500m","memory":"512Mi"}}}]}}}}},
          {"name":"model-initializer","template":{"metadata":{"labels":{"trainer.kubeflow.org/trainjob-ancestor-step":"model-initializer"}},
            "spec":{"template":{"spec":{"containers":[{"name":"model-initializer","image":"i",
              "resources":{"requests":{"cpu":"1.5","memory":"1Gi"}}}]}}}}},
          {"name":"node","template":{"metadata":{"labels":{"trainer.kubeflow.org/trainjob-ancestor-step":"trainer"}},
            "spec":{"template":{"spec":{"priorityClassName":"high","containers":[{"name":"node","image":"i",
              "resources":{"requests":{"cpu":"2","memory":"4Gi","nvidia.com/gpu":"1"}}}]}}}}}]}}}})")
                       .as_object();
    auto trainJob = json::parse(R"({"apiVersion":"trainer.kubeflow.org/v1alpha1","kind":"TrainJob",
      "metadata":{"name":"test-job","namespace":"default","uid":"uid"},
      "spec":{"runtimeRef":{"name":"test-runtime","kind":"TrainingRuntime"}}})")
                        .as_object();
    sdk::testing::RealHost host;
    BOOST_TEST_REQUIRE(host.add<vc::Volcano>());
    host.addObject(runtime);
    auto out = host.buildTrainJob(trainJob);
    BOOST_TEST_REQUIRE(out.ok(), out.describe());
    auto* pg = out.object("PodGroup", "test-job");
    BOOST_TEST_REQUIRE(pg);
    BOOST_TEST(json::serialize(pg->at("spec")) ==
               R"({"minMember":6,"minResources":{"cpu":"10","memory":"17920Mi","nvidia.com/gpu":"4"},"queue":"research",)"
               R"("priorityClassName":"high","networkTopology":{"mode":"hard","highestTierAllowed":2}})");
    BOOST_TEST(out.info.at("scheduler").at("podAnnotations").at("scheduling.k8s.io/group-name") == "test-job");

    auto refused = host.admit(trainJob);
    BOOST_TEST(!refused.ok());
    host.addObject(priorityClass("high"));
    auto admitted = host.admit(trainJob);
    BOOST_TEST(admitted.ok(), admitted.describe());
}

BOOST_AUTO_TEST_CASE(mixed_unit_sums) {
    sdk::testing::Host host;
    std::vector<Job> jobs = {{"a", nullptr, 1, {{"cpu", "500m"}, {"memory", "512Mi"}}},
                             {"b", nullptr, 1, {{"cpu", "1.5"}, {"memory", "1Gi"}}}};
    auto out = runBuild(host, makeInfo(jobs, json::object{}));
    BOOST_REQUIRE_EQUAL(out.size(), 1u);
    auto const& res = specOf(out[0]).at("minResources").as_object();
    BOOST_TEST(specOf(out[0]).at("minMember").as_int64() == 2);
    BOOST_TEST((*sdk::Quantity::parse(res.at("cpu").as_string()) == *sdk::Quantity::parse("2")));
    BOOST_TEST((*sdk::Quantity::parse(res.at("memory").as_string()) == *sdk::Quantity::parse("1536Mi")));
    // Optional fields stay absent when nothing configures them.
    for (auto key : {"queue", "priorityClassName", "networkTopology"}) BOOST_TEST(!specOf(out[0]).contains(key), key);
}

BOOST_AUTO_TEST_CASE(queue_from_info_annotations) {
    struct Case {
        const char* name;
        json::object annotations;
        std::optional<std::string> queue;
    };
    const std::vector<Case> cases = {
        {"absent", {}, std::nullopt},
        {"set", {{"scheduling.volcano.sh/queue-name", "q1"}}, "q1"},
        {"other annotations ignored", {{"team", "x"}}, std::nullopt},
    };
    for (auto const& c : cases) {
        BOOST_TEST_CONTEXT(c.name) {
            sdk::testing::Host host;
            auto out = runBuild(host, makeInfo(vc::test::defaultJobs(), json::object{}, c.annotations));
            BOOST_REQUIRE_EQUAL(out.size(), 1u);
            auto const& spec = specOf(out[0]);
            BOOST_TEST(spec.contains("queue") == c.queue.has_value());
            if (c.queue) BOOST_TEST(spec.at("queue").as_string() == *c.queue);
        }
    }
}

BOOST_AUTO_TEST_CASE(priority_class_from_last_job_that_sets_one) {
    struct Case {
        const char* name;
        std::vector<std::optional<std::string>> perJob;  // dataset-initializer, model-initializer, node
        std::optional<std::string> expected;
    };
    const std::vector<Case> cases = {
        {"none", {std::nullopt, std::nullopt, std::nullopt}, std::nullopt},
        {"only the first", {"low", std::nullopt, std::nullopt}, "low"},
        {"last one wins", {"low", "mid", "high"}, "high"},
        {"last setter, not last job", {"low", "mid", std::nullopt}, "mid"},
        {"empty string is unset", {"low", std::nullopt, ""}, "low"},
    };
    for (auto const& c : cases) {
        BOOST_TEST_CONTEXT(c.name) {
            auto jobs = vc::test::defaultJobs();
            for (size_t i = 0; i < jobs.size(); ++i) jobs[i].priorityClassName = c.perJob[i];
            sdk::testing::Host host;
            auto out = runBuild(host, makeInfo(jobs, json::object{}));
            BOOST_REQUIRE_EQUAL(out.size(), 1u);
            auto const& spec = specOf(out[0]);
            BOOST_TEST(spec.contains("priorityClassName") == c.expected.has_value());
            if (c.expected) BOOST_TEST(spec.at("priorityClassName").as_string() == *c.expected);
        }
    }
}

BOOST_AUTO_TEST_CASE(network_topology) {
    struct Case {
        const char* policy;
        const char* expected;  // JSON or nullptr for absent
    };
    const Case cases[] = {
        {R"({})", nullptr},
        {R"({"networkTopology":{"mode":"soft"}})", R"({"mode":"soft","highestTierAllowed":1})"},
        {R"({"networkTopology":{"mode":"hard","highestTierAllowed":3}})", R"({"mode":"hard","highestTierAllowed":3})"},
    };
    for (auto const& c : cases) {
        BOOST_TEST_CONTEXT(c.policy) {
            sdk::testing::Host host;
            auto out = runBuild(host, makeInfo(vc::test::defaultJobs(), json::parse(c.policy).as_object()));
            BOOST_REQUIRE_EQUAL(out.size(), 1u);
            auto const& spec = specOf(out[0]);
            BOOST_TEST(spec.contains("networkTopology") == (c.expected != nullptr));
            if (c.expected) BOOST_TEST(json::serialize(spec.at("networkTopology")) == json::serialize(json::parse(c.expected)));
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
        {"exists, running: nothing", true, false, 0},
        {"exists, suspended: rebuilt", true, true, 1},
    };
    for (auto const& c : cases) {
        BOOST_TEST_CONTEXT(c.name) {
            sdk::testing::Host host;
            std::vector<json::object> cluster;
            if (c.exists) cluster.push_back(existingPodGroup());
            auto out = runBuild(host, makeInfo(vc::test::defaultJobs(), json::object{}, {}, c.suspend), cluster);
            BOOST_TEST(host.errors().empty());
            BOOST_TEST(out.size() == c.emitted);
        }
    }
}

BOOST_AUTO_TEST_CASE(enforce_sets_group_name_annotation) {
    sdk::testing::Host host;
    auto ctx = host.context("volcano");
    vc::Volcano plugin(json::object{}, ctx);
    sdk::Edits edits(ctx);
    plugin.enforcePodGroupPolicy(sdk::Info(makeInfo(vc::test::defaultJobs(), json::object{})), edits, ctx);
    BOOST_REQUIRE_EQUAL(host.emitted.size(), 1u);
    auto expected = json::parse(
        R"({"op":"set","path":"/scheduler/podAnnotations/scheduling.k8s.io~1group-name","value":"test-job"})");
    BOOST_TEST(json::serialize(host.emitted[0]) == json::serialize(expected));
}

BOOST_AUTO_TEST_CASE(admission_validation) {
    struct Case {
        const char* name;
        json::object annotations;
        std::optional<std::string> priorityClassName;
        std::vector<std::string> existingClasses;
        std::vector<std::pair<std::string, std::string>> errors;  // path, message
    };
    const std::vector<Case> cases = {
        {"valid: no queue, no priority class", {}, std::nullopt, {}, {}},
        {"valid: queue and existing priority class", {{"scheduling.volcano.sh/queue-name", "q"}}, "high", {"high"}, {}},
        {"empty queue name",
         {{"scheduling.volcano.sh/queue-name", ""}},
         std::nullopt,
         {},
         {{"spec.annotations[scheduling.volcano.sh/queue-name]", "Volcano queue name must not be empty"}}},
        {"missing priority class",
         {},
         "high",
         {"other"},
         {{"spec.templateSpec.priorityClassName",
           "PriorityClass \"high\" doesn't exist: priorityclasses.scheduling.k8s.io \"high\" not found"}}},
        {"system-cluster-critical needs no object", {}, "system-cluster-critical", {}, {}},
        {"system-node-critical needs no object", {}, "system-node-critical", {}, {}},
        {"both errors",
         {{"scheduling.volcano.sh/queue-name", ""}},
         "nope",
         {},
         {{"spec.annotations[scheduling.volcano.sh/queue-name]", "Volcano queue name must not be empty"},
          {"spec.templateSpec.priorityClassName",
           "PriorityClass \"nope\" doesn't exist: priorityclasses.scheduling.k8s.io \"nope\" not found"}}},
    };
    for (auto const& c : cases) {
        BOOST_TEST_CONTEXT(c.name) {
            auto jobs = vc::test::defaultJobs();
            jobs[0].priorityClassName = c.priorityClassName;  // same class on two jobs: one error
            jobs[2].priorityClassName = c.priorityClassName;
            std::vector<json::object> cluster;
            for (auto const& n : c.existingClasses) cluster.push_back(priorityClass(n));
            sdk::testing::Host host;
            runValidate(host, makeInfo(jobs, json::object{}, c.annotations), cluster);
            auto errors = host.errors();
            BOOST_REQUIRE_EQUAL(errors.size(), c.errors.size());
            for (size_t i = 0; i < errors.size(); ++i) {
                BOOST_TEST(errors[i].path == c.errors[i].first);
                BOOST_TEST(errors[i].message == c.errors[i].second);
            }
            BOOST_TEST(host.emitted.empty());
        }
    }
}

BOOST_AUTO_TEST_CASE(inactive_without_volcano_policy) {
    auto doc = makeInfo(vc::test::defaultJobs(), json::object{}, {{"scheduling.volcano.sh/queue-name", ""}});
    doc["runtimePolicy"] = json::object{{"podGroupPolicy", json::object{{"coscheduling", json::object{}}}}};
    sdk::testing::Host host;
    BOOST_TEST(runBuild(host, doc).empty());
    runValidate(host, doc);
    BOOST_TEST(host.errors().empty());
    auto ctx = host.context("volcano");
    vc::Volcano plugin(json::object{}, ctx);
    sdk::Edits edits(ctx);
    plugin.enforcePodGroupPolicy(sdk::Info(doc), edits, ctx);
    BOOST_TEST(host.emitted.empty());
}

BOOST_AUTO_TEST_CASE(bad_quantity_is_an_error_with_a_path) {
    sdk::testing::Host host;
    auto out = runBuild(host, makeInfo({{"node", "trainer", 2, {{"memory", "lots"}}}}, json::object{}));
    BOOST_TEST(out.empty());
    BOOST_REQUIRE_EQUAL(host.errors().size(), 1u);
    BOOST_TEST(host.errors()[0].path == "podSets[node].singlePodRequests[memory]");
}
