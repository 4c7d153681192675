// Loads the built jax.so through the C ABI and checks its descriptor.
#define BOOST_TEST_MODULE jax_module_test
#include <boost/test/unit_test.hpp>

#include <trainer/testing.hpp>

#include <dlfcn.h>

#include <set>
#include <string>

BOOST_AUTO_TEST_CASE(descriptor) {
    trainer::sdk::testing::Host host;
    std::string error;
    auto* d = host.load(JAX_MODULE_PATH, error);
    BOOST_TEST_REQUIRE(d != nullptr, error);
    BOOST_TEST(std::string(d->name) == "jax");
    std::set<std::string> claims(d->claims, d->claims + d->claim_count);
    std::set<std::string> want{"mlPolicy.jax", "env:JAX_NUM_PROCESSES", "env:JAX_PROCESS_ID", "env:JAX_COORDINATOR_ADDRESS"};
    BOOST_TEST(claims == want, boost::test_tools::per_element());
    BOOST_TEST(d->enforce_ml_policy != nullptr);
    BOOST_TEST(d->custom_validation == nullptr);
    BOOST_TEST(d->enforce_pod_group_policy == nullptr);
    BOOST_TEST(d->enforce_pod_spec == nullptr);
    BOOST_TEST(d->pre_component_builder == nullptr);
    BOOST_TEST(d->component_builder == nullptr);
    BOOST_TEST(d->trainjob_status == nullptr);
    BOOST_TEST(d->watch_extension == nullptr);
    auto* inst = d->create(host.call(), trn_str{"{}", 2});
    BOOST_TEST_REQUIRE(inst != nullptr);
    // Bad input never crashes: one error diagnostic.
    BOOST_TEST(d->enforce_ml_policy->enforce(inst, host.call(), trn_str{"nope", 4}) == TRN_ERROR);
    BOOST_TEST(host.errors().size() == 1u);
    d->destroy(inst);
}
