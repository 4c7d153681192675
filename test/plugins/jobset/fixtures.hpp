// Info documents and small helpers shared by the jobset plugin tests.
#pragma once

#include "edit_applier.hpp"
#include "jobset.hpp"

#include <trainer/testing.hpp>

#include <boost/test/unit_test.hpp>

#include <string>
#include <string_view>
#include <vector>

namespace trainer::testkit {

namespace sdk = trainer::sdk;
using trainer::plugins::jobset::JobSet;

inline json::object obj(std::string_view text) { return json::parse(text).as_object(); }

// The §6 worked example after EnforceMLPolicy (torch) — what PreComponentBuilder sees.
inline json::object workedExampleInfo() {
    return obj(R"({
  "infoVersion": 1,
  "trainJob": {
    "apiVersion": "trainer.kubeflow.org/v1alpha1", "kind": "TrainJob",
    "metadata": {"name": "test-job", "namespace": "default", "uid": "uid"},
    "spec": {
      "runtimeRef": {"name": "test-runtime", "apiGroup": "trainer.kubeflow.org", "kind": "TrainingRuntime"},
      "suspend": false,
      "managedBy": "trainer.kubeflow.org/trainjob-controller",
      "trainer": {
        "image": "test:trainjob", "command": ["trainjob"], "args": ["trainjob"],
        "resourcesPerNode": {"requests": {"cpu": "1"}},
        "env": [{"name": "TRAIN_JOB", "value": "override"}, {"name": "TRAIN_JOB_CUSTOM", "value": "test:trainjob"}]
      }
    }
  },
  "runtime": {"apiVersion": "trainer.kubeflow.org/v1alpha1", "kind": "TrainingRuntime",
              "metadata": {"name": "test-runtime", "namespace": "default"}},
  "labels": {}, "annotations": {},
  "runtimePolicy": {"mlPolicy": {"numNodes": 100, "torch": {}}},
  "scheduler": {"podLabels": {}, "podAnnotations": {}},
  "jobSetSpec": {
    "replicatedJobs": [
      {"name": "dataset-initializer", "groupName": "default", "replicas": 1,
       "template": {"metadata": {"labels": {"trainer.kubeflow.org/trainjob-ancestor-step": "dataset-initializer"}},
         "spec": {"template": {"spec": {
           "containers": [{"name": "dataset-initializer", "image": "test:runtime",
                           "volumeMounts": [{"name": "initializer", "mountPath": "/workspace/dataset"}]}],
           "volumes": [{"name": "initializer", "persistentVolumeClaim": {"claimName": "initializer"}}]}}}}},
      {"name": "model-initializer", "groupName": "default", "replicas": 1,
       "template": {"metadata": {"labels": {"trainer.kubeflow.org/trainjob-ancestor-step": "model-initializer"}},
         "spec": {"template": {"spec": {
           "containers": [{"name": "model-initializer", "image": "test:runtime",
                           "volumeMounts": [{"name": "initializer", "mountPath": "/workspace/model"}]}],
           "volumes": [{"name": "initializer", "persistentVolumeClaim": {"claimName": "initializer"}}]}}}}},
      {"name": "node", "groupName": "default", "replicas": 1,
       "dependsOn": [{"name": "dataset-initializer", "status": "Complete"}, {"name": "model-initializer", "status": "Complete"}],
       "template": {"metadata": {"labels": {"trainer.kubeflow.org/trainjob-ancestor-step": "trainer"}},
         "spec": {"template": {"spec": {
           "containers": [{"name": "node", "image": "test:runtime", "command": ["runtime"], "args": ["runtime"],
                           "resources": {"requests": {"cpu": "1"}},
                           "env": [{"name": "TRAIN_JOB", "value": "original"}, {"name": "RUNTIME", "value": "test:runtime"}],
                           "volumeMounts": [{"name": "initializer", "mountPath": "/workspace/dataset"},
                                            {"name": "initializer", "mountPath": "/workspace/model"}]}],
           "volumes": [{"name": "initializer", "persistentVolumeClaim": {"claimName": "initializer"}}]}}}}}
    ]
  },
  "podSets": [
    {"name": "dataset-initializer", "ancestor": "dataset-initializer", "count": 1,
     "containers": [{"name": "dataset-initializer", "image": "test:runtime", "env": [], "ports": [],
                     "volumeMounts": [{"name": "initializer", "mountPath": "/workspace/dataset"}]}],
     "initContainers": [], "volumes": [{"name": "initializer", "persistentVolumeClaim": {"claimName": "initializer"}}],
     "endpoints": [], "singlePodRequests": {}},
    {"name": "model-initializer", "ancestor": "model-initializer", "count": 1,
     "containers": [{"name": "model-initializer", "image": "test:runtime", "env": [], "ports": [],
                     "volumeMounts": [{"name": "initializer", "mountPath": "/workspace/model"}]}],
     "initContainers": [], "volumes": [{"name": "initializer", "persistentVolumeClaim": {"claimName": "initializer"}}],
     "endpoints": [], "singlePodRequests": {}},
    {"name": "node", "ancestor": "trainer", "count": 100,
     "containers": [{"name": "node", "image": "test:runtime", "command": ["runtime"], "args": ["runtime"],
       "env": [{"name": "TRAIN_JOB", "value": "override"}, {"name": "RUNTIME", "value": "test:runtime"},
               {"name": "TRAIN_JOB_CUSTOM", "value": "test:trainjob"}, {"name": "PET_NNODES", "value": "100"},
               {"name": "PET_NPROC_PER_NODE", "value": "1"},
               {"name": "PET_NODE_RANK", "valueFrom": {"fieldRef": {"fieldPath": "metadata.annotations['batch.kubernetes.io/job-completion-index']"}}},
               {"name": "PET_MASTER_ADDR", "value": "test-job-node-0-0.test-job"},
               {"name": "PET_MASTER_PORT", "value": "29500"}],
       "ports": [{"containerPort": 29500}],
       "volumeMounts": [{"name": "initializer", "mountPath": "/workspace/dataset"},
                        {"name": "initializer", "mountPath": "/workspace/model"}]}],
     "initContainers": [], "volumes": [{"name": "initializer", "persistentVolumeClaim": {"claimName": "initializer"}}],
     "endpoints": [], "singlePodRequests": {"cpu": "1"}}
  ]
})");
}

// Runs PreComponentBuilder and applies its edits to `info`.
inline void runPreBuild(json::object& info, sdk::testing::Host& host) {
    auto ctx = host.context("jobset");
    JobSet plugin(json::object{}, ctx);
    sdk::Edits edits(ctx);
    plugin.preBuild(sdk::Info(info), edits, ctx);
    applyEdits(info, host.emitted);
    host.emitted.clear();
}

// Runs ComponentBuilder; returns what was emitted.
inline std::vector<json::value> runBuild(const json::object& info, sdk::testing::Host& host) {
    auto ctx = host.context("jobset");
    JobSet plugin(json::object{}, ctx);
    sdk::Objects objects(ctx);
    plugin.build(sdk::Info(info), objects, ctx);
    return host.emitted;
}

// PreComponentBuilder then ComponentBuilder; the one JobSet (fails the test otherwise).
inline json::object buildOne(json::object info, sdk::testing::Host& host) {
    runPreBuild(info, host);
    auto out = runBuild(info, host);
    BOOST_REQUIRE_EQUAL(out.size(), 1u);
    return out[0].as_object();
}

// RFC 6901 lookup for assertions (array elements by index); nullptr when missing.
// Takes the object by reference: never hand it a temporary.
inline const json::value* at(const json::object& root, std::string_view ptr) {
    const json::object* o = &root;
    const json::value* cur = nullptr;
    for (auto const& t : splitPointer(ptr)) {
        if (o) {
            auto it = o->find(t);
            if (it == o->end()) return nullptr;
            cur = &it->value();
        } else if (cur && cur->is_array()) {
            size_t i = std::stoul(t);
            if (i >= cur->as_array().size()) return nullptr;
            cur = &cur->as_array()[i];
        } else {
            return nullptr;
        }
        o = cur->is_object() ? &cur->as_object() : nullptr;
    }
    return cur;
}
const json::value* at(json::object&&, std::string_view) = delete;

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
