// The built trainjobstatus.so as the operator loads it: its descriptor through the C ABI, and
// the real PluginRegistry + Framework deciding by the operator's feature gates whether it runs.
#include <boost/test/unit_test.hpp>

#include "core/plugin/framework.hpp"
#include "support.hpp"

#include <cstdlib>
#include <filesystem>
#include <set>

namespace fs = std::filesystem;
using namespace tjstest;
using trainer::core::Framework;
using trainer::core::ObjectSet;
using trainer::core::OperatorSettings;
using trainer::core::PluginRegistry;

namespace {

// The real registry with the module loaded.
struct Loaded {
    PluginRegistry registry;
    Loaded() {
        bool ok = registry.loadFile(TJS_MODULE_PATH);
        BOOST_TEST_REQUIRE(ok, (registry.rejected().empty() ? std::string() : registry.rejected()[0].reason));
    }
};

OperatorSettings settings(bool gateOn) {
    OperatorSettings s;
    s.featureGates = {{"TrainJobStatus", gateOn}};
    return s;
}

ObjectSet clusterWithSecret() {
    ObjectSet c;
    c.put(webhookSecret(json::object{{"ca.crt", "dGVzdC1jYS1jZXJ0LWRhdGE="}}));
    return c;
}

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
    Loaded l;
    for (auto const& fw : {Framework(l.registry), Framework(l.registry, {}, settings(false))}) {
        BOOST_TEST(!fw.active(*l.registry.find("trainjobstatus"), fw.withOperator(trainerInfo())));
        auto r = fw.build(trainerInfo(), clusterWithSecret());
        BOOST_TEST(r.diagnostics.ok());
        BOOST_TEST(r.objects.empty());
        auto const& c = r.info.at("podSets").as_array()[0].at("containers").as_array()[0].as_object();
        BOOST_TEST(c.at("env").as_array().empty());
        BOOST_TEST(r.info.at("podSets").as_array()[0].at("volumes").as_array().empty());
    }
}

// Gate on: the env, mount, volume and ConfigMap, with the operator's identity from the settings.
BOOST_AUTO_TEST_CASE(gate_on_through_the_framework) {
    Loaded l;
    OperatorSettings s = settings(true);
    s.operatorNamespace = "trainer-ops";
    s.statusServerPort = 9443;
    Framework fw(l.registry, {}, s);
    ObjectSet cluster;
    cluster.put(webhookSecret(json::object{{"ca.crt", "dGVzdC1jYS1jZXJ0LWRhdGE="}}, "trainer-ops"));
    auto r = fw.build(trainerInfo(), cluster);
    BOOST_TEST_REQUIRE(r.diagnostics.ok(), (r.diagnostics.errors.empty() ? "" : r.diagnostics.errors[0].message));
    auto const& c = r.info.at("podSets").as_array()[0].at("containers").as_array()[0].as_object();
    BOOST_REQUIRE_EQUAL(c.at("env").as_array().size(), 3u);
    BOOST_TEST(c.at("env").as_array()[0].at("value").as_string() ==
               "https://kubeflow-trainer-controller-manager.trainer-ops.svc:9443/apis/trainer.kubeflow.org/v1alpha1/"
               "namespaces/default/trainjobs/test-job/status");
    BOOST_TEST(r.info.at("podSets").as_array()[0].at("volumes").as_array().size() == 1u);
    BOOST_REQUIRE_EQUAL(r.objects.size(), 1u);
    BOOST_TEST(r.objects[0].at("metadata").at("name").as_string() == "test-job-tls-config");
    BOOST_TEST(r.objects[0].at("data").at("ca.crt").as_string() == "test-ca-cert-data");
    // Without the Secret the build fails with upstream's message, and emits nothing.
    auto missing = fw.build(trainerInfo(), ObjectSet{});
    BOOST_REQUIRE_EQUAL(missing.diagnostics.errors.size(), 1u);
    BOOST_TEST(missing.diagnostics.errors[0].message ==
               "failed to look up status server tls secret: secrets \"kubeflow-trainer-webhook-cert\" not found");
    BOOST_TEST(missing.objects.empty());
}

BOOST_AUTO_TEST_SUITE_END()
