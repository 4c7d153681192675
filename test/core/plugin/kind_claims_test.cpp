// Kind claims on ComponentBuilder objects (sdk/docs/abi.md rule 12, core/plugin/framework.cpp
// acceptObject): an object whose apiVersion/kind another plugin claims (`kind:<apiVersion>/<Kind>`)
// is refused with a message naming both plugins, and the build applies nothing; the owner builds
// its kind, a kind nobody claims is anyone's to build, and the claim of a plugin whose feature
// gate is off does not hold. Part of test_core_plugin: once per isolation mode.
#include <boost/test/unit_test.hpp>

#include "core/plugin/framework.hpp"
#include "core/plugin/operator_settings.hpp"
#include "test_support.hpp"

using namespace trainer::core;
namespace json = boost::json;

BOOST_AUTO_TEST_SUITE(kind_claims)

namespace {

using Loaded = LoadedFixtures;

std::vector<std::string> kindsOf(const std::vector<json::object>& objects) {
    std::vector<std::string> out;
    for (auto const& o : objects)
        out.push_back(std::string(o.at("apiVersion").as_string()) + "/" + std::string(o.at("kind").as_string()) + " " +
                      std::string(o.at("metadata").at("name").as_string()));
    return out;
}

OperatorSettings gate(bool on) {
    OperatorSettings s;
    s.featureGates = {{"KindGate", on}};
    return s;
}

const ObjectSet kEmpty;

}  // namespace

struct KindCase {
    std::string name;
    std::map<std::string, std::string> configs;  // what alpha, widget-owner and gated-kind emit
    bool gateOn;
    std::vector<std::string> errors;
    std::vector<std::string> objects;  // built when there is no error
};
const std::vector<KindCase> kKindCases = {
    {"a kind another plugin claims",
     {{"alpha", R"({"object": "x", "objectKind": "example.com/v1/Widget"})"}},
     false,
     {"plugin alpha emitted Widget default/job-x, but kind example.com/v1/Widget is claimed by plugin widget-owner"},
     {}},
    {"the claim spoils the whole build, not only the refused object",
     {{"alpha", R"({"object": "y"})"},
      {"widget-owner", R"({"object": "w", "objectKind": "example.com/v1/Widget"})"},
      {"gated-kind", R"({"object": "x", "objectKind": "example.com/v1/Widget"})"}},
     true,
     {"plugin gated-kind emitted Widget default/job-x, but kind example.com/v1/Widget is claimed by plugin widget-owner"},
     {}},
    {"the owner builds its kind",
     {{"widget-owner", R"({"object": "w", "objectKind": "example.com/v1/Widget"})"}},
     false,
     {},
     {"example.com/v1/Widget job-w"}},
    {"a kind nobody claims",
     {{"alpha", R"({"object": "x", "objectKind": "example.com/v1/Gizmo"})"}, {"widget-owner", R"({"object": "y"})"}},
     false,
     {},
     {"example.com/v1/Gizmo job-x", "v1/ConfigMap job-y"}},
    {"the claim of a plugin whose gate is off does not hold",
     {{"alpha", R"({"object": "x", "objectKind": "v1/Gadget"})"}},
     false,
     {},
     {"v1/Gadget job-x"}},
    {"the claim of a plugin whose gate is on holds",
     {{"alpha", R"({"object": "x", "objectKind": "v1/Gadget"})"}},
     true,
     {"plugin alpha emitted Gadget default/job-x, but kind v1/Gadget is claimed by plugin gated-kind"},
     {}},
};

BOOST_AUTO_TEST_CASE(an_object_of_a_kind_another_plugin_claims_is_refused_naming_both) {
    for (auto const& c : kKindCases) {
        BOOST_TEST_CONTEXT(c.name) {
            Loaded l({"alpha", "widget_owner", "gated_kind"}, c.configs);
            BOOST_REQUIRE_EQUAL(l.registry.plugins().size(), 3u);
            Framework framework(l.registry, {}, gate(c.gateOn));
            auto r = framework.build(minimalInfo({{"alpha", json::object{}}}), kEmpty);
            BOOST_TEST(errorMessages(r.diagnostics) == c.errors, boost::test_tools::per_element());
            BOOST_TEST(kindsOf(r.objects) == c.objects, boost::test_tools::per_element());
        }
    }
}

BOOST_AUTO_TEST_SUITE_END()
