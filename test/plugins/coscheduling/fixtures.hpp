// Info documents for the coscheduling tests.
#pragma once

#include <trainer/plugin.hpp>

#include <string>
#include <utility>
#include <vector>

namespace trainer::plugins::coscheduling::test {

namespace json = boost::json;

struct PodSetSpec {
    std::string name;
    json::value ancestor;  // string or null
    int64_t count;
    json::object requests;
};

// An Info for TrainJob default/test-job (uid "uid") with `podGroupPolicy` and the PodSets.
inline json::object makeInfo(std::vector<PodSetSpec> podSets, json::object podGroupPolicy,
                             bool suspend = false) {
    json::array ps;
    for (auto& p : podSets)
        ps.push_back(json::object{{"name", p.name},
                                  {"ancestor", p.ancestor},
                                  {"count", p.count},
                                  {"containers", json::array{}},
                                  {"initContainers", json::array{}},
                                  {"volumes", json::array{}},
                                  {"endpoints", json::array{}},
                                  {"singlePodRequests", p.requests}});
    return json::object{
        {"infoVersion", 1},
        {"trainJob",
         json::object{{"apiVersion", "trainer.kubeflow.org/v1alpha1"},
                      {"kind", "TrainJob"},
                      {"metadata", json::object{{"name", "test-job"}, {"namespace", "default"}, {"uid", "uid"}}},
                      {"spec", json::object{{"runtimeRef", json::object{{"name", "test-runtime"}}},
                                            {"suspend", suspend}}}}},
        {"runtime", json::object{{"apiVersion", "trainer.kubeflow.org/v1alpha1"},
                                 {"kind", "ClusterTrainingRuntime"},
                                 {"metadata", json::object{{"name", "test-runtime"}}}}},
        {"labels", json::object{}},
        {"annotations", json::object{}},
        {"runtimePolicy", json::object{{"podGroupPolicy", std::move(podGroupPolicy)}}},
        {"scheduler", json::object{{"podLabels", json::object{}}, {"podAnnotations", json::object{}}}},
        {"jobSetSpec", json::object{{"replicatedJobs", json::array{}}}},
        {"podSets", std::move(ps)},
    };
}

inline json::object coschedulingPolicy(json::value timeout = 120) {
    json::object c;
    if (!timeout.is_null()) c["scheduleTimeoutSeconds"] = timeout;
    return json::object{{"coscheduling", std::move(c)}};
}

// The three PodSets of conformance case 10: two initializers and 100 trainer nodes, cpu 1 each.
inline std::vector<PodSetSpec> case10PodSets() {
    return {{"dataset-initializer", "dataset-initializer", 1, {{"cpu", "1"}}},
            {"model-initializer", "model-initializer", 1, {{"cpu", "1"}}},
            {"node", "trainer", 100, {{"cpu", "1"}}}};
}

}  // namespace trainer::plugins::coscheduling::test
