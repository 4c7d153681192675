// CustomValidation of the jobset plugin: every message and path of upstream's Validate in
// https://github.com/kubeflow/trainer/blob/8c0f5059bd51ec3ba6d6a6a7b2e1471de7bc13b3/pkg/runtime/framework/plugins/jobset/jobset.go.
#include <boost/test/unit_test.hpp>

#include "fixtures.hpp"

using namespace trainer::testkit;
namespace testing = trainer::sdk::testing;

namespace {

// Runtime: dataset-initializer (container + initializer mount), model-initializer (container,
// no mount), node (init container "init", container "node").
const char* kRuntimeSpec = R"({"replicatedJobs":[
  {"name":"dataset-initializer","template":{"spec":{"template":{"spec":{"containers":[
     {"name":"dataset-initializer","volumeMounts":[{"name":"initializer","mountPath":"/workspace/dataset"}]}]}}}}},
  {"name":"model-initializer","template":{"spec":{"template":{"spec":{"containers":[{"name":"model-initializer"}]}}}}},
  {"name":"node","template":{"spec":{"template":{"spec":{"initContainers":[{"name":"init"}],
     "containers":[{"name":"node"},{"name":"sidecar"}]}}}}}]})";

const char* kPatchNodeSA = R"([{"manager":"test.io/manager","trainingRuntimeSpec":{"template":{"spec":{
  "replicatedJobs":[{"name":"node","template":{"spec":{"template":{"spec":{"serviceAccountName":"sa"}}}}}]}}}}])";
const char* kPatchNodeSA2 = R"([{"manager":"test.io/manager","trainingRuntimeSpec":{"template":{"spec":{
  "replicatedJobs":[{"name":"node","template":{"spec":{"template":{"spec":{"serviceAccountName":"sa2"}}}}}]}}}}])";

struct Expect {
    std::string path;
    std::string message;
};

struct Case {
    std::string name;
    std::string spec;           // TrainJob spec members (JSON object text)
    std::string jobSetSpec;     // Info jobSetSpec
    std::string oldSpec;        // "" → CREATE
    std::string clusterJobSet;  // "" → no JobSet in the cluster
    std::vector<Expect> errors;
};

json::object patchSpec(std::string_view rjob, std::string_view podSpec, std::string_view manager = "test.io/manager") {
    return obj(std::string(R"({"runtimePatches":[{"manager":")") + std::string(manager) +
               R"(","trainingRuntimeSpec":{"template":{"spec":{"replicatedJobs":[{"name":")" + std::string(rjob) +
               R"(","template":{"spec":{"template":{"spec":)" + std::string(podSpec) + "}}}}]}}}}]}");
}

std::string text(const json::object& o) { return json::serialize(o); }

const std::string kDomainMsg = "must be a domain-prefixed path (such as \"acme.io/foo\")";
const std::string kSubdomainMsg =
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start "
    "and end with an alphanumeric character (e.g. 'example.com', regex used for validation is "
    "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
const std::string kPathMsg = "must be a valid path (regex used for validation is '[A-Za-z0-9/\\-._~%!$&'()*+,;=:]+')";
const std::string kNotSuspended =
    "RuntimePatches can only be modified when the TrainJob is suspended before or after the update";

std::vector<Case> cases() {
    const std::string rt = kRuntimeSpec;
    const std::string noInit = R"({"replicatedJobs":[{"name":"node","template":{"spec":{"template":{"spec":{"containers":[{"name":"node"}]}}}}}]})";
    const std::string noDsContainer = R"({"replicatedJobs":[{"name":"dataset-initializer","template":{"spec":{"template":{"spec":{"containers":[{"name":"other"}]}}}}},
        {"name":"model-initializer","template":{"spec":{"template":{"spec":{"containers":[]}}}}}]})";
    const std::string dsInitContainer = R"({"replicatedJobs":[{"name":"dataset-initializer","template":{"spec":{"template":{"spec":{
        "initContainers":[{"name":"dataset-initializer","volumeMounts":[{"name":"initializer","mountPath":"/workspace/dataset"}]}],
        "containers":[{"name":"main"}]}}}}}]})";
    const std::string dsJob = R"({"initializer":{"dataset":{"storageUri":"hf://x"}}})";
    const std::string modelJob = R"({"initializer":{"model":{}}})";
    auto withSuspend = [](json::object o, bool s) { o["suspend"] = s; return text(o); };
    auto p = [](const char* patches) { return std::string(R"({"runtimePatches":)") + patches + "}"; };
    const std::string activeJobSet = R"({"status":{"replicatedJobsStatus":[{"name":"node","active":2},{"name":"launcher","active":0},{"name":"w","active":1}]}})";
    const std::string idleJobSet = R"({"status":{"replicatedJobsStatus":[{"name":"node","active":0,"succeeded":1}]}})";

    return {
        {"no initializer, no patches: valid", "{}", rt, "", "", {}},
        {"dataset configured, runtime lacks the job", dsJob, noInit, "", "",
         {{"spec.runtimeRef", "must have dataset-initializer job when trainJob is configured with input datasetConfig"}}},
        {"model configured, runtime lacks the job", modelJob, noInit, "", "",
         {{"spec.runtimeRef", "must have model-initializer job when trainJob is configured with input modelConfig"}}},
        {"dataset job lacks its container", dsJob, noDsContainer, "", "",
         {{"spec.runtimeRef", "must have container with name - dataset-initializer in the dataset-initializer job"}}},
        {"model job lacks its container", modelJob, noDsContainer, "", "",
         {{"spec.runtimeRef", "must have container with name - model-initializer in the model-initializer job"}}},
        {"dataset container has the initializer mount: valid", dsJob, rt, "", "", {}},
        {"model container lacks the initializer mount", modelJob, rt, "", "",
         {{"spec.runtimeRef",
           "must have volumeMount with name - initializer in container model-initializer of the model-initializer job"}}},
        // Upstream's jobset.go Validate looks for the mount in regular containers only; the
        // builder would never give an init-container initializer its STORAGE_URI.
        {"dataset initializer is an init container with the mount", dsJob, dsInitContainer, "", "",
         {{"spec.runtimeRef",
           "must have volumeMount with name - initializer in container dataset-initializer of the dataset-initializer job"}}},
        {"both initializers, both missing", R"({"initializer":{"dataset":{},"model":{}}})", noInit, "", "",
         {{"spec.runtimeRef", "must have dataset-initializer job when trainJob is configured with input datasetConfig"},
          {"spec.runtimeRef", "must have model-initializer job when trainJob is configured with input modelConfig"}}},
        {"patch of an unknown replicated job", text(patchSpec("invalid", "{}")), rt, "", "",
         {{"spec.runtimePatches", "must not have replicated job that doesn't exist in the runtime job template"}}},
        {"patch of an unknown init container", text(patchSpec("node", R"({"initContainers":[{"name":"invalid"}]})")), rt, "", "",
         {{"spec.runtimePatches", "must not have initContainer that doesn't exist in the runtime job node"}}},
        {"patch of an unknown container", text(patchSpec("node", R"({"containers":[{"name":"invalid"}]})")), rt, "", "",
         {{"spec.runtimePatches", "must not have container that doesn't exist in the runtime job node"}}},
        {"patch of known containers without env: valid",
         text(patchSpec("node", R"({"initContainers":[{"name":"init"}],"containers":[{"name":"sidecar","env":[{"name":"A","value":"1"}]},{"name":"node","securityContext":{}}]})")),
         rt, "", "", {}},
        {"patch env into node", text(patchSpec("node", R"({"containers":[{"name":"node","env":[{"name":"ENV_NAME","value":"OVERRIDE"}]}]})")), rt, "", "",
         {{"spec.runtimePatches", "must not have envs for the dataset-initializer, model-initializer, node containers"}}},
        {"patch env into dataset-initializer",
         text(patchSpec("dataset-initializer", R"({"containers":[{"name":"dataset-initializer","env":[{"name":"A","value":"1"}]}]})")), rt, "", "",
         {{"spec.runtimePatches", "must not have envs for the dataset-initializer, model-initializer, node containers"}}},
        {"manager without a domain", text(patchSpec("node", "{}", "manager")), rt, "", "",
         {{"spec.runtimePatches.manager", kDomainMsg}}},
        {"manager with an empty path", text(patchSpec("node", "{}", "kueue.x-k8s.io/")), rt, "", "",
         {{"spec.runtimePatches.manager", kDomainMsg}}},
        {"manager with a bad host", text(patchSpec("node", "{}", "Kueue_IO/manager")), rt, "", "",
         {{"spec.runtimePatches.manager", kSubdomainMsg}}},
        {"manager with a bad path", text(patchSpec("node", "{}", "kueue.x-k8s.io/a b")), rt, "", "",
         {{"spec.runtimePatches.manager", kPathMsg}}},
        {"manager kueue.x-k8s.io/multikueue: valid", text(patchSpec("node", "{}", "kueue.x-k8s.io/multikueue")), rt, "", "", {}},
        {"create with patches: valid", p(kPatchNodeSA), rt, "", activeJobSet, {}},
        {"update without patch change: valid", withSuspend(obj(p(kPatchNodeSA)), false), rt,
         withSuspend(obj(p(kPatchNodeSA)), false), activeJobSet, {}},
        {"update changing patches while running", withSuspend(obj(p(kPatchNodeSA2)), false), rt,
         withSuspend(obj(p(kPatchNodeSA)), false), "", {{"spec.runtimePatches", kNotSuspended}}},
        {"update adding patches while running (suspend absent)", p(kPatchNodeSA), rt, "{}", "",
         {{"spec.runtimePatches", kNotSuspended}}},
        {"absent and empty patches are equal", R"({"runtimePatches":[]})", rt, "{}", "", {}},
        {"suspended, no JobSet: valid", withSuspend(obj(p(kPatchNodeSA2)), true), rt,
         withSuspend(obj(p(kPatchNodeSA)), true), "", {}},
        {"resuming with changed patches, JobSet idle: valid", withSuspend(obj(p(kPatchNodeSA2)), false), rt,
         withSuspend(obj(p(kPatchNodeSA)), true), idleJobSet, {}},
        {"suspending with changed patches, JobSet still active", withSuspend(obj(p(kPatchNodeSA2)), true), rt,
         withSuspend(obj(p(kPatchNodeSA)), false), activeJobSet,
         {{"spec.runtimePatches", "RuntimePatches cannot be modified when the JobSet's ReplicatedJob node is still active"},
          {"spec.runtimePatches", "RuntimePatches cannot be modified when the JobSet's ReplicatedJob w is still active"}}},
    };
}

}  // namespace

BOOST_AUTO_TEST_CASE(validate_table) {
    for (auto const& c : cases()) {
        BOOST_TEST_CONTEXT(c.name) {
            testing::Host host;
            json::object tj = obj(R"({"apiVersion":"trainer.kubeflow.org/v1alpha1","kind":"TrainJob",
                                      "metadata":{"name":"test","namespace":"default","uid":"u"}})");
            tj["spec"] = obj(c.spec);
            json::object info{{"infoVersion", 1}, {"trainJob", tj}, {"jobSetSpec", obj(c.jobSetSpec)},
                              {"podSets", json::array{}}};
            json::object admission{{"operation", c.oldSpec.empty() ? "CREATE" : "UPDATE"}};
            if (!c.oldSpec.empty()) {
                json::object old = tj;
                old["spec"] = obj(c.oldSpec);
                admission["oldTrainJob"] = std::move(old);
            }
            info["admission"] = std::move(admission);
            if (!c.clusterJobSet.empty()) {
                json::object js = obj(c.clusterJobSet);
                js["apiVersion"] = "jobset.x-k8s.io/v1alpha2";
                js["kind"] = "JobSet";
                js["metadata"] = obj(R"({"name":"test","namespace":"default"})");
                host.cluster.push_back(std::move(js));
            }
            auto ctx = host.context("jobset");
            JobSet plugin(json::object{}, ctx);
            plugin.validate(sdk::Info(std::move(info)), ctx);
            auto errs = host.errors();
            BOOST_TEST(host.warnings().empty());
            BOOST_TEST(ctx.failed() == !c.errors.empty());
            BOOST_REQUIRE_EQUAL(errs.size(), c.errors.size());
            for (size_t i = 0; i < errs.size(); ++i) {
                BOOST_TEST(errs[i].path == c.errors[i].path);
                BOOST_TEST(errs[i].message == c.errors[i].message);
            }
        }
    }
}
