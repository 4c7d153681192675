#include "core/runtime/info_builder.hpp"
#include "core/json/io.hpp"

#include <trainer/quantity.hpp>

#include <boost/test/unit_test.hpp>

#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

using namespace trainer::core;

namespace {

json::object obj(std::string_view text) { return json::parse(text).as_object(); }

json::object readCase(const std::string& file) {
    std::ifstream in(std::string(TRAINER_GOLDEN_DIR) + "/upstream/" + file);
    std::stringstream ss;
    ss << in.rdbuf();
    return json::parse(ss.str()).as_object();
}

const json::object& podSet(const json::object& info, std::string_view name) {
    for (auto const& p : info.at("podSets").as_array())
        if (p.as_object().at("name").as_string() == name) return p.as_object();
    BOOST_FAIL("no PodSet " << name);
    throw;
}

const json::object& podSpecOf(const json::object& jobSetSpec, std::string_view job) {
    for (auto const& rj : jobSetSpec.at("replicatedJobs").as_array())
        if (rj.as_object().at("name").as_string() == job)
            return rj.at_pointer("/template/spec/template/spec").as_object();
    BOOST_FAIL("no replicated job " << job);
    throw;
}

// Expected ⊆ actual with the conformance README's rules (keyed lists, quantities, "<absent>").
std::string_view listKey(std::string_view field) {
    if (field == "volumeMounts") return "mountPath";
    if (field == "ports") return "containerPort";
    static constexpr std::string_view named[] = {"replicatedJobs", "containers", "initContainers", "env", "volumes",
                                                 "imagePullSecrets", "schedulingGates", "dependsOn"};
    for (auto n : named)
        if (n == field) return "name";
    return {};
}
bool subset(const json::value& want, const json::value* got, std::string_view field, bool quantity, std::string& where) {
    if (want.is_string() && want.as_string() == "<absent>")
        return !got || got->is_null() || (got->is_object() && got->as_object().empty());
    if (!got) return false;
    if (quantity) {
        auto a = trainer::sdk::Quantity::fromJson(want), b = trainer::sdk::Quantity::fromJson(*got);
        return a && b && *a == *b;
    }
    if (want.is_object()) {
        if (!got->is_object()) return false;
        for (auto const& kv : want.as_object()) {
            bool q = kv.key() == "requests" || kv.key() == "limits" || kv.key() == "overhead";
            if (quantity || (q && kv.value().is_object())) {
                auto* g = got->as_object().if_contains(kv.key());
                if (!g || !g->is_object()) return where = std::string(kv.key()), false;
                for (auto const& r : kv.value().as_object())
                    if (!subset(r.value(), g->as_object().if_contains(r.key()), r.key(), true, where))
                        return where = std::string(kv.key()) + "." + std::string(r.key()), false;
                continue;
            }
            if (!subset(kv.value(), got->as_object().if_contains(kv.key()), kv.key(), false, where))
                return where = std::string(kv.key()) + (where.empty() ? "" : "." + where), false;
        }
        return true;
    }
    if (want.is_array()) {
        if (!got->is_array()) return false;
        auto const& w = want.as_array();
        auto const& g = got->as_array();
        if (auto key = listKey(field); !key.empty()) {
            for (auto const& e : w) {
                const json::value* match = nullptr;
                for (auto const& ge : g)
                    if (ge.is_object() && ge.as_object().if_contains(key) && *ge.as_object().if_contains(key) == e.at(key))
                        match = &ge;
                if (!subset(e, match, "", false, where)) return where = "[" + json::serialize(e.at(key)) + "]" + where, false;
            }
            return true;
        }
        if (w.size() != g.size()) return false;
        for (size_t i = 0; i < w.size(); ++i)
            if (!subset(w[i], &g[i], "", false, where)) return false;
        return true;
    }
    return want == *got;
}

// A minimal torch-like runtime (as upstream's torch cases of TestTrainingRuntimeNewObjects in
// https://github.com/kubeflow/trainer/blob/8c0f5059bd51ec3ba6d6a6a7b2e1471de7bc13b3/pkg/runtime/core/trainingruntime_test.go)
// with the ancestor jobs dataset, model and node.
constexpr std::string_view kTorchRuntime = R"({
  "apiVersion": "trainer.kubeflow.org/v1alpha1", "kind": "TrainingRuntime",
  "metadata": {"name": "torch", "namespace": "default"},
  "spec": {
    "mlPolicy": {"numNodes": 100, "torch": {}},
    "template": {"metadata": {"labels": {"rt": "label"}, "annotations": {"rt": "annotation"}},
      "spec": {"replicatedJobs": [
      {"name": "dataset-initializer", "replicas": 1, "groupName": "default",
       "template": {"metadata": {"labels": {"trainer.kubeflow.org/trainjob-ancestor-step": "dataset-initializer"}},
         "spec": {"template": {"spec": {"containers": [{"name": "dataset-initializer", "image": "d"}]}}}}},
      {"name": "model-initializer", "replicas": 1, "groupName": "default",
       "template": {"metadata": {"labels": {"trainer.kubeflow.org/trainjob-ancestor-step": "model-initializer"}},
         "spec": {"template": {"spec": {"containers": [{"name": "model-initializer", "image": "m"}]}}}}},
      {"name": "node", "replicas": 1, "groupName": "default",
       "template": {"metadata": {"labels": {"trainer.kubeflow.org/trainjob-ancestor-step": "trainer"}},
         "spec": {"parallelism": 7, "template": {"spec": {"containers": [{"name": "node", "image": "test:runtime",
           "resources": {"requests": {"cpu": "1"}},
           "env": [{"name": "TRAIN_JOB", "value": "original"}, {"name": "RUNTIME", "value": "test:runtime"}]}]}}}}}
    ]}}}
})";

constexpr std::string_view kTorchJob = R"({
  "apiVersion": "trainer.kubeflow.org/v1alpha1", "kind": "TrainJob",
  "metadata": {"name": "test-job", "namespace": "default", "uid": "uid"},
  "spec": {"runtimeRef": {"name": "torch", "apiGroup": "trainer.kubeflow.org", "kind": "TrainingRuntime"},
    "trainer": {"image": "test:trainjob", "command": ["trainjob"], "args": ["trainjob"],
      "resourcesPerNode": {"requests": {"cpu": "1"}},
      "env": [{"name": "TRAIN_JOB", "value": "override"}, {"name": "TRAIN_JOB_CUSTOM", "value": "test:trainjob"}]}}
})";

}  // namespace

BOOST_AUTO_TEST_CASE(worked_example_podsets) {
    Diagnostics diag;
    auto info = buildInfo(obj(kTorchJob), obj(kTorchRuntime), diag);
    BOOST_TEST_REQUIRE(diag.ok());
    BOOST_TEST(info.at("infoVersion") == 1);
    BOOST_TEST(json::serialize(info.at("labels")) == R"({"rt":"label"})");
    BOOST_TEST(json::serialize(info.at("annotations")) == R"({"rt":"annotation"})");
    BOOST_TEST(json::serialize(info.at("scheduler")) == R"({"podLabels":{},"podAnnotations":{}})");
    BOOST_TEST(json::serialize(info.at("runtime")) ==
               R"({"apiVersion":"trainer.kubeflow.org/v1alpha1","kind":"TrainingRuntime","metadata":{"name":"torch","namespace":"default"}})");
    BOOST_TEST(json::serialize(info.at("runtimePolicy")) == R"({"mlPolicy":{"numNodes":100,"torch":{}}})");
    BOOST_TEST(info.at("trainJob") == obj(kTorchJob));

    struct Want {
        std::string name;
        json::value ancestor;
        int64_t count;
    };
    const std::vector<Want> want = {
        {"dataset-initializer", "dataset-initializer", 1}, {"model-initializer", "model-initializer", 1}, {"node", "trainer", 100}};
    auto const& ps = info.at("podSets").as_array();
    BOOST_TEST_REQUIRE(ps.size() == want.size());
    for (size_t i = 0; i < want.size(); ++i) {
        BOOST_TEST_CONTEXT(want[i].name) {
            auto const& p = ps[i].as_object();
            BOOST_TEST(p.at("name").as_string() == want[i].name);
            BOOST_TEST(p.at("ancestor") == want[i].ancestor);
            BOOST_TEST(p.at("count") == want[i].count);
            BOOST_TEST(p.at("endpoints") == json::array());
            BOOST_TEST(p.at("initContainers") == json::array());
            BOOST_TEST(p.at("volumes") == json::array());
        }
    }
    BOOST_TEST(json::serialize(podSet(info, "dataset-initializer").at("containers")) ==
               R"([{"name":"dataset-initializer","image":"d","env":[],"ports":[],"volumeMounts":[]}])");
    BOOST_TEST(json::serialize(podSet(info, "node").at("containers")) ==
               R"([{"name":"node","image":"test:runtime","env":[{"name":"TRAIN_JOB","value":"original"},{"name":"RUNTIME","value":"test:runtime"}],"ports":[],"volumeMounts":[],"resources":{"requests":{"cpu":"1"}}}])");
    BOOST_TEST(json::serialize(podSet(info, "node").at("singlePodRequests")) == R"({"cpu":"1"})");
    BOOST_TEST(json::serialize(podSet(info, "dataset-initializer").at("singlePodRequests")) == "{}");
    // Apply-config: replicas and groupName pass through when non-zero.
    auto const& rj0 = info.at("jobSetSpec").at("replicatedJobs").as_array()[0].as_object();
    BOOST_TEST(rj0.at("replicas") == 1);
    BOOST_TEST(rj0.at("groupName") == "default");
}

BOOST_AUTO_TEST_CASE(counts) {
    struct Case {
        std::string name;
        std::string mlPolicy;     // JSON or empty for none
        std::string ancestor;     // label value or empty
        std::string parallelism;  // JSON or empty
        int64_t count;
    };
    const std::vector<Case> cases = {
        {"no mlPolicy: parallelism", "", "trainer", "5", 5},
        {"no mlPolicy: default 1", "", "trainer", "", 1},
        {"mlPolicy numNodes wins over parallelism", R"({"numNodes":3})", "trainer", "5", 3},
        {"mlPolicy without numNodes: 1", R"({"torch":{}})", "trainer", "5", 1},
        {"numNodes 0 clamps to 1", R"({"numNodes":0})", "trainer", "", 1},
        {"parallelism 0 clamps to 1", R"({"numNodes":3})", "", "0", 1},
        {"non-trainer keeps parallelism", R"({"numNodes":3})", "dataset-initializer", "4", 4},
        {"no ancestor label", R"({"numNodes":3})", "", "", 1},
    };
    for (auto const& c : cases) {
        BOOST_TEST_CONTEXT(c.name) {
            json::object rj{{"name", "job"}};
            json::object jobTemplate = obj(R"({"spec":{"template":{"spec":{"containers":[{"name":"node"}]}}}})");
            if (!c.ancestor.empty())
                jobTemplate["metadata"] = json::object{{"labels", json::object{{"trainer.kubeflow.org/trainjob-ancestor-step", c.ancestor}}}};
            if (!c.parallelism.empty()) jobTemplate["spec"].as_object()["parallelism"] = json::parse(c.parallelism);
            rj["template"] = jobTemplate;
            json::object spec{{"template", json::object{{"spec", json::object{{"replicatedJobs", json::array{rj}}}}}}};
            if (!c.mlPolicy.empty()) spec["mlPolicy"] = json::parse(c.mlPolicy);
            json::object runtime{{"kind", "TrainingRuntime"}, {"metadata", json::object{{"name", "r"}}}, {"spec", spec}};
            Diagnostics diag;
            auto info = buildInfo(obj(R"({"metadata":{"name":"j"},"spec":{}})"), runtime, diag);
            BOOST_TEST(diag.ok());
            BOOST_TEST(podSet(info, "job").at("count") == c.count);
        }
    }
}

BOOST_AUTO_TEST_CASE(runtime_patches_case_13) {
    auto tc = readCase("13-runtime-patches-pod-spec.json");
    auto const& trainJob = tc.at("trainJob").as_object();
    auto const& runtime = tc.at("runtimes").as_array()[0].as_object();
    Diagnostics diag;
    auto info = buildInfo(trainJob, runtime, diag);
    BOOST_TEST_REQUIRE(diag.ok());

    // The expected JobSet spec minus what later phases set (parallelism/completions by the jobset
    // PreBuildSync, trainer image/command/args and suspend by the builder).
    json::object expected = tc.at("expectedObjects").as_array()[0].at("spec").as_object();
    expected.erase("suspend");
    for (auto& rj : expected.at("replicatedJobs").as_array()) {
        auto& jobSpec = rj.at_pointer("/template/spec").as_object();
        jobSpec.erase("parallelism");
        jobSpec.erase("completions");
        for (auto& c : jobSpec.at("template").at_pointer("/spec/containers").as_array())
            if (c.at("name") == "node")
                for (auto k : {"image", "command", "args"}) c.as_object().erase(k);
    }
    std::string where;
    BOOST_TEST(subset(expected, &info.at("jobSetSpec"), "", false, where), "mismatch at " << where);
    BOOST_TEST(json::serialize(info.at("jobSetSpec").at("replicatedJobs").as_array()[0].at("name")) == R"("dataset-initializer")");
    // The matcher is strict enough to notice missing patches.
    json::object unpatched = trainJob;
    unpatched["spec"].as_object().erase("runtimePatches");
    Diagnostics d2;
    auto plain = buildInfo(unpatched, runtime, d2);
    BOOST_TEST(!subset(expected, &plain.at("jobSetSpec"), "", false, where));

    // The patched runtime also shows in the PodSets.
    auto const& node = podSet(info, "node");
    BOOST_TEST(node.at("count") == 100);
    BOOST_TEST(node.at("containers").as_array().size() == 2u);
    BOOST_TEST(json::serialize(node.at("containers").as_array()[1].at("env")) ==
               R"([{"name":"CONTAINER_ENV","value":"override_container"}])");
    BOOST_TEST(json::serialize(node.at("volumes")) ==
               R"([{"name":"node-secret","secret":{"secretName":"node-secret-name"}},{"name":"initializer","persistentVolumeClaim":{"claimName":"initializer"}}])");
    BOOST_TEST(json::serialize(node.at("singlePodRequests")) == R"({"cpu":"2"})");
    BOOST_TEST(json::serialize(podSet(info, "dataset-initializer").at("initContainers").as_array()[0].at("env")) ==
               R"([{"name":"INIT_ENV","value":"override_init"},{"name":"NEW_VALUE","value":"from_overrides"},{"name":"DATASET_PATH","value":"runtime"}])");
}

BOOST_AUTO_TEST_CASE(labels_annotations_overlay_and_template_order) {
    auto runtime = obj(kTorchRuntime);
    auto job = obj(kTorchJob);
    job["spec"].as_object()["runtimePatches"] = json::parse(R"([
      {"manager": "a.io/m1", "trainingRuntimeSpec": {"template": {"metadata": {"labels": {"rt": "p1", "x": "1"}, "annotations": {"p": "1"}},
        "spec": {"replicatedJobs": [{"name": "node", "template": {"spec": {"template": {"spec": {"nodeSelector": {"a": "b"}}}}}},
                                    {"name": "dataset-initializer", "replicas": 0, "groupName": ""}]}}}},
      {"manager": "a.io/m2", "trainingRuntimeSpec": {"template": {"metadata": {"labels": {"x": "2"}}}}}
    ])");
    Diagnostics diag;
    auto info = buildInfo(job, runtime, diag);
    BOOST_TEST_REQUIRE(diag.ok());
    BOOST_TEST(json::serialize(info.at("labels")) == R"({"rt":"p1","x":"2"})");
    BOOST_TEST(json::serialize(info.at("annotations")) == R"({"rt":"annotation","p":"1"})");
    std::vector<std::string> order;
    for (auto const& rj : info.at("jobSetSpec").at("replicatedJobs").as_array()) order.emplace_back(rj.at("name").as_string());
    BOOST_TEST((order == std::vector<std::string>{"dataset-initializer", "model-initializer", "node"}));
    // replicas: 0 and groupName "" disappear (apply-config semantics).
    auto const& ds = info.at("jobSetSpec").at("replicatedJobs").as_array()[0].as_object();
    BOOST_TEST(!ds.contains("replicas"));
    BOOST_TEST(!ds.contains("groupName"));
    BOOST_TEST(json::serialize(podSpecOf(info.at("jobSetSpec").as_object(), "node").at("nodeSelector")) == R"({"a":"b"})");
}

// A replicated job the template lacks (patched as [node, extra]): the merge gives [dataset-initializer,
// model-initializer, node, extra] (apimachinery's mergeSortedSlice), and upstream's order restore
// ranks `extra` 0 (a missing key of its order map, trainingruntime.go mergeRuntimePatches), so the
// stable sort moves it up beside the rank-0 job: [dataset-initializer, extra, model-initializer, node].
BOOST_AUTO_TEST_CASE(a_patched_in_replicated_job_keeps_upstreams_place) {
    auto runtime = obj(kTorchRuntime);
    auto job = obj(kTorchJob);
    job["spec"].as_object()["runtimePatches"] = json::parse(R"([
      {"manager": "a.io/m1", "trainingRuntimeSpec": {"template": {"spec": {"replicatedJobs": [
        {"name": "node", "template": {"spec": {"template": {"spec": {"nodeSelector": {"a": "b"}}}}}},
        {"name": "extra", "template": {"spec": {"template": {"spec": {"containers": [{"name": "c", "image": "i"}]}}}}}]}}}}
    ])");
    Diagnostics diag;
    auto info = buildInfo(job, runtime, diag);
    BOOST_TEST_REQUIRE(diag.ok());
    std::vector<std::string> order;
    for (auto const& rj : info.at("jobSetSpec").at("replicatedJobs").as_array()) order.emplace_back(rj.at("name").as_string());
    BOOST_TEST((order == std::vector<std::string>{"dataset-initializer", "extra", "model-initializer", "node"}), order[0] << "," << order[1] << "," << order[2] << "," << order[3]);
}

BOOST_AUTO_TEST_CASE(resource_merge_conditions) {
    struct Case {
        std::string name;
        std::string mlPolicy;   // JSON or empty
        std::string jobName;
        std::string ancestor;   // or empty
        bool merged;
    };
    const std::vector<Case> cases = {
        {"(a) trainer ancestor with mlPolicy", R"({"torch":{}})", "trainer-job", "trainer", true},
        {"(a) needs an mlPolicy", "", "node", "trainer", false},
        {"(b) mpi runLauncherAsNode, job named node", R"({"mpi":{"runLauncherAsNode":true}})", "node", "", true},
        {"(b) needs runLauncherAsNode", R"({"mpi":{"runLauncherAsNode":false}})", "node", "", false},
        {"(b) needs the name node", R"({"mpi":{"runLauncherAsNode":true}})", "worker", "", false},
        {"non-trainer ancestor", R"({"torch":{}})", "node", "dataset-initializer", false},
    };
    const std::string base = R"({"limits":{"nvidia.com/gpu":"2","memory":"8Gi"},"requests":{"cpu":"2","memory":"4Gi"},"claims":[{"name":"a"},{"name":"b","request":"x"}]})";
    for (auto const& c : cases) {
        BOOST_TEST_CONTEXT(c.name) {
            json::object podSpec{{"containers", json::array{
                json::object{{"name", "sidecar"}, {"resources", json::parse(R"({"requests":{"cpu":"1"}})")}},
                json::object{{"name", "node"}, {"resources", json::parse(base)}},
                json::object{{"name", "node"}, {"resources", json::parse(R"({"requests":{"cpu":"1"}})")}}}}};
            json::object jobTemplate{{"spec", json::object{{"template", json::object{{"spec", podSpec}}}}}};
            if (!c.ancestor.empty())
                jobTemplate["metadata"] = json::object{{"labels", json::object{{"trainer.kubeflow.org/trainjob-ancestor-step", c.ancestor}}}};
            json::object spec{{"template", json::object{{"spec", json::object{{"replicatedJobs", json::array{json::object{{"name", c.jobName}, {"template", jobTemplate}}}}}}}}};
            if (!c.mlPolicy.empty()) spec["mlPolicy"] = json::parse(c.mlPolicy);
            json::object runtime{{"kind", "ClusterTrainingRuntime"}, {"metadata", json::object{{"name", "r"}}}, {"spec", spec}};
            auto job = obj(R"({"metadata":{"name":"j"},"spec":{"trainer":{"resourcesPerNode":
                {"requests":{"cpu":"4","nvidia.com/gpu":"1"},"limits":{"nvidia.com/gpu":"1"},"claims":[{"name":"b","request":"y"},{"name":"c"}]}}}})");
            Diagnostics diag;
            auto info = buildInfo(job, runtime, diag);
            BOOST_TEST_REQUIRE(diag.ok());
            auto const& containers = podSpecOf(info.at("jobSetSpec").as_object(), c.jobName).at("containers").as_array();
            std::string want = c.merged
                ? R"({"limits":{"nvidia.com/gpu":"1","memory":"8Gi"},"requests":{"cpu":"4","memory":"4Gi","nvidia.com/gpu":"1"},"claims":[{"name":"a"},{"name":"b","request":"y"},{"name":"c"}]})"
                : base;
            BOOST_TEST(json::serialize(containers[1].at("resources")) == json::serialize(json::parse(want)));
            // Only the first "node" container; the PodSet shows the same merged resources.
            BOOST_TEST(json::serialize(containers[2].at("resources")) == R"({"requests":{"cpu":"1"}})");
            auto const& ps = podSet(info, c.jobName);
            BOOST_TEST(ps.at("containers").as_array()[1].at("resources") == containers[1].at("resources"));
            BOOST_TEST(json::serialize(ps.at("singlePodRequests")) ==
                       (c.merged ? R"({"cpu":"6","memory":"4Gi","nvidia.com/gpu":"1"})" : R"({"cpu":"4","memory":"4Gi"})"));
        }
    }
}

BOOST_AUTO_TEST_CASE(pod_requests_rules) {
    struct Case {
        std::string name;
        std::string podSpec;
        std::string requests;
    };
    const std::vector<Case> cases = {
        {"empty pod", R"({})", R"({})"},
        {"containers summed", R"({"containers":[{"resources":{"requests":{"cpu":"1","memory":"1Gi"}}},{"resources":{"requests":{"cpu":"500m"}}}]})",
         R"({"cpu":"1500m","memory":"1Gi"})"},
        {"limits are not a fallback", R"({"containers":[{"resources":{"limits":{"cpu":"4"}}},{"resources":{"requests":{"cpu":"1"}}}]})",
         R"({"cpu":"1"})"},
        {"init container max wins", R"({"containers":[{"resources":{"requests":{"cpu":"1"}}}],"initContainers":[{"resources":{"requests":{"cpu":"3","memory":"1Gi"}}},{"resources":{"requests":{"cpu":"2"}}}]})",
         R"({"cpu":"3","memory":"1Gi"})"},
        {"init container below the sum", R"({"containers":[{"resources":{"requests":{"cpu":"2"}}}],"initContainers":[{"resources":{"requests":{"cpu":"1"}}}]})",
         R"({"cpu":"2"})"},
        {"sidecar adds to the sum", R"({"containers":[{"resources":{"requests":{"cpu":"1"}}}],"initContainers":[{"restartPolicy":"Always","resources":{"requests":{"cpu":"500m"}}}]})",
         R"({"cpu":"1500m"})"},
        {"init after a sidecar includes the sidecar", R"({"containers":[{"resources":{"requests":{"cpu":"1"}}}],"initContainers":[{"restartPolicy":"Always","resources":{"requests":{"cpu":"500m"}}},{"resources":{"requests":{"cpu":"3"}}}]})",
         R"({"cpu":"3500m"})"},
        {"init before a sidecar does not", R"({"containers":[{"resources":{"requests":{"cpu":"1"}}}],"initContainers":[{"resources":{"requests":{"cpu":"3"}}},{"restartPolicy":"Always","resources":{"requests":{"cpu":"500m"}}}]})",
         R"({"cpu":"3"})"},
        {"overhead added", R"({"containers":[{"resources":{"requests":{"cpu":"1","memory":"1Gi"}}}],"overhead":{"cpu":"250m","memory":"120Mi"}})",
         R"({"cpu":"1250m","memory":"1144Mi"})"},
        {"pod-level requests override cpu/memory/hugepages only",
         R"({"resources":{"requests":{"cpu":"8","hugepages-2Mi":"4Mi","nvidia.com/gpu":"4"}},"containers":[{"resources":{"requests":{"cpu":"1","memory":"1Gi","nvidia.com/gpu":"1"}}}]})",
         R"({"cpu":"8","memory":"1Gi","nvidia.com/gpu":"1","hugepages-2Mi":"4Mi"})"},
        {"pod-level then overhead", R"({"resources":{"requests":{"cpu":"2"}},"containers":[{"resources":{"requests":{"cpu":"1"}}}],"overhead":{"cpu":"1"}})",
         R"({"cpu":"3"})"},
        {"numbers accepted", R"({"containers":[{"resources":{"requests":{"cpu":2}}}]})", R"({"cpu":"2"})"},
    };
    for (auto const& c : cases) {
        BOOST_TEST_CONTEXT(c.name) {
            Diagnostics diag;
            auto r = podRequests(obj(c.podSpec), diag, "spec");
            BOOST_TEST(diag.ok());
            BOOST_TEST(json::serialize(r) == json::serialize(json::parse(c.requests)));
        }
    }
    Diagnostics diag;
    auto r = podRequests(obj(R"({"containers":[{"resources":{"requests":{"cpu":"lots","memory":"1Gi"}}}]})"), diag, "spec");
    BOOST_TEST_REQUIRE(diag.errors.size() == 1u);
    BOOST_TEST(diag.errors[0].path == "spec.containers[0].resources.requests[cpu]");
    BOOST_TEST(json::serialize(r) == R"({"memory":"1Gi"})");
}

BOOST_AUTO_TEST_CASE(runtime_lookup_not_found_texts) {
    struct Case {
        std::string name;
        std::string runtimeRef;
        std::string error;  // empty: found
    };
    const std::vector<Case> cases = {
        {"namespaced found", R"({"name":"rt","kind":"TrainingRuntime","apiGroup":"trainer.kubeflow.org"})", ""},
        {"cluster found (kind defaulted)", R"({"name":"crt"})", ""},
        {"null group and kind mean the defaults", R"({"name":"crt","kind":null,"apiGroup":null})", ""},
        {"namespaced in another namespace", R"({"name":"other-ns-rt","kind":"TrainingRuntime"})",
         R"(TrainingRuntime specified in TrainJob is not found: trainingruntimes.trainer.kubeflow.org "other-ns-rt" not found)"},
        {"namespaced missing", R"({"name":"nope","kind":"TrainingRuntime"})",
         R"(TrainingRuntime specified in TrainJob is not found: trainingruntimes.trainer.kubeflow.org "nope" not found)"},
        {"cluster missing", R"({"name":"nope","kind":"ClusterTrainingRuntime"})",
         R"(not found ClusterTrainingRuntime specified in TrainJob: clustertrainingruntimes.trainer.kubeflow.org "nope" not found)"},
        {"namespaced name is not a cluster runtime", R"({"name":"rt","kind":"ClusterTrainingRuntime"})",
         R"(not found ClusterTrainingRuntime specified in TrainJob: clustertrainingruntimes.trainer.kubeflow.org "rt" not found)"},
        {"unsupported kind", R"({"name":"rt","kind":"Runtime","apiGroup":"example.com"})", "unsupported runtime: Runtime.example.com"},
        {"empty group", R"({"name":"rt","kind":"TrainingRuntime","apiGroup":""})", "unsupported runtime: TrainingRuntime"},
        {"missing name", R"({"kind":"TrainingRuntime"})", "Required value"},
    };
    ObjectSet cluster;
    cluster.put(obj(R"({"apiVersion":"trainer.kubeflow.org/v1alpha1","kind":"TrainingRuntime","metadata":{"name":"rt","namespace":"default"},"spec":{}})"));
    cluster.put(obj(R"({"apiVersion":"trainer.kubeflow.org/v1alpha1","kind":"TrainingRuntime","metadata":{"name":"other-ns-rt","namespace":"other"},"spec":{}})"));
    cluster.put(obj(R"({"apiVersion":"trainer.kubeflow.org/v1alpha1","kind":"ClusterTrainingRuntime","metadata":{"name":"crt"},"spec":{}})"));
    for (auto const& c : cases) {
        BOOST_TEST_CONTEXT(c.name) {
            json::object job{{"metadata", json::object{{"name", "j"}, {"namespace", "default"}}},
                             {"spec", json::object{{"runtimeRef", json::parse(c.runtimeRef)}}}};
            Diagnostics diag;
            auto rt = resolveRuntime(job, cluster, diag, true);
            if (c.error.empty()) {
                BOOST_TEST(rt != nullptr);
                BOOST_TEST(diag.ok());
            } else {
                BOOST_TEST(rt == nullptr);
                BOOST_TEST_REQUIRE(diag.errors.size() == 1u);
                BOOST_TEST(diag.errors[0].message == c.error);
            }
        }
    }
    BOOST_TEST(runtimeRegistryKey(obj(R"({"spec":{"runtimeRef":{"name":"x"}}})")) == "ClusterTrainingRuntime.trainer.kubeflow.org");
}

BOOST_AUTO_TEST_CASE(runtime_snapshot_round_trip) {
    auto job = obj(kTorchJob);
    auto runtime = obj(kTorchRuntime);
    // Strings that look like other types must survive the YAML round trip.
    runtime["metadata"].as_object()["labels"] = json::object{{"v", "1"}, {"b", "true"}, {"e", ""}, {"n", "null"}, {"s", "a: b"}};
    runtime["spec"].as_object()["extra"] = json::parse(R"({"i":3,"d":2.5,"t":true,"z":null,"empty":{},"list":[],"ml":"a\nb"})");
    auto cm = runtimeSnapshot(job, runtime);
    BOOST_TEST(cm.at("apiVersion") == "v1");
    BOOST_TEST(cm.at("kind") == "ConfigMap");
    BOOST_TEST(json::serialize(cm.at("metadata")) ==
               R"({"name":"test-job-runtime-snapshot","namespace":"default","ownerReferences":[{"apiVersion":"trainer.kubeflow.org/v1alpha1","kind":"TrainJob","name":"test-job","uid":"uid","controller":true,"blockOwnerDeletion":true}]})");
    BOOST_TEST_REQUIRE(cm.at("data").at("runtime").is_string());

    // The snapshot wins over a changed live runtime, and survives its deletion.
    ObjectSet cluster;
    cluster.put(cm);
    Diagnostics diag;
    auto got = resolveRuntime(job, cluster, diag, true);
    BOOST_TEST_REQUIRE(diag.ok());
    BOOST_TEST_REQUIRE(got != nullptr);
    BOOST_TEST(json::serialize(*got) == json::serialize(runtime));
    // useSnapshot=false reads the live runtime (missing here).
    Diagnostics live;
    BOOST_TEST(resolveRuntime(job, cluster, live, false) == nullptr);
    BOOST_TEST(live.errors.size() == 1u);
}

// The snapshot's YAML is remembered per runtime: a runtime with the same members in another
// order, or one changed since, gets its own text, never the remembered one.
BOOST_AUTO_TEST_CASE(runtime_snapshot_yaml_is_each_runtimes_own) {
    auto job = obj(kTorchJob);
    auto runtime = obj(kTorchRuntime);
    json::object reordered;
    for (auto it = runtime.end(); it != runtime.begin();) {
        --it;
        reordered[it->key()] = it->value();
    }
    BOOST_TEST_REQUIRE(runtime == reordered);  // Boost.JSON's equality ignores the order
    auto changed = runtime;
    changed["metadata"].as_object()["labels"] = json::object{{"changed", "yes"}};
    for (int round = 0; round < 2; ++round)  // the second round answers from what is remembered
        for (auto const* rt : {&runtime, &reordered, &changed})
            BOOST_TEST(runtimeSnapshot(job, *rt).at("data").at("runtime").as_string() == toYaml(*rt));
    // More runtimes than are remembered: each still gets its own.
    for (int i = 0; i < 10; ++i) {
        auto other = runtime;
        other["metadata"].as_object()["name"] = "rt-" + std::to_string(i % 6);
        BOOST_TEST(runtimeSnapshot(job, other).at("data").at("runtime").as_string() == toYaml(other));
    }
}

BOOST_AUTO_TEST_CASE(runtime_snapshot_errors) {
    auto job = obj(kTorchJob);
    auto runtime = obj(kTorchRuntime);
    struct Case {
        std::string name;
        std::function<void(json::object&)> mutate;
        std::string error;
    };
    const std::vector<Case> cases = {
        {"owned by another object", [](json::object& cm) { cm["metadata"].as_object()["ownerReferences"].as_array()[0].as_object()["uid"] = "other"; },
         "invalid runtime snapshot: a snapshot configmap exists but is owned by another object"},
        {"no controller reference", [](json::object& cm) { cm["metadata"].as_object().erase("ownerReferences"); },
         "invalid runtime snapshot: a snapshot configmap exists but is owned by another object"},
        {"missing data key", [](json::object& cm) { cm["data"] = json::object{{"other", "x"}}; },
         "invalid runtime snapshot: snapshot ConfigMap missing \"runtime\" data key"},
        {"missing data", [](json::object& cm) { cm.erase("data"); },
         "invalid runtime snapshot: snapshot ConfigMap missing \"runtime\" data key"},
        {"wrong name", [](json::object& cm) { cm["data"].as_object()["runtime"] = "apiVersion: trainer.kubeflow.org/v1alpha1\nkind: TrainingRuntime\nmetadata:\n  name: other-runtime\n"; },
         R"(invalid runtime snapshot: the snapshot refers to the wrong runtime: expecting a runtime with name, api group and kind of "torch", "trainer.kubeflow.org", "TrainingRuntime" but found runtime with name, api group and kind of "other-runtime", "trainer.kubeflow.org", "TrainingRuntime")"},
        {"wrong kind", [](json::object& cm) { cm["data"].as_object()["runtime"] = "apiVersion: trainer.kubeflow.org/v1alpha1\nkind: ClusterTrainingRuntime\nmetadata:\n  name: torch\n"; },
         R"(invalid runtime snapshot: the snapshot refers to the wrong runtime: expecting a runtime with name, api group and kind of "torch", "trainer.kubeflow.org", "TrainingRuntime" but found runtime with name, api group and kind of "torch", "trainer.kubeflow.org", "ClusterTrainingRuntime")"},
        {"not YAML", [](json::object& cm) { cm["data"].as_object()["runtime"] = "a: [b"; }, "invalid runtime snapshot: unable to unmarshal the snapshot: "},
        {"not a mapping", [](json::object& cm) { cm["data"].as_object()["runtime"] = "- a"; }, "invalid runtime snapshot: unable to unmarshal the snapshot: "},
    };
    for (auto const& c : cases) {
        BOOST_TEST_CONTEXT(c.name) {
            auto cm = runtimeSnapshot(job, runtime);
            c.mutate(cm);
            ObjectSet cluster;
            cluster.put(cm);
            cluster.put(runtime);
            Diagnostics diag;
            BOOST_TEST(resolveRuntime(job, cluster, diag, true) == nullptr);
            BOOST_TEST_REQUIRE(diag.errors.size() == 1u);
            BOOST_TEST(diag.errors[0].message.starts_with(c.error), diag.errors[0].message);
            // Without the snapshot the live runtime is used.
            Diagnostics live;
            BOOST_TEST(resolveRuntime(job, cluster, live, false) != nullptr);
        }
    }
}

BOOST_AUTO_TEST_CASE(bad_input_reports_field_paths) {
    struct Case {
        std::string name;
        std::string runtimeSpec;
        std::string trainJobSpec;
        std::string path;  // path of the first error
    };
    const std::vector<Case> cases = {
        {"spec not an object", R"("x")", R"({})", "spec"},
        {"template missing", R"({})", R"({})", "spec.template"},
        {"replicatedJobs not a list", R"({"template":{"spec":{"replicatedJobs":{}}}})", R"({})", "spec.template.spec.replicatedJobs"},
        {"replicated job not an object", R"({"template":{"spec":{"replicatedJobs":[1]}}})", R"({})", "spec.template.spec.replicatedJobs[0]"},
        {"pod spec missing", R"({"template":{"spec":{"replicatedJobs":[{"name":"a"}]}}})", R"({})",
         "spec.template.spec.replicatedJobs[0].template.spec.template.spec"},
        {"containers not a list", R"({"template":{"spec":{"replicatedJobs":[{"name":"a","template":{"spec":{"template":{"spec":{"containers":"x"}}}}}]}}})", R"({})",
         "spec.template.spec.replicatedJobs[0].template.spec.template.spec.containers"},
        {"parallelism not an integer", R"({"template":{"spec":{"replicatedJobs":[{"name":"a","template":{"spec":{"parallelism":"2","template":{"spec":{}}}}}]}}})", R"({})",
         "spec.template.spec.replicatedJobs[0].template.spec.parallelism"},
        {"label value not a string", R"({"template":{"metadata":{"labels":{"a":1}},"spec":{}}})", R"({})", "spec.template.metadata.labels[a]"},
        {"env not a list", R"({"template":{"spec":{"replicatedJobs":[{"name":"a","template":{"spec":{"template":{"spec":{"containers":[{"name":"c","env":{}}]}}}}}]}}})", R"({})",
         "spec.template.spec.replicatedJobs[0].template.spec.template.spec.containers[0].env"},
        {"bad quantity", R"({"template":{"spec":{"replicatedJobs":[{"name":"a","template":{"spec":{"template":{"spec":{"containers":[{"name":"c","resources":{"requests":{"cpu":"x"}}}]}}}}}]}}})", R"({})",
         "spec.template.spec.replicatedJobs[0].template.spec.template.spec.containers[0].resources.requests[cpu]"},
        {"runtimePatches not a list", R"({"template":{"spec":{}}})", R"({"runtimePatches":{}})", "spec.runtimePatches"},
        {"patch spec not an object", R"({"template":{"spec":{}}})", R"({"runtimePatches":[{"manager":"a.io/b","trainingRuntimeSpec":{"template":{"spec":[]}}}]})",
         "spec.runtimePatches[0].trainingRuntimeSpec.template.spec"},
        {"trainer not an object", R"({"template":{"spec":{}}})", R"({"trainer":"x"})", "spec.trainer"},
        {"resourcesPerNode bad quantity", R"({"template":{"spec":{}}})", R"({"trainer":{"resourcesPerNode":{"requests":{"cpu":"1x"}}}})",
         "spec.trainer.resourcesPerNode.requests[cpu]"},
        // Each step of a path the builder spells only for its message (core/api/lazy_field_path.hpp).
        {"second job's init container quantity", R"({"template":{"spec":{"replicatedJobs":[{"name":"a","template":{"spec":{"template":{"spec":{}}}}},{"name":"b","template":{"spec":{"template":{"spec":{"initContainers":[{"name":"i0"},{"name":"i1","resources":{"requests":{"memory":"lots"}}}]}}}}}]}}})", R"({})",
         "spec.template.spec.replicatedJobs[1].template.spec.template.spec.initContainers[1].resources.requests[memory]"},
        {"image not a string", R"({"template":{"spec":{"replicatedJobs":[{"name":"a","template":{"spec":{"template":{"spec":{"containers":[{"name":"c"},{"name":"d","image":1}]}}}}}]}}})", R"({})",
         "spec.template.spec.replicatedJobs[0].template.spec.template.spec.containers[1].image"},
        {"args not a list", R"({"template":{"spec":{"replicatedJobs":[{"name":"a","template":{"spec":{"template":{"spec":{"containers":[{"name":"c","args":"x"}]}}}}}]}}})", R"({})",
         "spec.template.spec.replicatedJobs[0].template.spec.template.spec.containers[0].args"},
        {"volumeMounts not a list", R"({"template":{"spec":{"replicatedJobs":[{"name":"a","template":{"spec":{"template":{"spec":{"containers":[{"name":"c","volumeMounts":{}}]}}}}}]}}})", R"({})",
         "spec.template.spec.replicatedJobs[0].template.spec.template.spec.containers[0].volumeMounts"},
        {"volumes not a list", R"({"template":{"spec":{"replicatedJobs":[{"name":"a","template":{"spec":{"template":{"spec":{"volumes":1}}}}}]}}})", R"({})",
         "spec.template.spec.replicatedJobs[0].template.spec.template.spec.volumes"},
        {"pod-level request quantity", R"({"template":{"spec":{"replicatedJobs":[{"name":"a","template":{"spec":{"template":{"spec":{"resources":{"requests":{"cpu":"?"}}}}}}}]}}})", R"({})",
         "spec.template.spec.replicatedJobs[0].template.spec.template.spec.resources.requests[cpu]"},
        {"overhead quantity", R"({"template":{"spec":{"replicatedJobs":[{"name":"a","template":{"spec":{"template":{"spec":{"overhead":{"cpu":"?"}}}}}}]}}})", R"({})",
         "spec.template.spec.replicatedJobs[0].template.spec.template.spec.overhead[cpu]"},
        {"job name missing", R"({"template":{"spec":{"replicatedJobs":[{"name":"a","template":{"spec":{"template":{"spec":{}}}}},{"template":{"spec":{"template":{"spec":{}}}}}]}}})", R"({})",
         "spec.template.spec.replicatedJobs[1].name"},
        {"patch runtime spec not an object", R"({"template":{"spec":{}}})", R"({"runtimePatches":[{"manager":"a.io/b"},{"manager":"c.io/d","trainingRuntimeSpec":[]}]})",
         "spec.runtimePatches[1].trainingRuntimeSpec"},
        {"patch label not a string", R"({"template":{"spec":{}}})", R"({"runtimePatches":[{"manager":"a.io/b","trainingRuntimeSpec":{"template":{"metadata":{"labels":{"x":true}}}}}]})",
         "spec.runtimePatches[0].trainingRuntimeSpec.template.metadata.labels[x]"},
        {"resourcesPerNode limit quantity", R"({"template":{"spec":{}}})", R"({"trainer":{"resourcesPerNode":{"limits":{"cpu":"-"}}}})",
         "spec.trainer.resourcesPerNode.limits[cpu]"},
        {"numNodes not an integer", R"({"mlPolicy":{"numNodes":"3"},"template":{"spec":{"replicatedJobs":[{"name":"a","template":{"metadata":{"labels":{"trainer.kubeflow.org/trainjob-ancestor-step":"trainer"}},"spec":{"template":{"spec":{}}}}}]}}})", R"({})",
         "spec.mlPolicy.numNodes"},
    };
    for (auto const& c : cases) {
        BOOST_TEST_CONTEXT(c.name) {
            json::object runtime{{"kind", "TrainingRuntime"}, {"metadata", json::object{{"name", "r"}, {"namespace", "default"}}},
                                 {"spec", json::parse(c.runtimeSpec)}};
            json::object job{{"metadata", json::object{{"name", "j"}}}, {"spec", json::parse(c.trainJobSpec)}};
            Diagnostics diag;
            auto info = buildInfo(job, runtime, diag);
            BOOST_TEST_REQUIRE(!diag.ok());
            BOOST_TEST(diag.errors[0].path == c.path);
            BOOST_TEST(info.at("infoVersion") == 1);  // still a well-formed document
        }
    }
}
