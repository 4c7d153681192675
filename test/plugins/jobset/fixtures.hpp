// Inputs and small helpers shared by the jobset plugin tests; the hooks run on the operator's
// real host (TrainerSDK::testing).
#pragma once

#include "jobset.hpp"

#include "../../../plugins/torch/torch.hpp"

#include <trainer/testing/real_host.hpp>

#include <boost/test/unit_test.hpp>

#include <string>
#include <string_view>
#include <vector>

namespace trainer::testkit {

namespace json = boost::json;
namespace sdk = trainer::sdk;
namespace testing = trainer::sdk::testing;
using trainer::plugins::jobset::JobSet;

inline json::object obj(std::string_view text) { return json::parse(text).as_object(); }

// The worked example's TrainJob and runtime (upstream's
// TestTrainingRuntimeNewObjects, case "succeeded to build JobSet with Torch values from the Runtime and envs." in
// https://github.com/kubeflow/trainer/blob/8c0f5059bd51ec3ba6d6a6a7b2e1471de7bc13b3/pkg/runtime/core/trainingruntime_test.go):
// a torch runtime with two initializers and 100 trainer nodes.
inline json::object workedExampleTrainJob() {
    return obj(R"({"apiVersion": "trainer.kubeflow.org/v1alpha1", "kind": "TrainJob",
    "metadata": {"name": "test-job", "namespace": "default", "uid": "uid"},
    "spec": {
      "runtimeRef": {"name": "test-runtime", "apiGroup": "trainer.kubeflow.org", "kind": "TrainingRuntime"},
      "suspend": false,
      "managedBy": "trainer.kubeflow.org/trainjob-controller",
      "trainer": {
        "image": "test:trainjob", "command": ["trainjob"], "args": ["trainjob"],
        "resourcesPerNode": {"requests": {"cpu": "1"}},
        "env": [{"name": "TRAIN_JOB", "value": "override"}, {"name": "TRAIN_JOB_CUSTOM", "value": "test:trainjob"}]
      }}})");
}

inline json::object workedExampleRuntime() {
    return obj(R"({"apiVersion": "trainer.kubeflow.org/v1alpha1", "kind": "TrainingRuntime",
  "metadata": {"name": "test-runtime", "namespace": "default"},
  "spec": {
    "mlPolicy": {"numNodes": 100, "torch": {}},
    "template": {"spec": {"replicatedJobs": [
      {"name": "dataset-initializer",
       "template": {"metadata": {"labels": {"trainer.kubeflow.org/trainjob-ancestor-step": "dataset-initializer"}},
         "spec": {"template": {"spec": {
           "containers": [{"name": "dataset-initializer", "image": "test:runtime",
                           "volumeMounts": [{"name": "initializer", "mountPath": "/workspace/dataset"}]}],
           "volumes": [{"name": "initializer", "persistentVolumeClaim": {"claimName": "initializer"}}]}}}}},
      {"name": "model-initializer",
       "template": {"metadata": {"labels": {"trainer.kubeflow.org/trainjob-ancestor-step": "model-initializer"}},
         "spec": {"template": {"spec": {
           "containers": [{"name": "model-initializer", "image": "test:runtime",
                           "volumeMounts": [{"name": "initializer", "mountPath": "/workspace/model"}]}],
           "volumes": [{"name": "initializer", "persistentVolumeClaim": {"claimName": "initializer"}}]}}}}},
      {"name": "node",
       "dependsOn": [{"name": "dataset-initializer", "status": "Complete"}, {"name": "model-initializer", "status": "Complete"}],
       "template": {"metadata": {"labels": {"trainer.kubeflow.org/trainjob-ancestor-step": "trainer"}},
         "spec": {"template": {"spec": {
           "containers": [{"name": "node", "image": "test:runtime", "command": ["runtime"], "args": ["runtime"],
                           "resources": {"requests": {"cpu": "1"}},
                           "env": [{"name": "TRAIN_JOB", "value": "original"}, {"name": "RUNTIME", "value": "test:runtime"}],
                           "volumeMounts": [{"name": "initializer", "mountPath": "/workspace/dataset"},
                                            {"name": "initializer", "mountPath": "/workspace/model"}]}],
           "volumes": [{"name": "initializer", "persistentVolumeClaim": {"claimName": "initializer"}}]}}}}}
    ]}}}})");
}

// The jobset plugin on the operator's real host (TrainerSDK::testing), with torch beside it as in
// the worked example, and `cluster` as the objects lookups find.
struct JobSetHost {
    testing::RealHost host;
    explicit JobSetHost(const std::vector<json::object>& cluster = {}) {
        BOOST_TEST_REQUIRE(host.add<JobSet>());
        BOOST_TEST_REQUIRE(host.add<trainer::plugins::torch::Torch>());
        for (auto const& o : cluster) host.addObject(o);
    }
    // PreComponentBuilder: the Info with its edits applied (endpoints, parallelism).
    testing::Outcome preBuild(const json::object& info) const { return host.run(testing::Hook::PreComponentBuilder, info); }
    // ComponentBuilder alone.
    testing::Outcome build(const json::object& info) const { return host.run(testing::Hook::ComponentBuilder, info); }
    // PreComponentBuilder then ComponentBuilder: the one JobSet (fails the test otherwise).
    json::object buildOne(const json::object& info) const {
        auto out = host.run({testing::Hook::PreComponentBuilder, testing::Hook::ComponentBuilder}, info);
        BOOST_TEST_REQUIRE(out.ok(), out.describe());
        BOOST_REQUIRE_EQUAL(out.objects.size(), 1u);
        return out.objects[0];
    }
};

// The worked example's Info as jobset's hooks receive it: the Info the operator builds, after
// torch's EnforceMLPolicy, both on the real host.
inline json::object workedExampleInfo() {
    JobSetHost h;
    auto built = testing::buildInfo(workedExampleTrainJob(), workedExampleRuntime());
    BOOST_TEST_REQUIRE(built.ok(), built.describe());
    auto out = h.host.run(testing::Hook::EnforceMLPolicy, built.info);
    BOOST_TEST_REQUIRE(out.ok(), out.describe());
    return out.info;
}

inline const json::object& replicatedJob(const json::object& jobSet, std::string_view name) {
    const auto* rj = sdk::findByKey(sdk::getArray(jobSet.at("spec").as_object(), "replicatedJobs"), "name", name);
    BOOST_REQUIRE_MESSAGE(rj, "no replicated job " << name);
    return *rj;
}

inline const json::object& podSpecOf(const json::object& rj) {
    return rj.at("template").at("spec").at("template").at("spec").as_object();
}

inline const json::object& containerOf(const json::object& jobSet, std::string_view job, std::string_view c) {
    const auto* co = sdk::findByKey(sdk::getArray(podSpecOf(replicatedJob(jobSet, job)), "containers"), "name", c);
    BOOST_REQUIRE_MESSAGE(co, "no container " << c << " in " << job);
    return *co;
}

// Names of a keyed list, in order.
inline std::vector<std::string> names(const json::value& list, std::string_view key = "name") {
    std::vector<std::string> out;
    for (auto const& e : list.as_array()) out.emplace_back(e.at(key).as_string());
    return out;
}

}  // namespace trainer::testkit
