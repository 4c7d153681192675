// Info documents for the volcano tests.
#pragma once

#include <trainer/plugin.hpp>

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace trainer::plugins::volcano::test {

namespace json = boost::json;

// One replicated job: its PodSet (count, requests) and pod template priorityClassName.
struct Job {
    std::string name;
    json::value ancestor;  // string or null
    int64_t count;
    json::object requests;
    std::optional<std::string> priorityClassName = std::nullopt;
};

// An Info for TrainJob default/test-job (uid "uid").
inline json::object makeInfo(const std::vector<Job>& jobs, json::object volcanoPolicy, json::object annotations = {},
                             bool suspend = false) {
    json::array podSets, replicatedJobs;
    for (auto const& j : jobs) {
        podSets.push_back(json::object{{"name", j.name},
                                       {"ancestor", j.ancestor},
                                       {"count", j.count},
                                       {"containers", json::array{}},
                                       {"initContainers", json::array{}},
                                       {"volumes", json::array{}},
                                       {"endpoints", json::array{}},
                                       {"singlePodRequests", j.requests}});
        json::object podSpec{{"containers", json::array{json::object{{"name", j.name}, {"image", "img"}}}}};
        if (j.priorityClassName) podSpec["priorityClassName"] = *j.priorityClassName;
        replicatedJobs.push_back(json::object{
            {"name", j.name},
            {"replicas", 1},
            {"template", json::object{{"spec", json::object{{"template", json::object{{"spec", podSpec}}}}}}}});
    }
    return json::object{
        {"infoVersion", 1},
        {"trainJob",
         json::object{{"apiVersion", "trainer.kubeflow.org/v1alpha1"},
                      {"kind", "TrainJob"},
                      {"metadata", json::object{{"name", "test-job"}, {"namespace", "default"}, {"uid", "uid"}}},
                      {"spec", json::object{{"runtimeRef", json::object{{"name", "test-runtime"}}},
                                            {"suspend", suspend}}}}},
        {"runtime", json::object{{"apiVersion", "trainer.kubeflow.org/v1alpha1"},
                                 {"kind", "TrainingRuntime"},
                                 {"metadata", json::object{{"name", "test-runtime"}, {"namespace", "default"}}}}},
        {"labels", json::object{}},
        {"annotations", std::move(annotations)},
        {"runtimePolicy", json::object{{"podGroupPolicy", json::object{{"volcano", std::move(volcanoPolicy)}}}}},
        {"scheduler", json::object{{"podLabels", json::object{}}, {"podAnnotations", json::object{}}}},
        {"jobSetSpec", json::object{{"replicatedJobs", std::move(replicatedJobs)}}},
        {"podSets", std::move(podSets)},
    };
}

// Two initializers and 4 trainer nodes.
inline std::vector<Job> defaultJobs() {
    return {{"dataset-initializer", "dataset-initializer", 1, {{"cpu", "500m"}, {"memory", "512Mi"}}},
            {"model-initializer", "model-initializer", 1, {{"cpu", "1.5"}, {"memory", "1Gi"}}},
            {"node", "trainer", 4, {{"cpu", "2"}, {"memory", "4Gi"}, {"nvidia.com/gpu", "1"}}}};
}

}  // namespace trainer::plugins::volcano::test
