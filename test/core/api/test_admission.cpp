#include <boost/test/unit_test.hpp>

#include "core/api/admission.hpp"
#include "helpers.hpp"

using namespace trainer::core;
using namespace trainer::core::testing;

namespace {

const std::string kUrl = "https://trainer.kubeflow.org/en/latest/operator-guides/runtime.html#runtime-deprecation-policy";

json::object makeRuntime(const std::string& kind, const std::string& name, int replicas, const std::string& container,
                         const std::string& ancestor = "trainer") {
    auto o = parseYamlObject(R"(
apiVersion: trainer.kubeflow.org/v1alpha1
kind: )" + kind + R"(
metadata:
  name: )" + name + R"(
spec:
  mlPolicy:
    torch: {}
  template:
    spec:
      replicatedJobs:
      - name: other
        replicas: 3
        template:
          spec:
            template:
              spec:
                containers:
                - name: side
                  image: img
      - name: main
        replicas: )" + std::to_string(replicas) + R"(
        template:
          metadata:
            labels:
              trainer.kubeflow.org/trainjob-ancestor-step: )" + ancestor + R"(
          spec:
            template:
              spec:
                containers:
                - name: )" + container + R"(
                  image: img
)");
    if (kind == "TrainingRuntime") setPath(o, "metadata.namespace", "default");
    applyDefaults(o);
    return o;
}

json::object makeTrainJob(const std::string& kind, const std::string& name, const std::string& group = "trainer.kubeflow.org") {
    auto o = parseYamlObject(R"(
apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata: {name: job, namespace: default}
spec:
  runtimeRef: {name: )" + name + ", kind: " + kind + R"(}
)");
    setPath(o, "spec.runtimeRef.apiGroup", json::value(json::string(group)));
    applyDefaults(o);
    return o;
}

}  // namespace

BOOST_AUTO_TEST_CASE(kind_of_requires_the_trainer_api_version) {
    struct Case {
        std::string apiVersion, kind;
        ObjectKind expected;
    };
    const std::vector<Case> cases = {
        {"trainer.kubeflow.org/v1alpha1", "TrainJob", ObjectKind::TrainJob},
        {"trainer.kubeflow.org/v1alpha1", "TrainingRuntime", ObjectKind::TrainingRuntime},
        {"trainer.kubeflow.org/v1alpha1", "ClusterTrainingRuntime", ObjectKind::ClusterTrainingRuntime},
        {"trainer.kubeflow.org/v1", "TrainJob", ObjectKind::Other},
        {"kubeflow.org/v1", "PyTorchJob", ObjectKind::Other},
        {"v1", "ConfigMap", ObjectKind::Other},
    };
    for (auto const& c : cases) BOOST_TEST((kindOf(json::object{{"apiVersion", c.apiVersion}, {"kind", c.kind}}) == c.expected));
    BOOST_TEST((kindOf(json::object{}) == ObjectKind::Other));
}

BOOST_AUTO_TEST_CASE(runtime_webhook_rules) {
    struct Case {
        std::string name;
        json::object runtime;
        bool isCreate;
        std::vector<std::pair<std::string, std::string>> errors;  // path, message
        std::string warning;
    };
    auto disabled = makeRuntime("TrainingRuntime", "rt", 2, "node");
    setPath(disabled, "metadata.labels.trainer\\.kubeflow\\.org/webhook-validation", nullptr);
    disabled.at("metadata").as_object()["labels"] = json::object{{"trainer.kubeflow.org/webhook-validation", "disabled"}};
    auto deprecated = makeRuntime("ClusterTrainingRuntime", "old-rt", 1, "node");
    deprecated.at("metadata").as_object()["labels"] = json::object{{"trainer.kubeflow.org/support", "deprecated"}};
    const std::string jobPath = "spec.template.spec.replicatedJobs[1]";
    const std::vector<Case> cases = {
        {"valid TrainingRuntime", makeRuntime("TrainingRuntime", "rt", 1, "node"), true, {}, ""},
        {"replicas 2 on the trainer", makeRuntime("TrainingRuntime", "rt", 2, "node"), true, {{jobPath + ".replicas", "always must be 1"}}, ""},
        {"missing node container", makeRuntime("TrainingRuntime", "rt", 1, "worker"), true,
         {{jobPath + ".template.spec.template.spec.containers", "must contain the required container for the ancestor: trainer"}}, ""},
        {"dataset initializer container", makeRuntime("TrainingRuntime", "rt", 1, "node", "dataset-initializer"), true,
         {{jobPath + ".template.spec.template.spec.containers", "must contain the required container for the ancestor: dataset-initializer"}}, ""},
        {"model initializer ok", makeRuntime("TrainingRuntime", "rt", 1, "model-initializer", "model-initializer"), true, {}, ""},
        {"unknown ancestor value is ignored", makeRuntime("TrainingRuntime", "rt", 5, "x", "evaluator"), true, {}, ""},
        {"TrainingRuntime UPDATE is always allowed", makeRuntime("TrainingRuntime", "rt", 2, "worker"), false, {}, ""},
        {"ClusterTrainingRuntime CREATE", makeRuntime("ClusterTrainingRuntime", "ctr", 2, "node"), true, {{jobPath + ".replicas", "always must be 1"}}, ""},
        {"ClusterTrainingRuntime UPDATE", makeRuntime("ClusterTrainingRuntime", "ctr", 2, "node"), false, {{jobPath + ".replicas", "always must be 1"}}, ""},
        {"webhook disabled", disabled, true, {}, ""},
        {"deprecated CREATE warns", deprecated, true, {},
         "ClusterTrainingRuntime \"old-rt\" is deprecated and will be removed in a future release of Kubeflow Trainer. See runtime deprecation policy: " + kUrl},
        {"deprecated UPDATE does not warn", deprecated, false, {}, ""},
    };
    for (auto const& c : cases) {
        BOOST_TEST_CONTEXT(c.name) {
            auto d = validateRuntime(c.runtime, c.isCreate, c.isCreate ? nullptr : &c.runtime);
            BOOST_TEST(d.errors.size() == c.errors.size(), describe(d));
            for (auto const& [path, message] : c.errors) {
                BOOST_TEST(hasError(d, path, message), describe(d));
                for (auto const& e : d.errors)
                    if (e.path == path) BOOST_TEST(e.message == message);
            }
            if (c.warning.empty()) BOOST_TEST(d.warnings.empty());
            else {
                BOOST_REQUIRE_EQUAL(d.warnings.size(), 1u);
                BOOST_TEST(d.warnings[0].message == c.warning);
            }
        }
    }
    // The disabled label skips the webhook, not the CRD schema.
    auto bad = disabled;
    setPath(bad, "spec.mlPolicy.mpi", json::object{});
    auto d = validateRuntime(bad, true, nullptr);
    BOOST_TEST(hasError(d, "spec.mlPolicy", "Only one of the policy can be configured"), describe(d));
    BOOST_TEST(d.errors.size() == 1u);
}

BOOST_AUTO_TEST_CASE(trainjob_runtime_reference) {
    ObjectSet cluster;
    cluster.put(makeRuntime("TrainingRuntime", "ns-rt", 1, "node"));
    cluster.put(makeRuntime("ClusterTrainingRuntime", "torch", 1, "node"));
    auto dep = makeRuntime("ClusterTrainingRuntime", "old", 1, "node");
    dep.at("metadata").as_object()["labels"] = json::object{{"trainer.kubeflow.org/support", "deprecated"}};
    cluster.put(dep);
    struct Case {
        std::string name;
        json::object trainJob;
        std::string path, error, warning;
    };
    const std::vector<Case> cases = {
        {"namespaced runtime found", makeTrainJob("TrainingRuntime", "ns-rt"), "", "", ""},
        {"cluster runtime found", makeTrainJob("ClusterTrainingRuntime", "torch"), "", "", ""},
        {"unknown kind", makeTrainJob("Foo", "x"), "spec.runtimeRef", "unsupported runtime: Foo.trainer.kubeflow.org", ""},
        {"other group", makeTrainJob("TrainingRuntime", "x", "example.com"), "spec.runtimeRef",
         "unsupported runtime: TrainingRuntime.example.com", ""},
        {"empty group", makeTrainJob("ClusterTrainingRuntime", "x", ""), "spec.runtimeRef", "unsupported runtime: ClusterTrainingRuntime", ""},
        {"missing TrainingRuntime", makeTrainJob("TrainingRuntime", "nope"), "spec.runtimeRef",
         "trainingruntimes.trainer.kubeflow.org \"nope\" not found: specified trainingRuntime must be created before the TrainJob is created", ""},
        {"TrainingRuntime in another namespace", makeTrainJob("TrainingRuntime", "torch"), "spec.runtimeRef",
         "trainingruntimes.trainer.kubeflow.org \"torch\" not found: specified trainingRuntime must be created before the TrainJob is created", ""},
        {"missing ClusterTrainingRuntime", makeTrainJob("ClusterTrainingRuntime", "nope"), "spec.RuntimeRef",
         "clustertrainingruntimes.trainer.kubeflow.org \"nope\" not found: specified clusterTrainingRuntime must be created before the TrainJob is created", ""},
        {"deprecated", makeTrainJob("ClusterTrainingRuntime", "old"), "", "",
         "Referenced ClusterTrainingRuntime \"old\" is deprecated and will be removed in a future release of Kubeflow Trainer. See runtime deprecation policy: " + kUrl},
    };
    for (auto const& c : cases) {
        BOOST_TEST_CONTEXT(c.name) {
            auto d = validateTrainJobRef(c.trainJob, cluster);
            if (c.error.empty()) BOOST_TEST(d.ok(), describe(d));
            else {
                BOOST_REQUIRE_EQUAL(d.errors.size(), 1u);
                BOOST_TEST(d.errors[0].path == c.path);
                BOOST_TEST(d.errors[0].message == c.error);
                BOOST_TEST((d.errors[0].type == ErrorType::Invalid));
            }
            if (c.warning.empty()) BOOST_TEST(d.warnings.empty());
            else {
                BOOST_REQUIRE_EQUAL(d.warnings.size(), 1u);
                BOOST_TEST(d.warnings[0].message == c.warning);
            }
        }
    }
}

BOOST_AUTO_TEST_CASE(registry_key) {
    BOOST_TEST(registryKey(makeTrainJob("ClusterTrainingRuntime", "x")) == "ClusterTrainingRuntime.trainer.kubeflow.org");
    BOOST_TEST(registryKey(makeTrainJob("TrainingRuntime", "x")) == "TrainingRuntime.trainer.kubeflow.org");
    BOOST_TEST(registryKey(makeTrainJob("TrainingRuntime", "x", "")) == "TrainingRuntime");
    // Before defaulting: the CRD defaults.
    BOOST_TEST(registryKey(json::object{{"spec", json::object{{"runtimeRef", json::object{{"name", "x"}}}}}}) ==
               "ClusterTrainingRuntime.trainer.kubeflow.org");
}

BOOST_AUTO_TEST_CASE(runtime_patch_times) {
    const std::string t0 = "2026-01-01T00:00:00Z", now = "2026-02-02T02:02:02Z";
    auto patch = [](const std::string& manager, const std::string& sa, const std::string& time = "") {
        json::object p{{"manager", manager},
                       {"trainingRuntimeSpec", json::object{{"template", json::object{{"metadata", json::object{{"labels", json::object{{"sa", sa}}}}}}}}}};
        if (!time.empty()) p["time"] = time;
        return json::value(p);
    };
    auto job = [](json::array patches) {
        json::object o{{"apiVersion", "trainer.kubeflow.org/v1alpha1"}, {"kind", "TrainJob"}};
        setPath(o, "spec.runtimePatches", patches);
        return o;
    };
    auto timeOf = [](const json::object& tj, std::size_t i) {
        auto const& p = tj.at("spec").at("runtimePatches").at(i).as_object();
        return p.contains("time") ? std::string(p.at("time").as_string()) : std::string("<none>");
    };
    // CREATE: every patch without time gets now; a given time is kept.
    auto created = job({patch("a.io/x", "1"), patch("b.io/y", "1", t0)});
    stampRuntimePatchTimes(created, nullptr, now);
    BOOST_TEST(timeOf(created, 0) == now);
    BOOST_TEST(timeOf(created, 1) == t0);
    // UPDATE: unchanged keeps the old time, changed gets now, new without time gets now.
    auto old = job({patch("a.io/x", "1", t0), patch("b.io/y", "1", t0)});
    auto updated = job({patch("a.io/x", "1"), patch("b.io/y", "2", t0), patch("c.io/z", "1")});
    stampRuntimePatchTimes(updated, &old, now);
    BOOST_TEST(timeOf(updated, 0) == t0);
    BOOST_TEST(timeOf(updated, 1) == now);
    BOOST_TEST(timeOf(updated, 2) == now);
    // No patches, bad shapes: untouched, no crash.
    json::object none{{"spec", json::object{{"runtimePatches", 3}}}};
    BOOST_CHECK_NO_THROW(stampRuntimePatchTimes(none, &none, now));
    BOOST_TEST(none.at("spec").at("runtimePatches").as_int64() == 3);
}

BOOST_AUTO_TEST_CASE(resource_names) {
    struct Case {
        std::string name, kind, apiVersion;
        bool namespaced;
    };
    const std::vector<Case> cases = {
        {"trainjobs", "TrainJob", "trainer.kubeflow.org/v1alpha1", true},
        {"trainjob", "TrainJob", "trainer.kubeflow.org/v1alpha1", true},
        {"TrainJob", "TrainJob", "trainer.kubeflow.org/v1alpha1", true},
        {"tj", "TrainJob", "trainer.kubeflow.org/v1alpha1", true},
        {"trainjobs.trainer.kubeflow.org", "TrainJob", "trainer.kubeflow.org/v1alpha1", true},
        {"trainingruntimes", "TrainingRuntime", "trainer.kubeflow.org/v1alpha1", true},
        {"ClusterTrainingRuntime", "ClusterTrainingRuntime", "trainer.kubeflow.org/v1alpha1", false},
        {"clustertrainingruntimes", "ClusterTrainingRuntime", "trainer.kubeflow.org/v1alpha1", false},
        {"cm", "ConfigMap", "v1", true},
        {"configmaps", "ConfigMap", "v1", true},
        {"secret", "Secret", "v1", true},
        {"ev", "Event", "v1", true},
        {"leases", "Lease", "coordination.k8s.io/v1", true},
        {"priorityclasses", "PriorityClass", "scheduling.k8s.io/v1", false},
        {"limitranges", "LimitRange", "v1", true},
        {"runtimeclasses", "RuntimeClass", "node.k8s.io/v1", false},
    };
    for (auto const& c : cases) {
        BOOST_TEST_CONTEXT(c.name) {
            auto r = resourceByName(c.name);
            BOOST_REQUIRE(r.has_value());
            BOOST_TEST(r->kind == c.kind);
            BOOST_TEST(r->apiVersion == c.apiVersion);
            BOOST_TEST(r->namespaced == c.namespaced);
        }
    }
    BOOST_TEST(!resourceByName("pods").has_value());
    BOOST_TEST(!resourceByName("").has_value());
    BOOST_TEST(suggestResourceName("trainjbo") == "trainjob");
    BOOST_TEST(suggestResourceName("configmap2") == "configmap");
    BOOST_TEST(suggestResourceName("TrainJobz") == "TrainJob");
    BOOST_TEST(suggestResourceName("zzzzzzzzzzzz") == "");
}
