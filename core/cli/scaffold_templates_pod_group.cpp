// `new-plugin --kind pod-group`: a pod-group policy under podGroupPolicy.<name> that puts the
// gang's size on every pod as a label and annotations (placeholders: scaffold.hpp).
#include "core/cli/scaffold.hpp"

#include <array>

namespace trainer::core::cli::scaffold {
namespace {

constexpr std::string_view kHeader = R"TPL(// @NAME@: a pod-group policy. A runtime with `podGroupPolicy.@NAME@` gang-schedules the
// TrainJob's pods: every pod gets
//
//   label      @NAME@.example.com/pod-group: <TrainJob name>
//   annotation @NAME@.example.com/min-member: Σ PodSet.count (the whole gang)
//   annotation @NAME@.example.com/schedule-timeout-seconds: `podGroupPolicy.@NAME@.scheduleTimeoutSeconds`
//
// for a scheduler that reads them. A backend with a PodGroup object of its own would also build
// it (ComponentBuilder, claiming `kind:<apiVersion>/<Kind>`; see the shipped coscheduling plugin
// and <trainer/pod_group.hpp>: podGroupObject, keepExistingPodGroup, podGroupWatches).
#pragma once

#include <trainer/plugin.hpp>
#include <trainer/pod_group.hpp>
#include <trainer/policy.hpp>

#include <cstdint>

namespace @IDENT@_plugin {

using namespace trainer::sdk;

inline constexpr const char* kPodGroupLabel = "@NAME@.example.com/pod-group";
inline constexpr const char* kMinMemberAnnotation = "@NAME@.example.com/min-member";
inline constexpr const char* kTimeoutAnnotation = "@NAME@.example.com/schedule-timeout-seconds";
inline constexpr int64_t kDefaultTimeoutSeconds = 60;

class @CLASS@Plugin : public Plugin, public CustomValidation, public EnforcePodGroupPolicy {
public:
    // The operator's configuration of the plugin: {"scheduleTimeoutSeconds": N} (optional), the
    // default for runtimes that set none.
    @CLASS@Plugin(const json::object& config, Context& ctx);
    static PluginMeta meta();

    // Refuses a runtime whose `podGroupPolicy.@NAME@.scheduleTimeoutSeconds` is negative.
    void validate(const Info& info, Context& ctx) override;
    // Labels and annotates every pod with the gang.
    void enforcePodGroupPolicy(const Info& info, Edits& edits, Context& ctx) override;

    // The timeout in force: the runtime's, else the configured one.
    int64_t timeoutSeconds(const Info& info) const;

private:
    int64_t timeout_ = kDefaultTimeoutSeconds;
};

}  // namespace @IDENT@_plugin
)TPL";

constexpr std::string_view kSource = R"TPL(#include "@NAME@.hpp"

#include <optional>
#include <string>

namespace @IDENT@_plugin {

@CLASS@Plugin::@CLASS@Plugin(const json::object& config, Context& ctx) {
    if (auto t = getInt(config, "scheduleTimeoutSeconds")) {
        if (*t < 0) ctx.error("scheduleTimeoutSeconds", "must be 0 or more");
        timeout_ = *t;
    }
}

PluginMeta @CLASS@Plugin::meta() {
    return {.name = "@NAME@",
            .version = "0.1.0",
            .description = "@NAME@ pod-group policy (podGroupPolicy.@NAME@): gang labels on every pod",
            // The policy key (sdk/docs/abi.md rule 12). A backend building its own objects claims
            // their kind too: "kind:<apiVersion>/<Kind>".
            .claims = {"podGroupPolicy.@NAME@"}};
}

int64_t @CLASS@Plugin::timeoutSeconds(const Info& info) const {
    const json::object* policy = podGroupPolicyConfig(info, "@NAME@");
    return policy ? getInt(*policy, "scheduleTimeoutSeconds").value_or(timeout_) : timeout_;
}

void @CLASS@Plugin::validate(const Info& info, Context& ctx) {
    // The runtime's policy block is checked when a TrainJob using it is admitted; the path names
    // the runtime's field.
    const json::object* policy = podGroupPolicyConfig(info, "@NAME@");
    if (auto t = policy ? getInt(*policy, "scheduleTimeoutSeconds") : std::nullopt; t && *t < 0)
        ctx.error("spec.podGroupPolicy.@NAME@.scheduleTimeoutSeconds",
                  "Invalid value: " + std::to_string(*t) + ": must be 0 or more");
}

void @CLASS@Plugin::enforcePodGroupPolicy(const Info& info, Edits& edits, Context& ctx) {
    // This phase sees the ML policy's counts (numNodes applied): the gang is every pod of them.
    auto totals = sumPodSets(info, ctx);
    if (!totals) return;
    edits.setPodLabel(kPodGroupLabel, info.name());
    edits.setPodAnnotation(kMinMemberAnnotation, std::to_string(totals->minMember));
    edits.setPodAnnotation(kTimeoutAnnotation, std::to_string(timeoutSeconds(info)));
    ctx.debug("@NAME@ gang of " + std::to_string(totals->minMember) + " for " + std::string(info.name()));
}

}  // namespace @IDENT@_plugin
)TPL";

constexpr std::string_view kTest = R"TPL(#define BOOST_TEST_MODULE @IDENT@_test
#include <boost/test/unit_test.hpp>

#include "../@NAME@.hpp"

#include <trainer/testing.hpp>
#include <trainer/testing/real_host.hpp>

#include <map>
#include <string>

using namespace trainer::sdk;
using @IDENT@_plugin::@CLASS@Plugin;

// ---- The hooks alone, on the fake host (<trainer/testing.hpp>) ----

namespace {
// A minimal Info document (sdk/docs/info.md): a trainer of `nodes` pods, one initializer pod,
// and podGroupPolicy.@NAME@.
json::object info(int64_t nodes, json::object policy = {}) {
    auto o = json::parse(R"({"infoVersion":1,
      "trainJob":{"apiVersion":"trainer.kubeflow.org/v1alpha1","kind":"TrainJob",
                  "metadata":{"name":"job","namespace":"ns","uid":"u"},"spec":{}},
      "podSets":[{"name":"node","ancestor":"trainer","count":1,"containers":[{"name":"node"}]},
                 {"name":"dataset-initializer","count":1,"containers":[{"name":"dataset-initializer"}]}]})")
                 .as_object();
    o["podSets"].as_array()[0].as_object()["count"] = nodes;
    o["runtimePolicy"] = json::object{{"podGroupPolicy", json::object{{"@NAME@", std::move(policy)}}}};
    return o;
}

std::map<std::string, std::string> editsByPath(const testing::Host& host) {
    std::map<std::string, std::string> byPath;
    for (auto const& e : host.emitted)
        byPath[std::string(e.at("path").as_string())] = std::string(e.at("value").as_string());
    return byPath;
}
}  // namespace

BOOST_AUTO_TEST_CASE(labels_and_annotates_every_pod_with_the_gang) {
    testing::Host host;
    auto ctx = host.context("@NAME@");
    @CLASS@Plugin p(json::object{}, ctx);
    Edits edits(ctx);
    p.enforcePodGroupPolicy(Info(info(3)), edits, ctx);
    BOOST_TEST(host.errors().empty());
    auto byPath = editsByPath(host);
    BOOST_TEST(byPath.at("/scheduler/podLabels/@NAME@.example.com~1pod-group") == "job");
    BOOST_TEST(byPath.at("/scheduler/podAnnotations/@NAME@.example.com~1min-member") == "4");
    BOOST_TEST(byPath.at("/scheduler/podAnnotations/@NAME@.example.com~1schedule-timeout-seconds") == "60");
}

BOOST_AUTO_TEST_CASE(the_runtime_timeout_wins_over_the_configured_one) {
    testing::Host host;
    auto ctx = host.context("@NAME@");
    @CLASS@Plugin p(json::object{{"scheduleTimeoutSeconds", 30}}, ctx);
    BOOST_TEST(p.timeoutSeconds(Info(info(1))) == 30);
    BOOST_TEST(p.timeoutSeconds(Info(info(1, json::object{{"scheduleTimeoutSeconds", 90}}))) == 90);
}

BOOST_AUTO_TEST_CASE(a_negative_runtime_timeout_is_refused_with_its_path) {
    testing::Host host;
    auto ctx = host.context("@NAME@");
    @CLASS@Plugin p(json::object{}, ctx);
    p.validate(Info(info(1, json::object{{"scheduleTimeoutSeconds", -1}})), ctx);
    BOOST_REQUIRE_EQUAL(host.errors().size(), 1u);
    BOOST_TEST(host.errors()[0].path == "spec.podGroupPolicy.@NAME@.scheduleTimeoutSeconds");
    BOOST_TEST(host.errors()[0].message == "Invalid value: -1: must be 0 or more");
    host.clear();
    p.validate(Info(info(1, json::object{{"scheduleTimeoutSeconds", 0}})), ctx);
    BOOST_TEST(host.errors().empty());
}

BOOST_AUTO_TEST_CASE(a_bad_pod_count_is_reported) {
    testing::Host host;
    auto ctx = host.context("@NAME@");
    @CLASS@Plugin p(json::object{}, ctx);
    Edits edits(ctx);
    p.enforcePodGroupPolicy(Info(info(-1)), edits, ctx);
    BOOST_REQUIRE_EQUAL(host.errors().size(), 1u);
    BOOST_TEST(host.errors()[0].path == "podSets[node].count");
    BOOST_TEST(host.emitted.empty());
}

// ---- The plugin on the operator's real host (<trainer/testing/real_host.hpp>) ----

namespace {
// @NAME@.yaml's runtime (with 2 nodes) and a TrainJob on it, as JSON.
json::object runtime(json::object policy = {}) {
    auto rt = json::parse(R"({"apiVersion":"trainer.kubeflow.org/v1alpha1","kind":"ClusterTrainingRuntime",
      "metadata":{"name":"@NAME@-runtime"},
      "spec":{"mlPolicy":{"numNodes":2},
        "template":{"spec":{"replicatedJobs":[{"name":"node",
          "template":{"metadata":{"labels":{"trainer.kubeflow.org/trainjob-ancestor-step":"trainer"}},
            "spec":{"template":{"spec":{"containers":[{"name":"node","image":"busybox",
              "command":["sh","-c","env"]}]}}}}}]}}}})")
                  .as_object();
    rt["spec"].as_object()["podGroupPolicy"] = json::object{{"@NAME@", std::move(policy)}};
    return rt;
}
json::object trainJob() {
    return json::object{{"apiVersion", "trainer.kubeflow.org/v1alpha1"},
                        {"kind", "TrainJob"},
                        {"metadata", json::object{{"name", "@NAME@-example"}, {"namespace", "default"}}},
                        {"spec", json::object{{"runtimeRef", json::object{{"name", "@NAME@-runtime"}}}}}};
}
}  // namespace

// The Info the operator builds, after the plugin's edits as the operator applies them.
BOOST_AUTO_TEST_CASE(the_resulting_info_on_the_real_host) {
    auto built = testing::buildInfo(trainJob(), runtime());
    BOOST_TEST_REQUIRE(built.ok(), built.describe());
    testing::RealHost host;
    BOOST_TEST_REQUIRE(host.add<@CLASS@Plugin>(json::object{{"scheduleTimeoutSeconds", 120}}));
    auto out = host.run(testing::Hook::EnforcePodGroupPolicy, built.info);
    BOOST_TEST_REQUIRE(out.ok(), out.describe());
    auto const& scheduler = out.info.at("scheduler");
    BOOST_TEST(scheduler.at("podLabels").at("@NAME@.example.com/pod-group").as_string() == "@NAME@-example");
    BOOST_TEST(scheduler.at("podAnnotations").at("@NAME@.example.com/min-member").as_string() == "2");
    BOOST_TEST(scheduler.at("podAnnotations").at("@NAME@.example.com/schedule-timeout-seconds").as_string() == "120");
}

// Admission as the webhook runs it: the runtime from the cluster, then the plugin's validation.
BOOST_AUTO_TEST_CASE(admission_on_the_real_host) {
    testing::RealHost host;
    BOOST_TEST_REQUIRE(host.add<@CLASS@Plugin>());
    host.addObject(runtime());
    BOOST_TEST(host.admit(trainJob()).ok());

    testing::RealHost refusing;
    BOOST_TEST_REQUIRE(refusing.add<@CLASS@Plugin>());
    refusing.addObject(runtime(json::object{{"scheduleTimeoutSeconds", -5}}));
    auto refused = refusing.admit(trainJob());
    BOOST_REQUIRE_EQUAL(refused.errors().size(), 1u);
    BOOST_TEST(refused.errors()[0].path == "spec.podGroupPolicy.@NAME@.scheduleTimeoutSeconds");
}
)TPL";

constexpr std::string_view kCaseGang = R"TPL(# @NAME@ beside the shipped plugins: the default ML policy applies numNodes, @NAME@ puts the
# gang on every pod, the shipped jobset plugin builds the JobSet with them.
name: @NAME@ labels and annotates every pod with a gang of 3
stage: build
trainJob:
  apiVersion: trainer.kubeflow.org/v1alpha1
  kind: TrainJob
  metadata: {name: @NAME@-example, namespace: default}
  spec:
    runtimeRef: {name: @NAME@-runtime}
    trainer: {numNodes: 3}
runtimes:
  - apiVersion: trainer.kubeflow.org/v1alpha1
    kind: ClusterTrainingRuntime
    metadata: {name: @NAME@-runtime}
    spec:
      mlPolicy: {numNodes: 1}
      podGroupPolicy: {@NAME@: {scheduleTimeoutSeconds: 120}}
      template:
        spec:
          replicatedJobs:
            - name: node
              template:
                metadata:
                  labels: {trainer.kubeflow.org/trainjob-ancestor-step: trainer}
                spec:
                  template:
                    spec:
                      containers: [{name: node, image: busybox, command: [sh, -c, env]}]
expectedObjects:
  - apiVersion: jobset.x-k8s.io/v1alpha2
    kind: JobSet
    metadata: {name: @NAME@-example, namespace: default}
    spec:
      replicatedJobs:
        - name: node
          template:
            spec:
              parallelism: 3
              template:
                metadata:
                  labels: {@NAME@.example.com/pod-group: @NAME@-example}
                  annotations:
                    @NAME@.example.com/min-member: "3"
                    @NAME@.example.com/schedule-timeout-seconds: "120"
)TPL";

constexpr std::string_view kCaseBadTimeout = R"TPL(# The plugin's CustomValidation refuses a runtime with a negative timeout.
name: a negative scheduleTimeoutSeconds is refused with its field path
stage: admission
trainJob:
  apiVersion: trainer.kubeflow.org/v1alpha1
  kind: TrainJob
  metadata: {name: @NAME@-example, namespace: default}
  spec:
    runtimeRef: {name: @NAME@-runtime}
runtimes:
  - apiVersion: trainer.kubeflow.org/v1alpha1
    kind: ClusterTrainingRuntime
    metadata: {name: @NAME@-runtime}
    spec:
      mlPolicy: {numNodes: 1}
      podGroupPolicy: {@NAME@: {scheduleTimeoutSeconds: -5}}
      template:
        spec:
          replicatedJobs:
            - name: node
              template:
                metadata:
                  labels: {trainer.kubeflow.org/trainjob-ancestor-step: trainer}
                spec:
                  template:
                    spec:
                      containers: [{name: node, image: busybox, command: [sh, -c, env]}]
expectedErrors:
  - field: spec.podGroupPolicy.@NAME@.scheduleTimeoutSeconds
    message: "Invalid value: -5: must be 0 or more"
)TPL";

constexpr std::string_view kExample = R"TPL(# A runtime gang-scheduled by the @NAME@ pod-group policy and a TrainJob on it:
#   trainer-operator render -f @NAME@.yaml       (with @NAME@.so installed or in --plugin-dir)
apiVersion: trainer.kubeflow.org/v1alpha1
kind: ClusterTrainingRuntime
metadata:
  name: @NAME@-runtime
spec:
  mlPolicy:
    numNodes: 1
  podGroupPolicy:
    @NAME@:
      scheduleTimeoutSeconds: 120
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
                      image: busybox
                      command: [sh, -c, env]
---
apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata:
  name: @NAME@-example
  namespace: default
spec:
  runtimeRef:
    name: @NAME@-runtime
  trainer:
    numNodes: 2
)TPL";

constexpr std::array<TemplateFile, 6> kFiles{{
    {"@NAME@.hpp", kHeader},
    {"@NAME@.cpp", kSource},
    {"test/@NAME@_test.cpp", kTest},
    {"cases/@NAME@-gang-labels.yaml", kCaseGang},
    {"cases/@NAME@-bad-timeout.yaml", kCaseBadTimeout},
    {"@NAME@.yaml", kExample},
}};

}  // namespace

std::span<const TemplateFile> podGroupFiles() { return kFiles; }

}  // namespace trainer::core::cli::scaffold
