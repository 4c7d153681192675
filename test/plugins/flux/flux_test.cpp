#define BOOST_TEST_MODULE flux_plugin_test
// The plugin's hooks, ported from upstream flux_test.go (TestFlux, TestValidate,
// TestDeterministicCurve/TestBuildCurveSecret as "generated once") plus the cases upstream
// does not cover (no spec.trainer, GPUs, args, numNodes from the runtime).
#include <boost/test/unit_test.hpp>

#include "../../support/plugin_test.hpp"

#include "flux.hpp"
#include "flux_test_kit.hpp"

namespace flux = trainer::plugins::flux;
namespace sdk = trainer::sdk;
namespace json = boost::json;
using sdk::testing::Host;
using sdk::testing::Hook;
using sdk::testing::Outcome;
using trainer::test::container;
using trainer::test::makeRuntime;

namespace {

json::object fluxRuntime(json::object node = {{"name", "node"}}, int64_t numProcPerNode = 1, int64_t numNodes = 1) {
    return makeRuntime(json::object{{"numNodes", numNodes}, {"flux", json::object{{"numProcPerNode", numProcPerNode}}}},
                       node);
}

// flux_test.go's TrainJob: default/test-job, uid test-uid.
json::object testJob(const json::value& trainerSpec) {
    auto tj = trainer::test::makeTrainJob(trainerSpec);
    tj["metadata"].as_object()["uid"] = "test-uid";
    return tj;
}

json::object infoFor(const json::object& runtime, const json::object& trainJob) {
    return trainer::test::infoFor(trainJob, runtime);
}

// The flux plugin on the real host, with `cluster` as what its lookups find.
struct FluxHost {
    sdk::testing::RealHost host;
    explicit FluxHost(const std::vector<json::object>& cluster = {}) {
        BOOST_TEST_REQUIRE(host.add<flux::FluxPlugin>());
        for (auto const& o : cluster) host.addObject(o);
    }
    Outcome enforce(const json::object& info) const { return host.run(Hook::EnforceMLPolicy, info); }
    Outcome build(const json::object& info) const { return host.run(Hook::ComponentBuilder, info); }
};

const json::object& byKind(const std::vector<json::object>& objs, std::string_view kind) {
    for (auto const& o : objs)
        if (o.at("kind").as_string() == kind) return o;
    throw std::runtime_error("no " + std::string(kind));
}

std::string certOf(const json::object& secret) {
    return fluxtest::base64Decode(secret.at("data").at("curve.cert").as_string());
}

json::value parse(std::string_view s) { return json::parse(s); }

}  // namespace

BOOST_AUTO_TEST_SUITE(flux_plugin)

// The host never calls flux there (its policy is not configured); flux checks anyway.
BOOST_AUTO_TEST_CASE(no_action_when_flux_policy_is_nil) {
    auto runtime = makeRuntime(json::object{{"numNodes", 1}}, json::object{{"name", "node"}});
    auto job = testJob(json::object{{"numNodes", 2}});
    BOOST_TEST(trainer::test::mlPolicyEdits<flux::FluxPlugin>(runtime, job).empty());
    Host host;
    auto ctx = host.context("flux");
    flux::FluxPlugin p(json::object{}, ctx);
    auto info = infoFor(runtime, job);
    sdk::Objects objects(ctx);
    p.build(sdk::Info(info), objects, ctx);
    p.validate(sdk::Info(info), ctx);
    BOOST_TEST(host.emitted.empty());
    BOOST_TEST(host.diagnostics.empty());
}

BOOST_AUTO_TEST_CASE(flux_mutations_are_applied_correctly) {
    FluxHost flux;
    auto enforced = flux.enforce(infoFor(fluxRuntime(), testJob(json::object{{"numNodes", 2}})));
    BOOST_TEST_REQUIRE(enforced.ok(), enforced.describe());
    const auto& out = enforced.info;

    // flux_test.go wantInfo, field for field.
    const auto& ps = *sdk::findByKey(sdk::getArray(out, "podSets"), "name", "node");
    BOOST_TEST(ps.at("initContainers") == parse(R"([{"name":"flux-installer",
        "image":"ghcr.io/converged-computing/flux-view-ubuntu:tag-jammy",
        "command":["/bin/bash","/etc/flux-config/init.sh"],
        "volumeMounts":[{"name":"flux-install","mountPath":"/mnt/flux"},
                        {"name":"test-job-flux-entrypoint","mountPath":"/etc/flux-config","readOnly":true}]}])"));
    BOOST_TEST(container(out, "node", "node").at("volumeMounts") == parse(R"([
        {"name":"flux-install","mountPath":"/mnt/flux"},
        {"name":"spack-install","mountPath":"/opt/software"},
        {"name":"test-job-flux-entrypoint","mountPath":"/etc/flux-config","readOnly":true},
        {"name":"flux-curve","mountPath":"/curve","readOnly":true},
        {"name":"shared-memory","mountPath":"/dev/shm","readOnly":true}])"));
    BOOST_TEST(ps.at("volumes") == parse(R"([
        {"name":"spack-install","emptyDir":{}},
        {"name":"flux-install","emptyDir":{}},
        {"name":"test-job-flux-entrypoint","configMap":{"name":"test-job-flux-entrypoint","defaultMode":493}},
        {"name":"shared-memory","emptyDir":{"medium":"Memory"}},
        {"name":"flux-curve","secret":{"secretName":"test-job-flux-curve","defaultMode":256}}])"));
    // The trainer command is wrapped (nothing to wrap here: ""), args cleared.
    BOOST_TEST(out.at("trainJob").at("spec").at("trainer").at("command") ==
               parse(R"(["/bin/bash","/etc/flux-config/entrypoint.sh",""])"));
    // PlainML's part, which upstream's PlainML plugin does beside flux: count = numNodes.
    BOOST_TEST(trainer::test::podSetCount(out, "node") == 2);

    // flux_test.go wantObjs: the ConfigMap and the Secret, owned by the TrainJob.
    auto built = flux.build(out);
    BOOST_TEST_REQUIRE(built.ok(), built.describe());
    const auto& objs = built.objects;
    BOOST_TEST_REQUIRE(objs.size() == 2u);
    const json::value owner = parse(R"([{"apiVersion":"trainer.kubeflow.org/v1alpha1","kind":"TrainJob",
        "name":"test-job","uid":"test-uid","controller":true,"blockOwnerDeletion":true}])");
    const auto& cm = byKind(objs, "ConfigMap");
    BOOST_TEST(cm.at("apiVersion") == "v1");
    BOOST_TEST(cm.at("metadata") == (json::object{{"name", "test-job-flux-entrypoint"}, {"namespace", "default"},
                                                  {"ownerReferences", owner}}));
    BOOST_TEST(cm.at("data").as_object().size() == 2u);
    BOOST_TEST(cm.at("data").at("entrypoint.sh").as_string().find("flags=\"-N 2 -n 2  \"") != std::string::npos);
    BOOST_TEST(cm.at("data").at("init.sh").as_string().find("hosts=\"test-job-node-0-[0-1]\"") != std::string::npos);
    const auto& secret = byKind(objs, "Secret");
    BOOST_TEST(secret.at("metadata") == (json::object{{"name", "test-job-flux-curve"}, {"namespace", "default"},
                                                      {"ownerReferences", owner}}));
    BOOST_TEST(secret.at("data").as_object().size() == 1u);
    auto fields = fluxtest::certFields(certOf(secret));
    BOOST_TEST(fields["name"] == "test-job");
    BOOST_TEST(fluxtest::checkKeyPair(certOf(secret)) == "");
}

BOOST_AUTO_TEST_CASE(validate_reserved_installer) {
    FluxHost flux;
    auto check = [&](const json::object& runtime) {
        return flux.host.run(Hook::CustomValidation, infoFor(runtime, testJob(json::object{}))).errors();
    };
    // flux_test.go TestValidate: nil policy, policy present, reserved init container.
    auto plain = makeRuntime(json::object{{"numNodes", 1}}, json::object{{"name", "node"}});
    BOOST_TEST(check(plain).empty());
    BOOST_TEST(check(fluxRuntime()).empty());
    auto reserved = fluxRuntime();
    auto& pod = reserved.at("spec").at("template").at("spec").at("replicatedJobs").at(0).at("template").at("spec").at(
        "template").at("spec").as_object();
    pod["initContainers"] = parse(R"([{"name":"flux-installer"}])");
    auto errs = check(reserved);
    BOOST_TEST_REQUIRE(errs.size() == 1u);
    BOOST_TEST(errs[0].path == "spec.trainer.initContainers");
    BOOST_TEST(errs[0].message == "InitContainer 'flux-installer' is reserved");
    // Without the flux policy the same runtime is not this plugin's business.
    auto noFlux = reserved;
    noFlux["spec"].as_object()["mlPolicy"] = json::object{{"numNodes", 1}};
    BOOST_TEST(check(noFlux).empty());
    // Enforce refuses too, before editing anything (upstream would append a duplicate).
    Host host;
    auto ctx = host.context("flux");
    flux::FluxPlugin p(json::object{}, ctx);
    sdk::Edits edits(ctx);
    p.enforceMLPolicy(sdk::Info(infoFor(reserved, testJob(json::object{}))), edits, ctx);
    BOOST_TEST(host.errors().size() == 1u);
    BOOST_TEST(host.emitted.empty());
    BOOST_TEST(flux.enforce(infoFor(reserved, testJob(json::object{}))).errors().size() == 1u);
}

BOOST_AUTO_TEST_CASE(curve_secret_is_generated_once) {
    auto info = infoFor(fluxRuntime(), testJob(json::object{{"numNodes", 2}}));
    FluxHost empty;
    const auto first = byKind(empty.build(info).objects, "Secret");
    // Another build without the Secret in the cluster: a new key (nothing derived from the uid).
    const auto fresh = byKind(empty.build(info).objects, "Secret");
    BOOST_TEST(certOf(fresh) != certOf(first));
    // With the Secret in the cluster: its data is re-emitted unchanged, build after build.
    json::object stored = first;
    stored["type"] = "Opaque";
    stored.at("data").as_object()["extra"] = "a2VlcA==";
    FluxHost withSecret({stored});
    for (int i = 0; i < 2; ++i) {
        auto out = withSecret.build(info);
        BOOST_TEST(out.ok(), out.describe());
        auto again = byKind(out.objects, "Secret");
        BOOST_TEST(again.at("data") == stored.at("data"));
        BOOST_TEST(again.at("metadata") == first.at("metadata"));
        BOOST_TEST(!again.contains("type"));
    }
    // A Secret without curve.cert is not silently replaced: an error, nothing emitted.
    stored.at("data").as_object().erase("curve.cert");
    auto broken = FluxHost({stored}).build(info);
    BOOST_TEST(broken.objects.empty());
    BOOST_TEST_REQUIRE(broken.errors().size() == 1u);
    BOOST_TEST(broken.errors()[0].message ==
               "Secret default/test-job-flux-curve exists without data.curve.cert; delete it to have a new CURVE "
               "certificate generated");
}

BOOST_AUTO_TEST_CASE(trainer_command_and_args) {
    json::object node{{"name", "node"}, {"command", json::array{"python", "train.py"}}, {"args", json::array{"--rt"}}};
    auto enforced = FluxHost().enforce(infoFor(fluxRuntime(node), testJob(json::object{{"args", json::array{"--epochs", "3"}}})));
    BOOST_TEST_REQUIRE(enforced.ok(), enforced.describe());
    const auto& out = enforced.info;
    const auto& trainer = out.at("trainJob").at("spec").at("trainer").as_object();
    BOOST_TEST(trainer.at("command") ==
               parse(R"(["/bin/bash","/etc/flux-config/entrypoint.sh","python train.py --epochs 3"])"));
    BOOST_TEST(!trainer.contains("args"));
    // The runtime container keeps its own args (upstream only clears the TrainJob's).
    BOOST_TEST(container(out, "node", "node").at("args") == parse(R"(["--rt"])"));
}

BOOST_AUTO_TEST_CASE(no_spec_trainer_does_not_crash) {
    // Upstream dereferences spec.trainer and panics. Here: the runtime command is wrapped
    // (spec.trainer is created in the TrainJob the later phases see) and the node count is the
    // runtime's numNodes.
    json::object node{{"name", "node"}, {"command", json::array{"lmp", "-in", "x"}}};
    FluxHost flux;
    auto info = infoFor(fluxRuntime(node, 1, 3), testJob(nullptr));
    auto enforced = flux.enforce(info);
    BOOST_TEST_REQUIRE(enforced.ok(), enforced.describe());
    BOOST_TEST(enforced.info.at("trainJob").at("spec").at("trainer").at("command") ==
               parse(R"(["/bin/bash","/etc/flux-config/entrypoint.sh","lmp -in x"])"));
    BOOST_TEST(trainer::test::podSetCount(enforced.info, "node") == 3);
    auto built = flux.build(enforced.info);
    BOOST_TEST_REQUIRE(built.ok(), built.describe());
    const auto& objs = built.objects;
    BOOST_TEST_REQUIRE(objs.size() == 2u);
    auto const& data = byKind(objs, "ConfigMap").at("data");
    BOOST_TEST(data.at("entrypoint.sh").as_string().find("flags=\"-N 3 -n 3  \"") != std::string::npos);
    BOOST_TEST(data.at("init.sh").as_string().find("hosts=\"test-job-node-0-[0-2]\"") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(tasks_gpus_and_settings_reach_the_scripts) {
    FluxHost flux;
    json::object node{{"name", "node"},
                      {"resources", parse(R"({"limits":{"nvidia.com/gpu":"2"}})")},
                      {"env", parse(R"([{"name":"FLUX_VIEW_IMAGE","value":"runtime/view:1"}])")}};
    // Policy numProcPerNode 3, runtime GPUs 2, TrainJob overrides the view image and queue.
    auto trainer = parse(R"({"numNodes":2,"env":[{"name":"FLUX_VIEW_IMAGE","value":"job/view:2"},
                                                 {"name":"FLUX_QUEUE_POLICY","value":"easy"}]})");
    auto enforced = flux.enforce(infoFor(fluxRuntime(node, 3), testJob(trainer)));
    BOOST_TEST_REQUIRE(enforced.ok(), enforced.describe());
    const auto& out = enforced.info;
    BOOST_TEST(container(out, "node", "flux-installer", true).at("image") == "job/view:2");
    // PlainML's part: the TrainJob env is upserted into the trainer container.
    BOOST_TEST(sdk::testing::envValue(container(out, "node", "node"), "FLUX_QUEUE_POLICY") == "easy");
    auto built = flux.build(out);
    BOOST_TEST_REQUIRE(built.ok(), built.describe());
    auto const& data = byKind(built.objects, "ConfigMap").at("data");
    std::string entry(data.at("entrypoint.sh").as_string());
    BOOST_TEST(entry.find("--cores=0-2 --gpu=0-1 > /tmp/R") != std::string::npos);
    BOOST_TEST(entry.find("flags=\"-N 2 -n 6 -g 2  \"") != std::string::npos);
    BOOST_TEST(data.at("init.sh").as_string().find("queue-policy = \"easy\"") != std::string::npos);
    // TrainJob numProcPerNode wins over the policy; resourcesPerNode replaces runtime resources.
    auto info2 = infoFor(
        fluxRuntime(node, 3),
        testJob(parse(R"({"numNodes":1,"numProcPerNode":1,"resourcesPerNode":{"requests":{"cpu":"1"}}})")));
    std::string entry2(byKind(flux.build(info2).objects, "ConfigMap").at("data").at("entrypoint.sh").as_string());
    BOOST_TEST(entry2.find("--hosts=${hosts} --cores=0 > /tmp/R") != std::string::npos);
    BOOST_TEST(entry2.find("flags=\"-N 1 -n 1  \"") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(configuration_keys_warn) {
    Host h;
    auto ctx = h.context("flux");
    flux::FluxPlugin p(json::object{{"x", 1}}, ctx);
    BOOST_TEST(h.warnings().size() == 1u);
    BOOST_TEST(h.errors().empty());
}

BOOST_AUTO_TEST_SUITE_END()
