// The emitted PodGroup checked against the real scheduler-plugins CRD schema.
#include <boost/test/unit_test.hpp>

#include "coscheduling.hpp"
#include "fixtures.hpp"

#include <trainer/testing.hpp>

#include <yaml-cpp/yaml.h>

#include <limits>
#include <regex>
#include <string>

namespace cs = trainer::plugins::coscheduling;
namespace sdk = trainer::sdk;
namespace json = boost::json;

namespace {

const std::string kCrd = std::string(TRAINER_SHARED_DIR) + "/reference/crds/scheduling.x-k8s.io_podgroups.yaml";

// Checks one JSON value against an OpenAPI v3 schema node (the subset this CRD uses).
void checkValue(const json::value& v, const YAML::Node& schema, const std::string& path) {
    BOOST_TEST_CONTEXT(path) {
        if (schema["x-kubernetes-int-or-string"] && schema["x-kubernetes-int-or-string"].as<bool>()) {
            BOOST_TEST((v.is_string() || v.is_int64() || v.is_uint64()));
            if (v.is_string() && schema["pattern"]) {
                std::regex re(schema["pattern"].as<std::string>());
                BOOST_TEST(std::regex_match(std::string(v.as_string()), re), "'" << v.as_string() << "' matches pattern");
            }
            return;
        }
        auto type = schema["type"].as<std::string>();
        if (type == "integer") {
            BOOST_REQUIRE(v.is_int64());
            int64_t n = v.as_int64();
            if (schema["format"] && schema["format"].as<std::string>() == "int32")
                BOOST_TEST((n >= std::numeric_limits<int32_t>::min() && n <= std::numeric_limits<int32_t>::max()));
            if (schema["minimum"]) BOOST_TEST(n >= schema["minimum"].as<int64_t>());
        } else if (type == "string") {
            BOOST_TEST(v.is_string());
        } else if (type == "object") {
            BOOST_REQUIRE(v.is_object());
            auto const& o = v.as_object();
            if (schema["required"])
                for (auto const& r : schema["required"]) BOOST_TEST(o.contains(r.as<std::string>()), "required " << r);
            for (auto const& [k, child] : o) {
                std::string key(k);
                if (schema["properties"] && schema["properties"][key]) {
                    checkValue(child, schema["properties"][key], path + "." + key);
                } else if (schema["additionalProperties"]) {
                    checkValue(child, schema["additionalProperties"], path + "." + key);
                } else if (!(schema["x-kubernetes-preserve-unknown-fields"] &&
                             schema["x-kubernetes-preserve-unknown-fields"].as<bool>())) {
                    // metadata is type: object without properties: anything goes.
                    if (schema["properties"]) BOOST_ERROR("unknown field " << path << "." << key);
                }
            }
        } else {
            BOOST_ERROR("schema type " << type << " not handled by this check");
        }
    }
}

}  // namespace

BOOST_AUTO_TEST_CASE(podgroup_matches_crd_schema) {
    YAML::Node crd = YAML::LoadFile(kCrd);
    auto group = crd["spec"]["group"].as<std::string>();
    YAML::Node version = crd["spec"]["versions"][0];
    YAML::Node schema = version["schema"]["openAPIV3Schema"];
    BOOST_REQUIRE(schema);
    // The fields the plugin writes are those the CRD declares, with the types it declares.
    YAML::Node spec = schema["properties"]["spec"]["properties"];
    BOOST_TEST(spec["minMember"]["type"].as<std::string>() == "integer");
    BOOST_TEST(spec["minResources"]["type"].as<std::string>() == "object");
    BOOST_TEST(spec["scheduleTimeoutSeconds"]["type"].as<std::string>() == "integer");

    const std::vector<cs::test::PodSetSpec> podSets = {
        {"launcher", nullptr, 1, {{"cpu", "500m"}, {"memory", "512Mi"}}},
        {"node", "trainer", 3, {{"cpu", "1.5"}, {"memory", "1Gi"}, {"nvidia.com/gpu", "1"}, {"ephemeral-storage", "1e3"}}},
    };
    sdk::testing::Host host;
    auto ctx = host.context("coscheduling");
    auto pg = cs::buildPodGroup(sdk::Info(cs::test::makeInfo(podSets, cs::test::coschedulingPolicy(30))), ctx);
    BOOST_REQUIRE(pg.has_value());
    BOOST_TEST(host.errors().empty());
    BOOST_TEST(pg->at("apiVersion").as_string() == group + "/" + version["name"].as<std::string>());
    BOOST_TEST(pg->at("kind").as_string() == crd["spec"]["names"]["kind"].as<std::string>());
    BOOST_REQUIRE(crd["spec"]["scope"].as<std::string>() == "Namespaced");
    BOOST_TEST(pg->at("metadata").as_object().at("namespace").as_string() == "default");
    checkValue(*pg, schema, "PodGroup");
    BOOST_TEST(pg->at("spec").as_object().at("minMember").as_int64() == 4);
}
