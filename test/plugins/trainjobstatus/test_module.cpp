// The built trainjobstatus.so as the operator loads it: its descriptor through the C ABI, and
// the operator's registry and pipeline (TrainerSDK::testing) deciding by the feature gates
// whether it runs.
#include <boost/test/unit_test.hpp>

#include "support.hpp"

#include <cstdlib>
#include <filesystem>
#include <set>

namespace fs = std::filesystem;
using namespace tjstest;
using sdk::testing::RealHost;

namespace {

// The module loaded by the operator's registry (TrainerSDK::testing), with the webhook Secret in
// `secretNamespace` in the cluster.
struct Loaded {
    RealHost host;
    explicit Loaded(std::string_view secretNamespace = "kubeflow-system") {
        BOOST_TEST_REQUIRE(host.addFile(TJS_MODULE_PATH), (host.rejected().empty() ? std::string() : host.rejected()[0].reason));
        host.addObject(webhookSecret(json::object{{"ca.crt", "dGVzdC1jYS1jZXJ0LWRhdGE="}}, secretNamespace));
    }
};

json::object trainerInfo() {
    return makeInfo(json::array{podSet("node", "trainer", 1, json::array{container("node")})}, nullptr);
}

}  // namespace

BOOST_AUTO_TEST_SUITE(module)

BOOST_AUTO_TEST_CASE(descriptor) {
    sdk::testing::Host host;
    std::string error;
    const trn_plugin_descriptor* d = host.load(TJS_MODULE_PATH, error);
    BOOST_TEST_REQUIRE(d != nullptr, error);
    BOOST_TEST(std::string(d->name) == "trainjobstatus");
    BOOST_TEST((d->flags & TRN_PLUGIN_THREAD_SAFE) != 0u);
    std::set<std::string> claims(d->claims, d->claims + d->claim_count);
    std::set<std::string> want{"featureGate:TrainJobStatus", "env:KUBEFLOW_TRAINER_SERVER_URL",
                               "env:KUBEFLOW_TRAINER_SERVER_CA_CERT", "env:KUBEFLOW_TRAINER_SERVER_TOKEN",
                               "volume:kubeflow-trainer-token"};
    BOOST_TEST(claims == want, boost::test_tools::per_element());
    BOOST_TEST(d->enforce_pod_spec != nullptr);
    BOOST_TEST(d->component_builder != nullptr);
    BOOST_TEST(d->custom_validation == nullptr);
    BOOST_TEST(d->enforce_ml_policy == nullptr);
    BOOST_TEST(d->enforce_pod_group_policy == nullptr);
    BOOST_TEST(d->pre_component_builder == nullptr);
    BOOST_TEST(d->trainjob_status == nullptr);
    BOOST_TEST_REQUIRE(d->watch_extension != nullptr);
    BOOST_TEST_REQUIRE(d->watch_extension->watch_count == 1u);
    BOOST_TEST(std::string(d->watch_extension->watches[0]->kind) == "ConfigMap");
    BOOST_TEST(d->watch_extension->watches[0]->mode == TRN_WATCH_OWNED);
    trn_instance* inst = d->create(host.call(), sdk::toAbi("{}"));
    BOOST_TEST_REQUIRE(inst != nullptr);
    // Bad input never crashes: one error naming the plugin.
    BOOST_TEST(d->enforce_pod_spec->enforce(inst, host.call(), sdk::toAbi("not json")) == TRN_ERROR);
    BOOST_REQUIRE_EQUAL(host.errors().size(), 1u);
    BOOST_TEST(host.errors()[0].message.find("trainjobstatus") != std::string::npos);
    d->destroy(inst);
}

BOOST_AUTO_TEST_CASE(module_only_exports_entry) {
    std::string cmd = "nm -D --defined-only " + std::string(TJS_MODULE_PATH) +
                      " | grep -v ' A ' | grep -v ' trn_plugin_entry$' | grep -q .";
    BOOST_TEST(std::system(cmd.c_str()) != 0, "extra exported symbols in " TJS_MODULE_PATH);
}

// Gate off (the default): the plugin is loaded but inactive; nothing changes, nothing is built.
BOOST_AUTO_TEST_CASE(gate_off_through_the_framework) {
    for (bool setOff : {false, true}) {
        Loaded l;
        if (setOff) BOOST_TEST(l.host.setFeatureGate("TrainJobStatus", false));
        auto r = l.host.build(trainerInfo());
        BOOST_TEST(r.ok(), r.describe());
        BOOST_TEST(r.objects.empty());
        BOOST_TEST(r.info.at("operator").at("featureGates").at("TrainJobStatus") == false);
        auto const& c = r.info.at("podSets").as_array()[0].at("containers").as_array()[0].as_object();
        BOOST_TEST(c.at("env").as_array().empty());
        BOOST_TEST(r.info.at("podSets").as_array()[0].at("volumes").as_array().empty());
    }
}

// Gate on: the env, mount, volume and ConfigMap, with the operator's identity from the settings.
BOOST_AUTO_TEST_CASE(gate_on_through_the_framework) {
    Loaded l("trainer-ops");
    BOOST_TEST(l.host.setFeatureGate("TrainJobStatus", true));
    sdk::testing::OperatorIdentity op;
    op.ns = "trainer-ops";
    op.statusServerPort = 9443;
    l.host.setOperator(op);
    auto r = l.host.build(trainerInfo());
    BOOST_TEST_REQUIRE(r.ok(), r.describe());
    auto const& c = r.info.at("podSets").as_array()[0].at("containers").as_array()[0].as_object();
    BOOST_REQUIRE_EQUAL(c.at("env").as_array().size(), 3u);
    BOOST_TEST(c.at("env").as_array()[0].at("value").as_string() ==
               "https://kubeflow-trainer-controller-manager.trainer-ops.svc:9443/apis/trainer.kubeflow.org/v1alpha1/"
               "namespaces/default/trainjobs/test-job/status");
    BOOST_TEST(r.info.at("podSets").as_array()[0].at("volumes").as_array().size() == 1u);
    BOOST_REQUIRE_EQUAL(r.objects.size(), 1u);
    BOOST_TEST(r.objects[0].at("metadata").at("name").as_string() == "test-job-tls-config");
    BOOST_TEST(r.objects[0].at("data").at("ca.crt").as_string() == "test-ca-cert-data");
    // Without the Secret (here in another namespace) the build fails with upstream's message,
    // and emits nothing.
    Loaded other;
    BOOST_TEST(other.host.setFeatureGate("TrainJobStatus", true));
    other.host.setOperator(op);
    auto missing = other.host.build(trainerInfo());
    BOOST_REQUIRE_EQUAL(missing.errors().size(), 1u);
    BOOST_TEST(missing.errors()[0].message ==
               "failed to look up status server tls secret: secrets \"kubeflow-trainer-webhook-cert\" not found");
    BOOST_TEST(missing.objects.empty());
}

BOOST_AUTO_TEST_SUITE_END()
