// Loads the built xgboost.so through the C ABI and checks its descriptor.
#define BOOST_TEST_MODULE xgboost_module_test
#include <boost/test/unit_test.hpp>

#include <trainer/testing.hpp>

#include <dlfcn.h>

#include <set>
#include <string>

BOOST_AUTO_TEST_CASE(descriptor) {
    trainer::sdk::testing::Host host;
    std::string error;
    auto* d = host.load(XGBOOST_MODULE_PATH, error);
    BOOST_TEST_REQUIRE(d != nullptr, error);
    BOOST_TEST(std::string(d->name) == "xgboost");
    std::set<std::string> claims(d->claims, d->claims + d->claim_count);
    std::set<std::string> want{"mlPolicy.xgboost", "env:DMLC_TRACKER_URI", "env:DMLC_TRACKER_PORT", "env:DMLC_TASK_ID",
                               "env:DMLC_NUM_WORKER", "envRefusal:{name} is reserved for the XGBoost runtime"};
    BOOST_TEST(claims == want, boost::test_tools::per_element());
    BOOST_TEST(d->enforce_ml_policy != nullptr);
    BOOST_TEST(d->custom_validation == nullptr);  // its one check is the host's (envRefusal: claim)
    BOOST_TEST(d->enforce_pod_group_policy == nullptr);
    BOOST_TEST(d->enforce_pod_spec == nullptr);
    BOOST_TEST(d->pre_component_builder == nullptr);
    BOOST_TEST(d->component_builder == nullptr);
    BOOST_TEST(d->trainjob_status == nullptr);
    BOOST_TEST(d->watch_extension == nullptr);

    auto* inst = d->create(host.call(), trn_str{"{}", 2});
    BOOST_TEST_REQUIRE(inst != nullptr);
    d->destroy(inst);
}
