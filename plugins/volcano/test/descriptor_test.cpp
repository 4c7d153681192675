// The built volcano.so, loaded the way the host loads it.
#include <boost/test/unit_test.hpp>

#include "test/fixtures.hpp"

#include <trainer/testing.hpp>

#include <dlfcn.h>

#include <string>
#include <vector>

namespace sdk = trainer::sdk;
namespace json = boost::json;

namespace {

const trn_plugin_descriptor* loadDescriptor(sdk::testing::Host& host) {
    std::string error;
    const trn_plugin_descriptor* d = host.load(VOLCANO_MODULE_PATH, error);
    BOOST_REQUIRE_MESSAGE(d, error);
    return d;
}

}  // namespace

BOOST_AUTO_TEST_CASE(descriptor_of_the_built_module) {
    sdk::testing::Host host;
    const trn_plugin_descriptor* d = loadDescriptor(host);
    BOOST_TEST(d->struct_size == sizeof(trn_plugin_descriptor));
    BOOST_TEST(d->abi_version == TRN_ABI_VERSION);
    BOOST_TEST(std::string(d->name) == "volcano");

    std::vector<std::string> claims(d->claims, d->claims + d->claim_count);
    const std::vector<std::string> expectedClaims = {"podGroupPolicy.volcano",
                                                     "kind:scheduling.volcano.sh/v1beta1/PodGroup"};
    BOOST_TEST(claims == expectedClaims, boost::test_tools::per_element());

    BOOST_TEST(d->custom_validation != nullptr);
    BOOST_TEST(d->enforce_pod_group_policy != nullptr);
    BOOST_TEST(d->component_builder != nullptr);
    BOOST_TEST(d->watch_extension != nullptr);
    BOOST_TEST(d->enforce_ml_policy == nullptr);
    BOOST_TEST(d->enforce_pod_spec == nullptr);
    BOOST_TEST(d->pre_component_builder == nullptr);
    BOOST_TEST(d->trainjob_status == nullptr);

    struct W {
        std::string apiVersion, kind;
        int32_t mode;
        std::string matchField;
    };
    const W expected[] = {{"scheduling.volcano.sh/v1beta1", "PodGroup", TRN_WATCH_OWNED, ""},
                          {"v1", "LimitRange", TRN_WATCH_SUSPENDED_IN_NAMESPACE, ""},
                          {"node.k8s.io/v1", "RuntimeClass", TRN_WATCH_SUSPENDED_MATCHING, "runtimeClassName"}};
    BOOST_REQUIRE_EQUAL(d->watch_extension->watch_count, std::size(expected));
    for (size_t i = 0; i < std::size(expected); ++i) {
        const trn_watch* w = d->watch_extension->watches[i];
        BOOST_TEST_CONTEXT("watch " << i) {
            BOOST_TEST(w->api_version == expected[i].apiVersion);
            BOOST_TEST(w->kind == expected[i].kind);
            BOOST_TEST(w->mode == expected[i].mode);
            BOOST_TEST((w->match_field ? std::string(w->match_field) : std::string()) == expected[i].matchField);
        }
    }
}

BOOST_AUTO_TEST_CASE(hooks_through_the_c_abi) {
    sdk::testing::Host host;
    const trn_plugin_descriptor* d = loadDescriptor(host);
    trn_instance* inst = d->create(host.call(), sdk::toAbi("{}"));
    BOOST_REQUIRE(inst);
    namespace t = trainer::plugins::volcano::test;
    auto doc = t::makeInfo(t::defaultJobs(), json::object{}, {{"scheduling.volcano.sh/queue-name", ""}});
    std::string input = json::serialize(doc);

    BOOST_TEST(d->custom_validation->validate(inst, host.call(), sdk::toAbi(input)) == TRN_ERROR);
    BOOST_REQUIRE_EQUAL(host.errors().size(), 1u);
    BOOST_TEST(host.errors()[0].path == "spec.annotations[scheduling.volcano.sh/queue-name]");
    host.clear();

    BOOST_TEST(d->enforce_pod_group_policy->enforce(inst, host.call(), sdk::toAbi(input)) == TRN_OK);
    BOOST_REQUIRE_EQUAL(host.emitted.size(), 1u);
    host.clear();

    BOOST_TEST(d->component_builder->build(inst, host.call(), sdk::toAbi(input)) == TRN_OK);
    BOOST_REQUIRE_EQUAL(host.emitted.size(), 1u);
    BOOST_TEST(host.emitted[0].as_object().at("kind").as_string() == "PodGroup");
    host.clear();

    BOOST_TEST(d->component_builder->build(inst, host.call(), sdk::toAbi("[1,2")) == TRN_ERROR);
    BOOST_REQUIRE_EQUAL(host.errors().size(), 1u);
    BOOST_TEST(host.errors()[0].message.find("volcano") != std::string::npos);
    d->destroy(inst);
}
