// A policy hook needs a claim of its policy's group (issue 13 item 5): EnforceMLPolicy without
// "mlPolicy" / "mlPolicy.<x>", or EnforcePodGroupPolicy without "podGroupPolicy.<x>", is refused
// at load with the reason, before create() runs; plugins that claim what they enforce load.
// Part of test_core_plugin: runs once per isolation mode.
#include <boost/test/unit_test.hpp>

#include "test_support.hpp"

using namespace trainer::core;

BOOST_AUTO_TEST_SUITE(policy_hook_claims)

struct UnclaimedCase {
    std::string fixture;
    std::string reason;
};
const std::vector<UnclaimedCase> kUnclaimed = {
    {"unclaimed_ml",
     "it implements EnforceMLPolicy but claims no ML policy (\"mlPolicy.<name>\", or \"mlPolicy\" for the default "
     "one), so its hook would run whatever ML policy a runtime configures."},
    {"unclaimed_pod_group",
     "it implements EnforcePodGroupPolicy but claims no pod-group policy (\"podGroupPolicy.<name>\"), so its hook "
     "would run whatever pod-group policy a runtime configures."},
};

BOOST_AUTO_TEST_CASE(policy_hook_without_its_claim_is_refused_before_create) {
    for (auto const& c : kUnclaimed) {
        BOOST_TEST_CONTEXT(c.fixture) {
            PluginDir d({c.fixture});
            PluginRegistry r;
            r.loadDirectory(d.dir.string(), testOptions());
            BOOST_TEST(r.plugins().empty());
            BOOST_REQUIRE_EQUAL(r.rejected().size(), 1u);
            // The fixtures' create() fails with "create ran": the refusal came first.
            BOOST_TEST(r.rejected()[0].reason == "plugin " + d.path(c.fixture) + " was rejected: " + c.reason);
            BOOST_TEST(r.rejected()[0].code == "unclaimed_policy_hook");
        }
    }
}

// Every fixture of this folder that implements a policy hook claims that policy's group (the
// sdk fixtures implement the hooks their claims call for), so all of them load together.
BOOST_AUTO_TEST_CASE(plugins_claiming_what_they_enforce_load) {
    PluginDir d({"alpha", "beta", "gamma", "plain", "serial", "gated", "gated_policy", "malformed", "raw_throw",
                 "new_tables", "frozen_abi_1_0"});
    PluginRegistry r;
    r.loadDirectory(d.dir.string(), testOptions());
    std::string why;
    for (auto const& x : r.rejected()) why += x.reason + "\n";
    BOOST_TEST(r.rejected().empty(), why);
    BOOST_TEST(r.plugins().size() == 11u);
    auto* serial = r.find("serial");  // no policy claim: no policy hook, EnforcePodSpec instead
    BOOST_REQUIRE(serial);
    BOOST_TEST(!serial->implements(Hook::EnforceMLPolicy));
    BOOST_TEST(!serial->implements(Hook::EnforcePodGroupPolicy));
    BOOST_TEST(serial->implements(Hook::EnforcePodSpec));
    auto* beta = r.find("beta");  // claims podGroupPolicy.beta only
    BOOST_REQUIRE(beta);
    BOOST_TEST(!beta->implements(Hook::EnforceMLPolicy));
    BOOST_TEST(beta->implements(Hook::EnforcePodGroupPolicy));
}

BOOST_AUTO_TEST_SUITE_END()
