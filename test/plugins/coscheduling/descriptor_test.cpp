// The shipped coscheduling.so, loaded the way the host loads it.
#include <boost/test/unit_test.hpp>

#include "fixtures.hpp"

#include <trainer/testing.hpp>

#include <dlfcn.h>

#include <string>
#include <vector>

namespace sdk = trainer::sdk;
namespace json = boost::json;

namespace {

const trn_plugin_descriptor* loadDescriptor(sdk::testing::Host& host) {
    std::string error;
    const trn_plugin_descriptor* d = host.load(std::string(TRAINER_PLUGIN_BUILD_DIR) + "/coscheduling.so", error);
    BOOST_REQUIRE_MESSAGE(d, error);
    return d;
}

}  // namespace

BOOST_AUTO_TEST_CASE(descriptor_of_the_built_module) {
    sdk::testing::Host host;
    const trn_plugin_descriptor* d = loadDescriptor(host);
    BOOST_TEST(d->struct_size == sizeof(trn_plugin_descriptor));
    BOOST_TEST(d->abi_version == TRN_ABI_VERSION);
    BOOST_TEST(std::string(d->name) == "coscheduling");
    BOOST_TEST((d->flags & TRN_PLUGIN_THREAD_SAFE) != 0u);

    std::vector<std::string> claims(d->claims, d->claims + d->claim_count);
    const std::vector<std::string> expectedClaims = {"podGroupPolicy.coscheduling",
                                                     "kind:scheduling.x-k8s.io/v1alpha1/PodGroup"};
    BOOST_TEST(claims == expectedClaims, boost::test_tools::per_element());

    // Exactly the extension points of README.md's "The shipped plugins" table.
    BOOST_TEST(d->enforce_pod_group_policy != nullptr);
    BOOST_TEST(d->component_builder != nullptr);
    BOOST_TEST(d->watch_extension != nullptr);
    BOOST_TEST(d->custom_validation != nullptr);
    BOOST_TEST(d->enforce_ml_policy == nullptr);
    BOOST_TEST(d->enforce_pod_spec == nullptr);
    BOOST_TEST(d->pre_component_builder == nullptr);
    BOOST_TEST(d->trainjob_status == nullptr);

    struct W {
        std::string apiVersion, kind;
        int32_t mode;
        std::string matchField;
    };
    const W expected[] = {{"scheduling.x-k8s.io/v1alpha1", "PodGroup", TRN_WATCH_OWNED, ""},
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

    using trainer::plugins::coscheduling::test::makeInfo;
    std::string input = json::serialize(makeInfo(trainer::plugins::coscheduling::test::case10PodSets(),
                                                 trainer::plugins::coscheduling::test::coschedulingPolicy(120)));
    BOOST_TEST(d->enforce_pod_group_policy->enforce(inst, host.call(), sdk::toAbi(input)) == TRN_OK);
    BOOST_REQUIRE_EQUAL(host.emitted.size(), 1u);
    BOOST_TEST(host.emitted[0].as_object().at("path").as_string() == "/scheduler/podLabels/scheduling.x-k8s.io~1pod-group");
    host.clear();

    BOOST_TEST(d->component_builder->build(inst, host.call(), sdk::toAbi(input)) == TRN_OK);
    BOOST_REQUIRE_EQUAL(host.emitted.size(), 1u);
    BOOST_TEST(host.emitted[0].as_object().at("spec").as_object().at("minMember").as_int64() == 102);
    host.clear();

    // Bad input never crashes: an error diagnostic naming the plugin, TRN_ERROR.
    BOOST_TEST(d->component_builder->build(inst, host.call(), sdk::toAbi("not json")) == TRN_ERROR);
    BOOST_REQUIRE_EQUAL(host.errors().size(), 1u);
    BOOST_TEST(host.errors()[0].message.find("coscheduling") != std::string::npos);
    BOOST_TEST(host.emitted.empty());
    d->destroy(inst);
}
