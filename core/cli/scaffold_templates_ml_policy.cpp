// `new-plugin --kind ml-policy`: an ML policy under mlPolicy.<name> that sets <NAME>_* env vars
// on the trainer's node container (placeholders: scaffold.hpp).
#include "core/cli/scaffold.hpp"

#include <array>

namespace trainer::core::cli::scaffold {
namespace {

constexpr std::string_view kHeader = R"TPL(// @NAME@: an ML policy. A runtime with `mlPolicy.@NAME@` makes every trainer node find the
// first one through @ENV_PREFIX@_* env vars:
//
//   @ENV_PREFIX@_NUM_NODES    the number of trainer nodes (the TrainJob's numNodes)
//   @ENV_PREFIX@_NODE_RANK    this node's rank (its Job completion index)
//   @ENV_PREFIX@_MASTER_ADDR  the DNS name of rank 0
//   @ENV_PREFIX@_MASTER_PORT  `mlPolicy.@NAME@.port` of the runtime, else the configured port
#pragma once

#include <trainer/plugin.hpp>
#include <trainer/pod_dns.hpp>
#include <trainer/policy.hpp>

#include <cstdint>

namespace @IDENT@_plugin {

using namespace trainer::sdk;

inline constexpr int64_t kDefaultPort = 29500;

class @CLASS@Plugin : public Plugin, public CustomValidation, public EnforceMLPolicy {
public:
    // The operator's configuration of the plugin: {"port": N} (optional).
    @CLASS@Plugin(const json::object& config, Context& ctx);
    static PluginMeta meta();

    // Refuses a runtime whose `mlPolicy.@NAME@.port` is out of range. (A TrainJob setting an
    // @ENV_PREFIX@_* env var is refused by the host: the plugin claims them.)
    void validate(const Info& info, Context& ctx) override;
    // Applies the TrainJob's numNodes and sets the @ENV_PREFIX@_* env vars.
    void enforceMLPolicy(const Info& info, Edits& edits, Context& ctx) override;

    // The port in force: the runtime's `mlPolicy.@NAME@.port`, else the configured one.
    int64_t port(const Info& info) const;

private:
    int64_t port_ = kDefaultPort;
};

}  // namespace @IDENT@_plugin
)TPL";

constexpr std::string_view kSource = R"TPL(#include "@NAME@.hpp"

#include <optional>
#include <string>

namespace @IDENT@_plugin {

namespace {
bool validPort(int64_t p) { return p >= 1 && p <= 65535; }
}  // namespace

@CLASS@Plugin::@CLASS@Plugin(const json::object& config, Context& ctx) {
    if (auto p = getInt(config, "port")) {
        if (!validPort(*p)) ctx.error("port", "must be between 1 and 65535");
        port_ = *p;
    }
}

PluginMeta @CLASS@Plugin::meta() {
    return {.name = "@NAME@",
            .version = "0.1.0",
            .description = "@NAME@ ML policy (mlPolicy.@NAME@): @ENV_PREFIX@_* env vars on the trainer nodes",
            .priority = 100,
            // The policy key, every env var named @ENV_PREFIX@_*, and how the host words the
            // refusal of a TrainJob setting one of them (sdk/docs/abi.md rule 12).
            .claims = {"mlPolicy.@NAME@", "env:@ENV_PREFIX@_*", "envRefusal:{name} is reserved for the @NAME@ policy"}};
}

int64_t @CLASS@Plugin::port(const Info& info) const {
    const json::object* policy = mlPolicyConfig(info, "@NAME@");
    return policy ? getInt(*policy, "port").value_or(port_) : port_;
}

void @CLASS@Plugin::validate(const Info& info, Context& ctx) {
    // The runtime's policy block is checked when a TrainJob using it is admitted; the path names
    // the runtime's field.
    const json::object* policy = mlPolicyConfig(info, "@NAME@");
    if (auto p = policy ? getInt(*policy, "port") : std::nullopt; p && !validPort(*p))
        ctx.error("spec.mlPolicy.@NAME@.port",
                  "Invalid value: " + std::to_string(*p) + ": must be between 1 and 65535");
}

void @CLASS@Plugin::enforceMLPolicy(const Info& info, Edits& edits, Context& ctx) {
    // The ML policy in force applies the TrainJob's numNodes (sdk/docs/info.md "Conventions").
    auto nodes = applyTrainerNumNodes(info, edits);
    if (!nodes) {
        ctx.error("spec.template.spec.replicatedJobs", "a replicated job with ancestor label trainer is required");
        return;
    }
    if (!Info::container(*nodes->podSet, "node")) return;
    const std::string& podSet = nodes->name;
    edits.upsertEnv(podSet, "node", "@ENV_PREFIX@_NUM_NODES", std::to_string(nodes->count));
    edits.upsertEnv(podSet, "node", completionIndexEnv("@ENV_PREFIX@_NODE_RANK"));
    edits.upsertEnv(podSet, "node", "@ENV_PREFIX@_MASTER_ADDR", trainerPodDnsName(info));
    edits.upsertEnv(podSet, "node", "@ENV_PREFIX@_MASTER_PORT", std::to_string(port(info)));
    ctx.debug("@NAME@ env set for " + std::string(info.name()));
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
// A minimal Info document (sdk/docs/info.md) with the given spec.trainer and mlPolicy.@NAME@.
json::object info(json::object trainer, json::object policy = {}) {
    auto o = json::parse(R"({"infoVersion":1,
      "trainJob":{"apiVersion":"trainer.kubeflow.org/v1alpha1","kind":"TrainJob",
                  "metadata":{"name":"job","namespace":"ns","uid":"u"},"spec":{}},
      "podSets":[{"name":"node","ancestor":"trainer","count":1,
                  "containers":[{"name":"node","env":[],"ports":[],"volumeMounts":[]}]}]})")
                 .as_object();
    o["trainJob"].as_object()["spec"].as_object()["trainer"] = std::move(trainer);
    o["runtimePolicy"] = json::object{{"mlPolicy", json::object{{"@NAME@", std::move(policy)}}}};
    return o;
}

std::map<std::string, json::value> editsByPath(const testing::Host& host) {
    std::map<std::string, json::value> byPath;
    for (auto const& e : host.emitted) byPath[std::string(e.at("path").as_string())] = e.at("value");
    return byPath;
}

std::string envEdit(const std::map<std::string, json::value>& byPath, const std::string& name) {
    return std::string(byPath.at("/podSets/node/containers/node/env/" + name).at("value").as_string());
}
}  // namespace

BOOST_AUTO_TEST_CASE(sets_the_env_and_the_node_count) {
    testing::Host host;
    auto ctx = host.context("@NAME@");
    @CLASS@Plugin p(json::object{}, ctx);
    Edits edits(ctx);
    p.enforceMLPolicy(Info(info(json::object{{"numNodes", 3}})), edits, ctx);
    BOOST_TEST(host.errors().empty());
    auto byPath = editsByPath(host);
    BOOST_TEST(byPath.at("/podSets/node/count").as_int64() == 3);
    BOOST_TEST(envEdit(byPath, "@ENV_PREFIX@_NUM_NODES") == "3");
    BOOST_TEST(envEdit(byPath, "@ENV_PREFIX@_MASTER_ADDR") == "job-node-0-0.job");
    BOOST_TEST(envEdit(byPath, "@ENV_PREFIX@_MASTER_PORT") == "29500");
}

BOOST_AUTO_TEST_CASE(the_runtime_port_wins_over_the_configured_one) {
    testing::Host host;
    auto ctx = host.context("@NAME@");
    @CLASS@Plugin p(json::object{{"port", 4000}}, ctx);
    BOOST_TEST(p.port(Info(info(json::object{}))) == 4000);
    BOOST_TEST(p.port(Info(info(json::object{}, json::object{{"port", 5000}}))) == 5000);
}

BOOST_AUTO_TEST_CASE(a_bad_runtime_port_is_refused_with_its_path) {
    testing::Host host;
    auto ctx = host.context("@NAME@");
    @CLASS@Plugin p(json::object{}, ctx);
    p.validate(Info(info(json::object{}, json::object{{"port", 0}})), ctx);
    BOOST_REQUIRE_EQUAL(host.errors().size(), 1u);
    BOOST_TEST(host.errors()[0].path == "spec.mlPolicy.@NAME@.port");
    BOOST_TEST(host.errors()[0].message == "Invalid value: 0: must be between 1 and 65535");
    host.clear();
    p.validate(Info(info(json::object{}, json::object{{"port", 65535}})), ctx);
    BOOST_TEST(host.errors().empty());
}

BOOST_AUTO_TEST_CASE(a_bad_configured_port_is_refused) {
    testing::Host host;
    auto ctx = host.context("@NAME@");
    @CLASS@Plugin p(json::object{{"port", 70000}}, ctx);
    BOOST_TEST(ctx.failed());
    BOOST_TEST(host.errors()[0].path == "port");
}

// ---- The plugin on the operator's real host (<trainer/testing/real_host.hpp>) ----

namespace {
// @NAME@.yaml's runtime and TrainJob, as JSON.
json::object runtime() {
    return json::parse(R"({"apiVersion":"trainer.kubeflow.org/v1alpha1","kind":"ClusterTrainingRuntime",
      "metadata":{"name":"@NAME@-runtime"},
      "spec":{"mlPolicy":{"numNodes":1,"@NAME@":{}},
        "template":{"spec":{"replicatedJobs":[{"name":"node",
          "template":{"metadata":{"labels":{"trainer.kubeflow.org/trainjob-ancestor-step":"trainer"}},
            "spec":{"template":{"spec":{"containers":[{"name":"node","image":"busybox",
              "command":["sh","-c","env"]}]}}}}}]}}}})")
        .as_object();
}
json::object trainJob(json::object trainer) {
    return json::object{{"apiVersion", "trainer.kubeflow.org/v1alpha1"},
                        {"kind", "TrainJob"},
                        {"metadata", json::object{{"name", "@NAME@-example"}, {"namespace", "default"}}},
                        {"spec", json::object{{"runtimeRef", json::object{{"name", "@NAME@-runtime"}}},
                                              {"trainer", std::move(trainer)}}}};
}
}  // namespace

// The Info the operator builds, after the plugin's edits as the operator applies them.
BOOST_AUTO_TEST_CASE(the_resulting_info_on_the_real_host) {
    auto built = testing::buildInfo(trainJob(json::object{{"numNodes", 3}}), runtime());
    BOOST_TEST_REQUIRE(built.ok(), built.describe());
    testing::RealHost host;
    BOOST_TEST_REQUIRE(host.add<@CLASS@Plugin>(json::object{{"port", 1234}}));
    auto out = host.run(testing::Hook::EnforceMLPolicy, built.info);
    BOOST_TEST_REQUIRE(out.ok(), out.describe());
    BOOST_TEST(out.info.at("podSets").at(0).at("count").as_int64() == 3);
    auto* node = testing::podSetContainer(out.info, "node", "node");
    BOOST_TEST_REQUIRE(node);
    BOOST_TEST(testing::envValue(*node, "@ENV_PREFIX@_NUM_NODES") == "3");
    BOOST_TEST(testing::envValue(*node, "@ENV_PREFIX@_MASTER_ADDR") == "@NAME@-example-node-0-0.@NAME@-example");
    BOOST_TEST(testing::envValue(*node, "@ENV_PREFIX@_MASTER_PORT") == "1234");
    BOOST_TEST(testing::envValue(*node, "@ENV_PREFIX@_NODE_RANK") == "<valueFrom>");
}

// Admission as the webhook runs it: the runtime from the cluster, then the plugin's validation
// and the host's refusal of a claimed env var.
BOOST_AUTO_TEST_CASE(admission_on_the_real_host) {
    testing::RealHost host;
    BOOST_TEST_REQUIRE(host.add<@CLASS@Plugin>());
    host.addObject(runtime());
    BOOST_TEST(host.admit(trainJob(json::object{{"numNodes", 2}})).ok());
    auto refused = host.admit(trainJob(
        json::object{{"env", json::array{json::object{{"name", "@ENV_PREFIX@_NUM_NODES"}, {"value", "9"}}}}}));
    BOOST_REQUIRE_EQUAL(refused.errors().size(), 1u);
    BOOST_TEST(refused.errors()[0].path == "spec.trainer.env[0]");
    BOOST_TEST(refused.errors()[0].message == "@ENV_PREFIX@_NUM_NODES is reserved for the @NAME@ policy");
}
)TPL";

constexpr std::string_view kCaseEnv = R"TPL(# @NAME@ beside the shipped plugins: it sets the env and the node count, the shipped jobset
# plugin builds the JobSet around it.
name: @NAME@ sets @ENV_PREFIX@_* on the trainer and the JobSet runs 2 nodes
stage: build
trainJob:
  apiVersion: trainer.kubeflow.org/v1alpha1
  kind: TrainJob
  metadata: {name: @NAME@-example, namespace: default}
  spec:
    runtimeRef: {name: @NAME@-runtime}
    trainer: {numNodes: 2}
runtimes:
  - apiVersion: trainer.kubeflow.org/v1alpha1
    kind: ClusterTrainingRuntime
    metadata: {name: @NAME@-runtime}
    spec:
      mlPolicy: {numNodes: 1, @NAME@: {}}
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
              parallelism: 2
              completions: 2
              template:
                spec:
                  containers:
                    - name: node
                      env:
                        - {name: @ENV_PREFIX@_NUM_NODES, value: "2"}
                        - {name: @ENV_PREFIX@_NODE_RANK, valueFrom: <any>}
                        - {name: @ENV_PREFIX@_MASTER_ADDR, value: @NAME@-example-node-0-0.@NAME@-example}
                        - {name: @ENV_PREFIX@_MASTER_PORT, value: "29500"}
)TPL";

constexpr std::string_view kCaseReservedEnv = R"TPL(# The host refuses a TrainJob setting an env var @NAME@ claims (env:@ENV_PREFIX@_*), worded by
# its envRefusal: claim.
name: a TrainJob may not set the env @NAME@ owns
stage: admission
trainJob:
  apiVersion: trainer.kubeflow.org/v1alpha1
  kind: TrainJob
  metadata: {name: @NAME@-example, namespace: default}
  spec:
    runtimeRef: {name: @NAME@-runtime}
    trainer:
      env: [{name: @ENV_PREFIX@_NUM_NODES, value: "9"}]
runtimes:
  - apiVersion: trainer.kubeflow.org/v1alpha1
    kind: ClusterTrainingRuntime
    metadata: {name: @NAME@-runtime}
    spec:
      mlPolicy: {numNodes: 1, @NAME@: {}}
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
  - field: spec.trainer.env[0]
    message: @ENV_PREFIX@_NUM_NODES is reserved for the @NAME@ policy
)TPL";

constexpr std::string_view kCaseBadPort = R"TPL(# The plugin's CustomValidation refuses a runtime whose mlPolicy.@NAME@.port is out of range.
name: a runtime port out of range is refused with its field path
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
      mlPolicy: {numNodes: 1, @NAME@: {port: 70000}}
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
  - field: spec.mlPolicy.@NAME@.port
    message: "Invalid value: 70000: must be between 1 and 65535"
)TPL";

constexpr std::string_view kExample = R"TPL(# A runtime using the @NAME@ ML policy and a TrainJob on it:
#   trainer-operator render -f @NAME@.yaml       (with @NAME@.so installed or in --plugin-dir)
apiVersion: trainer.kubeflow.org/v1alpha1
kind: ClusterTrainingRuntime
metadata:
  name: @NAME@-runtime
spec:
  mlPolicy:
    numNodes: 1
    @NAME@:
      port: 29500
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

constexpr std::array<TemplateFile, 7> kFiles{{
    {"@NAME@.hpp", kHeader},
    {"@NAME@.cpp", kSource},
    {"test/@NAME@_test.cpp", kTest},
    {"cases/@NAME@-sets-env.yaml", kCaseEnv},
    {"cases/@NAME@-reserved-env.yaml", kCaseReservedEnv},
    {"cases/@NAME@-bad-port.yaml", kCaseBadPort},
    {"@NAME@.yaml", kExample},
}};

}  // namespace

std::span<const TemplateFile> mlPolicyFiles() { return kFiles; }

}  // namespace trainer::core::cli::scaffold
