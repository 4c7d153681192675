// <trainer/policy.hpp>: a plugin's own policy block, null- and absence-safe.
#define BOOST_TEST_MODULE sdk_helpers_test
#include <boost/test/unit_test.hpp>

#include <trainer/pod_group.hpp>
#include <trainer/policy.hpp>

using namespace trainer::sdk;

namespace {
// An Info whose runtimePolicy is `policy` (null: no runtimePolicy member at all).
Info withPolicy(json::value policy) {
    json::object doc{{"infoVersion", 1}};
    if (!policy.is_null()) doc["runtimePolicy"] = std::move(policy);
    return Info(std::move(doc));
}
}  // namespace

BOOST_AUTO_TEST_SUITE(policy_config)

BOOST_AUTO_TEST_CASE(ml_policy_config) {
    struct Row {
        const char* name;
        json::value runtimePolicy;
        const char* want;  // serialized block, or nullptr for "no block"
    };
    const Row rows[] = {
        {"configured", json::parse(R"({"mlPolicy":{"numNodes":2,"hello":{"greeting":"hi"}}})"), R"({"greeting":"hi"})"},
        {"empty block", json::parse(R"({"mlPolicy":{"hello":{}}})"), "{}"},
        {"another policy", json::parse(R"({"mlPolicy":{"torch":{}}})"), nullptr},
        {"null member", json::parse(R"({"mlPolicy":{"hello":null}})"), nullptr},
        {"not an object", json::parse(R"({"mlPolicy":{"hello":3}})"), nullptr},
        {"mlPolicy null", json::parse(R"({"mlPolicy":null})"), nullptr},
        {"no mlPolicy", json::parse(R"({"podGroupPolicy":{"hello":{}}})"), nullptr},
        {"no runtimePolicy", nullptr, nullptr},
        {"runtimePolicy not an object", json::value("x"), nullptr},
    };
    for (auto const& r : rows) {
        BOOST_TEST_CONTEXT(r.name) {
            Info info = withPolicy(r.runtimePolicy);
            const json::object* got = mlPolicyConfig(info, "hello");
            BOOST_TEST((got != nullptr) == (r.want != nullptr));
            if (got && r.want) BOOST_TEST(json::serialize(*got) == r.want);
        }
    }
}

BOOST_AUTO_TEST_CASE(pod_group_policy_config) {
    Info info = withPolicy(json::parse(R"({"mlPolicy":{"volcano":{}},"podGroupPolicy":{"volcano":{"queue":"q"},"x":null}})"));
    const json::object* got = podGroupPolicyConfig(info, "volcano");
    BOOST_REQUIRE(got);
    BOOST_TEST(json::serialize(*got) == R"({"queue":"q"})");
    BOOST_TEST(podGroupPolicyConfig(info, "coscheduling") == nullptr);
    BOOST_TEST(podGroupPolicyConfig(info, "x") == nullptr);
    BOOST_TEST(podGroupPolicyConfig(withPolicy(nullptr), "volcano") == nullptr);
    // The older name in <trainer/pod_group.hpp> answers the same.
    BOOST_TEST(podGroupPolicy(info, "volcano") == got);
}

BOOST_AUTO_TEST_SUITE_END()
