#define BOOST_TEST_MODULE test_api
#include <boost/test/unit_test.hpp>

#include "core/api/schema.hpp"
#include "helpers.hpp"

#include <algorithm>
#include <filesystem>
#include <tuple>

using namespace trainer::core;
using namespace trainer::core::testing;

namespace {

const char* kTrainJob = R"(
apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata:
  name: job
  namespace: default
spec:
  runtimeRef:
    name: torch-distributed
  trainer:
    numNodes: 2
    image: img
    env:
    - name: A
      value: "1"
    resourcesPerNode:
      requests:
        cpu: "2"
        memory: 4Gi
)";

const char* kRuntime = R"(
apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainingRuntime
metadata:
  name: rt
  namespace: default
spec:
  mlPolicy:
    numNodes: 1
    torch: {}
  template:
    spec:
      replicatedJobs:
      - name: node
        template:
          metadata:
            labels:
              trainer.kubeflow.org/trainjob-ancestor-step: trainer
          spec:
            template:
              spec:
                containers:
                - name: node
                  image: img
)";

json::object trainJob() {
    auto o = parseYamlObject(kTrainJob);
    applyDefaults(o);
    return o;
}
json::object runtime() {
    auto o = parseYamlObject(kRuntime);
    applyDefaults(o);
    return o;
}

}  // namespace

BOOST_AUTO_TEST_CASE(every_cel_rule_in_the_schemas_is_implemented) {
    auto rules = celRulesInSchemas();
    // Not a count of today's rules (that restates the data): the schemas' rules were found (the
    // immutability rule is among them), and each has a predicate.
    BOOST_TEST_REQUIRE(!rules.empty());
    BOOST_TEST((std::find(rules.begin(), rules.end(), "self == oldSelf") != rules.end()));
    for (auto const& r : rules) BOOST_TEST(celRuleImplemented(r), "no C++ predicate for CEL rule: " << r);
    BOOST_TEST(!celRuleImplemented("self.size() > 1000"));
}

BOOST_AUTO_TEST_CASE(schemas_are_embedded) {
    for (auto k : {ObjectKind::TrainJob, ObjectKind::TrainingRuntime, ObjectKind::ClusterTrainingRuntime}) {
        auto s = crdSchema(k);
        BOOST_REQUIRE(s);
        BOOST_TEST(s->contains("properties"));
    }
    BOOST_TEST(!crdSchema(ObjectKind::Other));
    BOOST_TEST(crdInfo(ObjectKind::ClusterTrainingRuntime)->at("scope").as_string() == "Cluster");
}

BOOST_AUTO_TEST_CASE(trainjob_defaults) {
    auto tj = trainJob();
    auto const& spec = tj.at("spec").as_object();
    BOOST_TEST(spec.at("runtimeRef").at("apiGroup").as_string() == "trainer.kubeflow.org");
    BOOST_TEST(spec.at("runtimeRef").at("kind").as_string() == "ClusterTrainingRuntime");
    BOOST_TEST(spec.at("suspend").as_bool() == false);
    BOOST_TEST(spec.at("managedBy").as_string() == "trainer.kubeflow.org/trainjob-controller");
    // No default invented where the schema has none, and absent parents stay absent.
    BOOST_TEST(!spec.contains("activeDeadlineSeconds"));
    BOOST_TEST(!spec.contains("initializer"));
    BOOST_TEST(!spec.at("trainer").as_object().contains("numProcPerNode"));
    // An explicit value is kept.
    auto o = parseYamlObject(kTrainJob);
    setPath(o, "spec.runtimeRef.kind", "TrainingRuntime");
    setPath(o, "spec.suspend", true);
    applyDefaults(o);
    BOOST_TEST(o.at("spec").at("runtimeRef").at("kind").as_string() == "TrainingRuntime");
    BOOST_TEST(o.at("spec").at("suspend").as_bool() == true);
    // null of a non-nullable field with a default becomes the default.
    o = parseYamlObject(kTrainJob);
    setPath(o, "spec.managedBy", json::value());
    o.at("spec").as_object()["managedBy"] = nullptr;
    applyDefaults(o);
    BOOST_TEST(o.at("spec").at("managedBy").as_string() == "trainer.kubeflow.org/trainjob-controller");
}

BOOST_AUTO_TEST_CASE(runtime_defaults_come_from_the_embedded_jobset_schema) {
    auto rt = parseYamlObject(R"(
apiVersion: trainer.kubeflow.org/v1alpha1
kind: ClusterTrainingRuntime
metadata: {name: mpi, namespace: ignored}
spec:
  mlPolicy:
    mpi: {}
  podGroupPolicy:
    coscheduling: {}
  template:
    spec:
      failurePolicy:
        maxRestarts: 3
      replicatedJobs:
      - name: launcher
        template:
          spec:
            template:
              spec:
                containers:
                - name: node
                  image: img
                  ports:
                  - containerPort: 22
)");
    applyDefaults(rt);
    auto const& spec = rt.at("spec").as_object();
    auto const& mpi = spec.at("mlPolicy").at("mpi").as_object();
    BOOST_TEST(mpi.at("numProcPerNode").as_int64() == 1);
    BOOST_TEST(mpi.at("mpiImplementation").as_string() == "OpenMPI");
    BOOST_TEST(mpi.at("sshAuthMountPath").as_string() == "/root/.ssh");
    BOOST_TEST(mpi.at("runLauncherAsNode").as_bool() == false);
    BOOST_TEST(!spec.at("mlPolicy").as_object().contains("numNodes"));  // no CRD default
    BOOST_TEST(spec.at("podGroupPolicy").at("coscheduling").at("scheduleTimeoutSeconds").as_int64() == 60);
    auto const& tspec = spec.at("template").at("spec").as_object();
    BOOST_TEST(tspec.at("failurePolicy").at("restartStrategy").as_string() == "Recreate");
    auto const& job = tspec.at("replicatedJobs").at(0).as_object();
    BOOST_TEST(job.at("replicas").as_int64() == 1);
    BOOST_TEST(job.at("groupName").as_string() == "default");
    auto const& port = job.at("template").at("spec").at("template").at("spec").at("containers").at(0).at("ports").at(0);
    BOOST_TEST(port.at("protocol").as_string() == "TCP");
    BOOST_TEST(!rt.at("metadata").as_object().contains("namespace"));  // cluster-scoped: cleared
    BOOST_TEST(validateSchema(rt).ok(), describe(validateSchema(rt)));
}

BOOST_AUTO_TEST_CASE(reference_runtimes_and_examples_validate_cleanly_after_defaults) {
    std::vector<InputDocument> docs;
    auto shared = std::string(TRAINER_SHARED_DIR) + "/reference/";
    auto d = readInputs({shared + "runtimes", shared + "examples"}, docs);
    BOOST_REQUIRE(d.ok());
    BOOST_REQUIRE_EQUAL(docs.size(), 5u);
    for (auto& doc : docs) {
        BOOST_TEST_CONTEXT(doc.origin) {
            BOOST_TEST((kindOf(doc.object) != ObjectKind::Other));
            applyDefaults(doc.object);
            auto v = validateSchema(doc.object);
            BOOST_TEST(v.ok(), describe(v));
            BOOST_TEST(v.warnings.empty());
        }
    }
}

// applyDefaults remembers, per node of the embedded schemas, which properties have a default,
// and looks only at those in an object with no null member; applySchemaDefaults (any schema)
// looks at every property. Both must give the same object, members in the same order, with and
// without null members, on a first call and on later ones.
BOOST_AUTO_TEST_CASE(embedded_defaulting_gives_what_defaulting_by_every_property_gives) {
    auto dir = std::string(TRAINER_GOLDEN_DIR) + "/upstream";
    std::vector<json::object> objects;
    for (auto const& entry : std::filesystem::directory_iterator(dir)) {
        if (entry.path().extension() != ".json") continue;
        auto c = readJsonFile(entry.path().string()).as_object();
        objects.push_back(c.at("trainJob").as_object());
        for (auto const& r : c.at("runtimes").as_array()) objects.push_back(r.as_object());
    }
    std::vector<InputDocument> docs;
    auto shared = std::string(TRAINER_SHARED_DIR) + "/reference/";
    BOOST_REQUIRE(readInputs({shared + "runtimes", shared + "examples"}, docs).ok());
    for (auto const& doc : docs) objects.push_back(doc.object);
    BOOST_REQUIRE(objects.size() > 10u);
    auto withNulls = parseYamlObject(kTrainJob);
    withNulls.at("spec").as_object()["suspend"] = nullptr;   // non-nullable, defaulted
    withNulls.at("spec").as_object()["managedBy"] = nullptr;
    withNulls.at("spec").as_object()["activeDeadlineSeconds"] = nullptr;  // non-nullable, no default: pruned
    objects.push_back(withNulls);
    int defaulted = 0;
    for (int pass = 0; pass < 2; ++pass)
        for (auto const& o : objects) {
            json::object viaEmbedded = o, viaEvery = o;
            applyDefaults(viaEmbedded);
            applySchemaDefaults(viaEvery, *crdSchema(kindOf(o)));
            if (kindOf(o) == ObjectKind::ClusterTrainingRuntime) viaEvery.at("metadata").as_object().erase("namespace");
            BOOST_TEST(json::serialize(viaEmbedded) == json::serialize(viaEvery));
            if (json::serialize(viaEmbedded) != json::serialize(o)) ++defaulted;
        }
    BOOST_TEST(defaulted > 0);  // defaults were applied, not only compared
    auto tj = withNulls;
    applyDefaults(tj);
    BOOST_TEST(tj.at("spec").at("suspend").as_bool() == false);
    BOOST_TEST(!tj.at("spec").as_object().contains("activeDeadlineSeconds"));
}

BOOST_AUTO_TEST_CASE(conformance_cases_pass_schema_or_fail_with_the_expected_message) {
    auto dir = std::string(TRAINER_GOLDEN_DIR) + "/upstream";
    int admissionCases = 0;
    for (auto const& entry : std::filesystem::directory_iterator(dir)) {
        if (entry.path().extension() != ".json") continue;
        auto c = readJsonFile(entry.path().string()).as_object();
        BOOST_TEST_CONTEXT(entry.path().filename().string()) {
            auto tj = c.at("trainJob").as_object();
            applyDefaults(tj);
            auto d = validateSchema(tj);
            for (auto const& r : c.at("runtimes").as_array()) {
                auto ro = r.as_object();
                applyDefaults(ro);
                auto rd = validateSchema(ro);
                BOOST_TEST(rd.ok(), describe(rd));
            }
            if (c.at("stage").as_string() == "admission" && entry.path().filename().string().starts_with("16-")) {
                ++admissionCases;
                std::string expected(c.at("expectedError").as_string());
                BOOST_TEST(hasError(d, "spec.trainer.numProcPerNode", expected), describe(d));
                BOOST_REQUIRE_EQUAL(d.errors.size(), 1u);
                // CEL errors read `Invalid value: "<type>": <rule message>`, as the API server words them.
                BOOST_TEST(d.errors[0].message.ends_with(": " + expected), d.errors[0].message);
            } else if (c.at("stage").as_string() == "build") {
                BOOST_TEST(d.ok(), describe(d));
            }
        }
    }
    BOOST_TEST(admissionCases == 1);
}

namespace {

// validateSchemaInPlace (admission's: the object moved into a value for the root rules and back)
// finds what validateSchema finds and gives the object back as it was.
void expectSameInPlace(const json::object& o, const json::object* old, const Diagnostics& expected) {
    json::object lent = o;
    const auto d = validateSchemaInPlace(lent, old);
    BOOST_TEST(describe(d) == describe(expected));
    BOOST_TEST(d.errors.size() == expected.errors.size());
    BOOST_TEST(lent == o, "the object was not given back unchanged");
}

}  // namespace

BOOST_AUTO_TEST_CASE(trainjob_schema_errors) {
    struct Case {
        std::string field;
        std::string value;  // JSON text; "null" = remove the field
        std::string path;   // where the error is expected
        std::string message;  // empty = expect no error at all
    };
    auto quoted = [](const std::string& s) { return json::serialize(json::value(json::string(s))); };
    std::string manyPatches = "[";
    for (int i = 0; i < 17; ++i) manyPatches += std::string(i ? "," : "") + R"({"manager":"m.io/)" + std::to_string(i) + "\"}";
    manyPatches += "]";
    auto manyStrings = [](int n) {
        json::array a;
        for (int i = 0; i < n; ++i) a.push_back(json::string("x"));
        return json::serialize(a);
    };
    const std::vector<Case> cases = {
        {"spec.trainer.numProcPerNode", "0", "spec.trainer.numProcPerNode", "numProcPerNode must be greater than or equal to 1"},
        {"spec.trainer.numProcPerNode", "-3", "spec.trainer.numProcPerNode", "numProcPerNode must be greater than or equal to 1"},
        {"spec.trainer.numProcPerNode", "4", "", ""},
        {"spec.trainer.numNodes", "0", "", ""},
        {"spec.trainer.numNodes", "-1", "spec.trainer.numNodes",
         "Invalid value: -1: spec.trainer.numNodes in body should be greater than or equal to 0"},
        {"spec.trainer.numNodes", R"("3")", "spec.trainer.numNodes",
         "Invalid value: \"string\": spec.trainer.numNodes in body must be of type integer: \"string\""},
        {"spec.trainer.numNodes", "3000000000", "spec.trainer.numNodes", "must fit in a 32-bit integer"},
        {"spec.managedBy", R"("me")", "spec.managedBy",
         "ManagedBy must be trainer.kubeflow.org/trainjob-controller or kueue.x-k8s.io/multikueue if set"},
        {"spec.managedBy", R"("kueue.x-k8s.io/multikueue")", "", ""},
        {"spec.initializer.dataset.storageUri", R"("not a uri")", "spec.initializer.dataset.storageUri",
         "storageUri may be empty, or it must be a valid URI (scheme://...)"},
        {"spec.initializer.model.storageUri", R"("hf://org/model")", "", ""},
        {"spec.initializer.dataset.storageUri", R"("")", "", ""},
        {"spec.runtimeRef.name", "null", "spec.runtimeRef.name", "Required value"},
        {"spec.runtimeRef", "null", "spec.runtimeRef", "Required value"},
        {"spec.runtimeRef.name", R"("")", "spec.runtimeRef.name",
         "Invalid value: \"\": spec.runtimeRef.name in body should be at least 1 chars long"},
        {"spec.activeDeadlineSeconds", "0", "spec.activeDeadlineSeconds", "should be greater than or equal to 1"},
        {"spec.trainer.numNode", "2", "spec.trainer.numNode", "field not declared in schema"},
        {"spec.trainer.image", quoted(std::string(501, 'x')), "spec.trainer.image", "Too long: may not be longer than 500"},
        {"spec.trainer.resourcesPerNode.requests.cpu", R"("two")", "spec.trainer.resourcesPerNode.requests[cpu]",
         "Invalid value: \"two\": spec.trainer.resourcesPerNode.requests[cpu] in body should match '^(\\+|-)?(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\\+|-)?(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))))?$'"},
        {"spec.trainer.resourcesPerNode.requests.cpu", "2", "", ""},
        {"spec.trainer.resourcesPerNode.requests.cpu", "true", "spec.trainer.resourcesPerNode.requests[cpu]",
         "must be of type integer or string"},
        {"spec.suspend", R"("yes")", "spec.suspend", "must be of type boolean"},
        {"spec.runtimeRef.name", quoted(std::string(254, 'a')), "spec.runtimeRef.name", "Too long: may not be longer than 253"},
        {"spec.trainer.command", manyStrings(129), "spec.trainer.command", "Too many: 129: must have at most 128 items"},
        {"spec.trainer.args", manyStrings(128), "", ""},
        {"spec.runtimePatches", manyPatches, "spec.runtimePatches", "Too many: 17: must have at most 16 items"},
        {"spec.runtimePatches", R"([{"manager":"a.io/x"},{"manager":"a.io/x"}])", "spec.runtimePatches[1]",
         "Duplicate value: {\"manager\":\"a.io/x\"}"},
        {"spec.trainer.env", R"([{"name":"A"},{"name":"A","value":"2"}])", "spec.trainer.env[1]", "Duplicate value: {\"name\":\"A\"}"},
        {"spec.trainer.env", R"([{"value":"2"}])", "spec.trainer.env[0].name", "Required value"},
        {"metadata.name", R"("Bad_Name")", "", "metadata.name must match RFC 1035 DNS label format"},
        {"metadata.name", R"("Bad_Name")", "metadata.name", "a lowercase RFC 1123 subdomain must consist of"},
        {"metadata.name", R"("1abc")", "", "metadata.name must match RFC 1035 DNS label format"},
        {"metadata.name", quoted(std::string(64, 'a')), "", "metadata.name must be no more than 63 characters"},
        {"metadata.name", "null", "metadata.name", "Required value: name or generateName is required"},
        {"metadata.namespace", R"("Bad.NS")", "metadata.namespace", "a lowercase RFC 1123 label must consist of"},
        {"metadata.labels.app", R"("bad value!")", "metadata.labels", "a valid label must be an empty string"},
        {"metadata.labels.app", R"("good-value")", "", ""},
        {"status.trainerStatus.progressPercentage", "10", "status.trainerStatus",
         "lastUpdatedTime is required when trainerStatus is present"},
        {"status.trainerStatus.progressPercentage", "101", "status.trainerStatus.progressPercentage",
         "should be less than or equal to 100"},
        {"status.conditions",
         R"([{"type":"Complete","status":"Maybe","lastTransitionTime":"2024-01-01T00:00:00Z","reason":"R","message":"m"}])",
         "status.conditions[0].status", "Unsupported value: \"Maybe\": supported values: \"True\", \"False\", \"Unknown\""},
        {"status.conditions",
         R"([{"type":"Complete","status":"True","lastTransitionTime":"yesterday","reason":"R","message":"m"}])",
         "status.conditions[0].lastTransitionTime", "must be of type date-time"},
    };
    for (auto const& c : cases) {
        BOOST_TEST_CONTEXT(c.field << " = " << c.value) {
            auto tj = trainJob();
            setPath(tj, c.field, json::parse(c.value));
            auto d = validateSchema(tj);
            expectSameInPlace(tj, nullptr, d);
            if (c.message.empty()) {
                BOOST_TEST(d.ok(), describe(d));
            } else {
                BOOST_TEST(hasError(d, c.path, c.message), describe(d));
            }
        }
    }
}

BOOST_AUTO_TEST_CASE(runtime_schema_errors) {
    struct Case {
        std::string field;
        std::string value;  // JSON text; "null" = remove
        std::string path;
        std::string message;  // empty = no error
    };
    const std::vector<Case> cases = {
        {"spec.mlPolicy.mpi", "{}", "spec.mlPolicy", "Only one of the policy can be configured"},
        {"spec.mlPolicy.mpi.numProcPerNode", "0", "spec.mlPolicy.mpi.numProcPerNode", "NumProcPerNode in mpiPolicy must be >= 1"},
        {"spec.mlPolicy.torch", "null", "", ""},
        {"spec.mlPolicy.flux.numProcPerNode", "0", "spec.mlPolicy.flux.numProcPerNode", "NumProcPerNode in fluxPolicy must be >= 1"},
        {"spec.mlPolicy.torch.envInjection.targets", R"([{"jobName":"node","containerNames":["sidecar","node"]}])",
         "spec.mlPolicy.torch.envInjection.targets[0].containerNames",
         "containerNames must not include the main node container because PET_* envs are always injected into it"},
        {"spec.mlPolicy.torch.envInjection.targets", R"([{"jobName":"node","containerNames":["a","a"]}])",
         "spec.mlPolicy.torch.envInjection.targets[0].containerNames[1]", "Duplicate value: \"a\""},
        {"spec.mlPolicy.torch.envInjection.targets", R"([{"jobName":"node","containerNames":["sidecar"]}])", "", ""},
        {"spec.mlPolicy.torch.envInjection.targets", R"([{"jobName":"node","containerNames":[]}])",
         "spec.mlPolicy.torch.envInjection.targets[0].containerNames", "should have at least 1 items"},
        {"spec.mlPolicy.torch.envInjection.targets", R"([{"jobName":"node","containerNames":["a","b","c","d","e","f","g","h","i"]}])",
         "spec.mlPolicy.torch.envInjection.targets[0].containerNames", "Too many: 9: must have at most 8 items"},
        {"spec.mlPolicy.torch.envInjection.targets", R"([{"jobName":"a","containerNames":["x"]},{"jobName":"a","containerNames":["y"]}])",
         "spec.mlPolicy.torch.envInjection.targets[1]", "Duplicate value: {\"jobName\":\"a\"}"},
        {"spec.template.spec.startupPolicy.startupPolicyOrder", R"("InOrder")", "", ""},
        {"spec", "{}", "spec", "should have at least 1 properties"},
        {"spec.template.spec.volumeClaimPolicies", R"([{"templates":[{"metadata":{"name":"v","namespace":"x"}}]}])",
         "spec.template.spec.volumeClaimPolicies[0]", "namespace cannot be set for VolumeClaimPolicies templates"},
        {"metadata.name", R"("Runtime_1")", "metadata.name", "a lowercase RFC 1123 subdomain"},
        {"metadata.name", R"("my.runtime")", "", ""},  // a DNS subdomain is fine for runtimes
    };
    for (auto const& c : cases) {
        BOOST_TEST_CONTEXT(c.field << " = " << c.value) {
            auto rt = runtime();
            setPath(rt, c.field, json::parse(c.value));
            auto d = validateSchema(rt);
            expectSameInPlace(rt, nullptr, d);
            if (c.message.empty()) BOOST_TEST(d.ok(), describe(d));
            else BOOST_TEST(hasError(d, c.path, c.message), describe(d));
        }
    }
    // StartupPolicy InOrder together with dependsOn is rejected.
    auto rt = runtime();
    setPath(rt, "spec.template.spec.startupPolicy.startupPolicyOrder", "InOrder");
    auto& job = rt.at("spec").at("template").at("spec").at("replicatedJobs").at(0).as_object();
    job["dependsOn"] = json::array{json::object{{"name", "x"}, {"status", "Ready"}}};
    auto d = validateSchema(rt);
    BOOST_TEST(hasError(d, "spec.template.spec", "StartupPolicy and DependsOn APIs are mutually exclusive"), describe(d));
    // mpiImplementation enum (checked alone: only one policy allowed).
    rt = runtime();
    setPath(rt, "spec.mlPolicy.torch", nullptr);
    setPath(rt, "spec.mlPolicy.mpi.mpiImplementation", "Intel");
    d = validateSchema(rt);
    BOOST_TEST(hasError(d, "spec.mlPolicy.mpi.mpiImplementation", "Unsupported value: \"Intel\": supported values: \"OpenMPI\", \"\""),
               describe(d));
}

BOOST_AUTO_TEST_CASE(transition_rules_apply_only_on_update) {
    struct Case {
        std::string field;
        std::string value;  // JSON text
        std::string path;   // empty = allowed
        std::string message;
    };
    auto patchWithSa = [](const std::string& sa) {
        return R"([{"manager":"a.io/m","trainingRuntimeSpec":{"template":{"spec":{"replicatedJobs":[{"name":"node","template":{"spec":{"template":{"spec":{"serviceAccountName":")" +
               sa + R"("}}}}}]}}}}])";
    };
    const std::vector<Case> cases = {
        {"spec.runtimeRef.name", R"("other")", "spec.runtimeRef", "field is immutable"},
        {"spec.trainer.numNodes", "5", "spec.trainer", "field is immutable"},
        {"spec.managedBy", R"("kueue.x-k8s.io/multikueue")", "spec.managedBy", "field is immutable"},
        {"spec.activeDeadlineSeconds", "100", "", ""},  // absent before: nothing to compare
        {"spec.initializer.dataset.storageUri", R"("hf://x/y")", "", ""},
        {"spec.suspend", "true", "", ""},
        {"metadata.labels.x", R"("y")", "", ""},
        {"spec.runtimePatches", patchWithSa("changed"),
         "spec.runtimePatches[0].trainingRuntimeSpec.template.spec.replicatedJobs[0].template.spec.template.spec.serviceAccountName",
         "field is immutable"},
    };
    auto old = trainJob();
    setPath(old, "spec.runtimePatches", json::parse(patchWithSa("orig")));
    BOOST_TEST(validateSchema(old, &old).ok(), describe(validateSchema(old, &old)));
    for (auto const& c : cases) {
        BOOST_TEST_CONTEXT(c.field) {
            auto tj = old;
            setPath(tj, c.field, json::parse(c.value));
            BOOST_TEST(validateSchema(tj).ok(), describe(validateSchema(tj)));  // CREATE: no transition rules
            auto d = validateSchema(tj, &old);
            expectSameInPlace(tj, &old, d);
            if (c.path.empty()) BOOST_TEST(d.ok(), describe(d));
            else BOOST_TEST(hasError(d, c.path, c.message), describe(d));
        }
    }
    // Fields present in the old object too: activeDeadlineSeconds and initializer are immutable.
    auto old2 = trainJob();
    setPath(old2, "spec.activeDeadlineSeconds", 100);
    setPath(old2, "spec.initializer.dataset.storageUri", "hf://a/b");
    for (auto const& [field, value, path] : std::vector<std::tuple<std::string, json::value, std::string>>{
             {"spec.activeDeadlineSeconds", json::value(200), "spec.activeDeadlineSeconds"},
             {"spec.initializer.dataset.storageUri", json::value("hf://c/d"), "spec.initializer"}}) {
        auto tj = old2;
        setPath(tj, field, value);
        auto d = validateSchema(tj, &old2);
        BOOST_TEST(hasError(d, path, "field is immutable"), field << ": " << describe(d));
    }
    // Embedded JobSet transition rules on runtimes.
    auto rtOld = runtime();
    setPath(rtOld, "spec.template.spec.failurePolicy.maxRestarts", 1);
    auto rt = rtOld;
    setPath(rt, "spec.template.spec.failurePolicy.maxRestarts", 2);
    auto d = validateSchema(rt, &rtOld);
    BOOST_TEST(hasError(d, "spec.template.spec.failurePolicy", "Value is immutable"), describe(d));
}

BOOST_AUTO_TEST_CASE(bad_shapes_never_crash) {
    const std::vector<std::string> docs = {
        R"({"apiVersion":"trainer.kubeflow.org/v1alpha1","kind":"TrainJob"})",
        R"({"apiVersion":"trainer.kubeflow.org/v1alpha1","kind":"TrainJob","metadata":"x","spec":[]})",
        R"({"apiVersion":"trainer.kubeflow.org/v1alpha1","kind":"TrainingRuntime","metadata":{"name":"a","labels":{"x":1}},"spec":{"template":{"spec":{"replicatedJobs":[null,3,{"template":[]}]}}}})",
        R"({"apiVersion":"trainer.kubeflow.org/v1alpha1","kind":"ClusterTrainingRuntime","metadata":{"name":"a"},"spec":{"mlPolicy":"torch"}})",
        R"({"apiVersion":"trainer.kubeflow.org/v1alpha1","kind":"TrainJob","metadata":{"name":"a"},"spec":{"runtimeRef":{"name":1},"trainer":{"env":[{"name":null}],"numProcPerNode":"x"}}})",
    };
    for (auto const& text : docs) {
        auto o = json::parse(text).as_object();
        BOOST_CHECK_NO_THROW(applyDefaults(o));
        Diagnostics d;
        BOOST_CHECK_NO_THROW(d = validateSchema(o, &o));
        BOOST_TEST(!d.ok(), text);
    }
    json::object other{{"apiVersion", "v1"}, {"kind", "ConfigMap"}, {"data", json::object{{"x", 1}}}};
    applyDefaults(other);
    BOOST_TEST(validateSchema(other).ok());
    BOOST_TEST((kindOf(other) == ObjectKind::Other));
}

BOOST_AUTO_TEST_CASE(hostile_sizes_are_errors_not_crashes) {
    auto tj = trainJob();
    setPath(tj, "spec.trainer.resourcesPerNode.requests.cpu", json::string(std::string(1 << 20, '1')));
    setPath(tj, "spec.initializer.dataset.storageUri", json::string("s3://" + std::string(1 << 20, 'a')));
    setPath(tj, "metadata.name", json::string(std::string(1 << 20, 'a')));
    Diagnostics d;
    BOOST_CHECK_NO_THROW(d = validateSchema(tj));
    BOOST_TEST(hasError(d, "spec.initializer.dataset.storageUri", "Too long: may not be longer than 2048"), describe(d));
    BOOST_TEST(hasError(d, "spec.trainer.resourcesPerNode.requests[cpu]", "should match"), describe(d));
    BOOST_TEST(hasError(d, "", "metadata.name must be no more than 63 characters"), describe(d));
}

// A list map keyed by two members (a pod's topologySpreadConstraints: topologyKey and
// whenUnsatisfiable): items are duplicates only when both keys are equal, whatever else differs,
// and keys whose texts would join alike ("a,b" + "c" and "a" + "b,c") stay distinct.
BOOST_AUTO_TEST_CASE(list_maps_with_two_keys_compare_both) {
    auto constraint = [](int skew, const char* key, const char* when) {
        return json::object{{"maxSkew", skew}, {"topologyKey", key}, {"whenUnsatisfiable", when}};
    };
    struct Case {
        json::array items;
        std::string duplicate;  // the message at [1]; empty = no error
    };
    const std::vector<Case> cases = {
        {{constraint(1, "zone", "DoNotSchedule"), constraint(1, "zone", "ScheduleAnyway")}, ""},
        {{constraint(1, "zone", "DoNotSchedule"), constraint(1, "host", "DoNotSchedule")}, ""},
        {{constraint(1, "a,b", "c"), constraint(1, "a", "b,c")}, ""},
        {{constraint(1, "zone", "DoNotSchedule"), constraint(2, "zone", "DoNotSchedule")},
         R"(Duplicate value: {"topologyKey":"zone","whenUnsatisfiable":"DoNotSchedule"})"},
    };
    for (auto const& c : cases) {
        BOOST_TEST_CONTEXT(json::serialize(c.items)) {
            auto rt = runtime();
            auto& pod = rt.at("spec").at("template").at("spec").at("replicatedJobs").at(0).at("template").at("spec")
                            .at("template").at("spec").as_object();
            pod["topologySpreadConstraints"] = c.items;
            auto d = validateSchema(rt);
            expectSameInPlace(rt, nullptr, d);
            if (c.duplicate.empty()) {
                BOOST_TEST(d.ok(), describe(d));
            } else {
                BOOST_REQUIRE_EQUAL(d.errors.size(), 1u);
                BOOST_TEST(d.errors[0].message == c.duplicate);
                BOOST_TEST(d.errors[0].path.find("topologySpreadConstraints[1]") != std::string::npos, d.errors[0].path);
            }
        }
    }
}

// Issue 12: uniqueness is checked with a hash set (was pairwise). 20k env entries in a runtime's
// container (no maxItems there) validate to exactly one Duplicate error; no timing asserted.
BOOST_AUTO_TEST_CASE(twenty_thousand_env_vars_are_checked_for_duplicates) {
    auto rt = runtime();
    auto& c = rt.at("spec").at("template").at("spec").at("replicatedJobs").at(0).at("template").at("spec")
                  .at("template").at("spec").at("containers").at(0).as_object();
    json::array env;
    for (int i = 0; i < 20000; ++i) env.push_back(json::object{{"name", "V" + std::to_string(i)}, {"value", "x"}});
    c["env"] = env;
    BOOST_TEST(validateSchema(rt).ok());
    env.push_back(json::object{{"name", "V7"}, {"value", "y"}});
    c["env"] = env;
    auto d = validateSchema(rt);
    BOOST_REQUIRE_EQUAL(d.errors.size(), 1u);
    BOOST_TEST(d.errors[0].message == "Duplicate value: {\"name\":\"V7\"}");
    BOOST_TEST(d.errors[0].path.find("env[20000]") != std::string::npos, d.errors[0].path);
}
