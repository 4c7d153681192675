// Loads the built flux.so as the host does and checks its descriptor and hooks through the ABI.
#define BOOST_TEST_MODULE flux_module_test
#include <boost/test/unit_test.hpp>

#include <trainer/testing.hpp>

#include <cstdlib>
#include <set>
#include <string>

namespace sdk = trainer::sdk;
namespace json = boost::json;

namespace {

const trn_plugin_descriptor* load(sdk::testing::Host& host) {
    std::string error;
    const trn_plugin_descriptor* d = host.load(FLUX_MODULE_PATH, error);
    BOOST_TEST_REQUIRE(d != nullptr, error);
    return d;
}

}  // namespace

BOOST_AUTO_TEST_CASE(module_descriptor) {
    sdk::testing::Host host;
    const trn_plugin_descriptor* d = load(host);
    BOOST_TEST(d->abi_version == TRN_ABI_VERSION);
    BOOST_TEST(std::string(d->name) == "flux");
    BOOST_TEST((d->flags & TRN_PLUGIN_THREAD_SAFE) != 0u);
    std::set<std::string> claims(d->claims, d->claims + d->claim_count);
    BOOST_TEST((claims == std::set<std::string>{"mlPolicy.flux", "volume:flux-install", "volume:spack-install",
                                                "volume:flux-curve"}));
    BOOST_TEST(d->custom_validation != nullptr);
    BOOST_TEST(d->enforce_ml_policy != nullptr);
    BOOST_TEST(d->component_builder != nullptr);
    BOOST_TEST(d->enforce_pod_group_policy == nullptr);
    BOOST_TEST(d->enforce_pod_spec == nullptr);
    BOOST_TEST(d->pre_component_builder == nullptr);
    BOOST_TEST(d->trainjob_status == nullptr);
    BOOST_TEST_REQUIRE(d->watch_extension != nullptr);
    BOOST_TEST_REQUIRE(d->watch_extension->watch_count == 2u);
    std::set<std::string> kinds;
    for (size_t i = 0; i < 2; ++i) {
        BOOST_TEST(std::string(d->watch_extension->watches[i]->api_version) == "v1");
        BOOST_TEST(d->watch_extension->watches[i]->mode == TRN_WATCH_OWNED);
        kinds.insert(d->watch_extension->watches[i]->kind);
    }
    BOOST_TEST((kinds == std::set<std::string>{"ConfigMap", "Secret"}));
}

BOOST_AUTO_TEST_CASE(module_only_exports_entry) {
    std::string cmd = "nm -D --defined-only " + std::string(FLUX_MODULE_PATH) +
                      " | grep -v ' A ' | grep -v ' trn_plugin_entry$' | grep -q .";
    BOOST_TEST(std::system(cmd.c_str()) != 0, "extra exported symbols in " FLUX_MODULE_PATH);
}

BOOST_AUTO_TEST_CASE(module_hooks_through_the_abi) {
    sdk::testing::Host host;
    const trn_plugin_descriptor* d = load(host);
    trn_instance* inst = d->create(host.call(), sdk::toAbi("{}"));
    BOOST_TEST_REQUIRE(inst != nullptr);
    // No spec.trainer at all (upstream panics): edits, no error.
    std::string info = R"({"infoVersion":1,
        "trainJob":{"metadata":{"name":"j","namespace":"ns","uid":"u"},"spec":{}},
        "runtimePolicy":{"mlPolicy":{"numNodes":1,"flux":{"numProcPerNode":1}}},
        "jobSetSpec":{"replicatedJobs":[]},
        "podSets":[{"name":"node","ancestor":"trainer","count":1,"initContainers":[],
                    "containers":[{"name":"node","env":[],"volumeMounts":[]}],"volumes":[],"endpoints":[]}]})";
    BOOST_TEST(d->enforce_ml_policy->enforce(inst, host.call(), sdk::toAbi(info)) == TRN_OK);
    BOOST_TEST(host.errors().empty());
    BOOST_TEST(host.emitted.size() == 12u);  // command, 5 volumes, init container, 5 mounts
    host.clear();
    BOOST_TEST(d->component_builder->build(inst, host.call(), sdk::toAbi(info)) == TRN_OK);
    BOOST_TEST(host.emitted.size() == 2u);
    host.clear();
    // Bad input never crashes: an error naming the plugin.
    BOOST_TEST(d->enforce_ml_policy->enforce(inst, host.call(), sdk::toAbi("not json")) == TRN_ERROR);
    BOOST_TEST_REQUIRE(host.errors().size() == 1u);
    BOOST_TEST(host.errors()[0].message.find("flux") != std::string::npos);
    d->destroy(inst);
}
