// The names of ComponentBuilder objects (issue 13 item 5): the operator's own names
// (`<job>-runtime-snapshot`) are reserved, and one apiVersion/kind/namespace/name is emitted
// once per build, whether two plugins or one plugin twice emit it. Either is an error naming the
// plugin(s), and the build applies nothing. Part of test_core_plugin: once per isolation mode.
#include <boost/test/unit_test.hpp>

#include "core/plugin/framework.hpp"
#include "test_support.hpp"

using namespace trainer::core;
namespace json = boost::json;

BOOST_AUTO_TEST_SUITE(object_names)

namespace {

using Loaded = LoadedFixtures;

const ObjectSet kEmpty;

}  // namespace

struct NameCase {
    std::string name;
    std::map<std::string, std::string> configs;  // alpha, beta: what each emits
    std::vector<std::string> errors;
};
const std::vector<NameCase> kCases = {
    {"the runtime snapshot's name",
     {{"alpha", R"({"object": ["x", "runtime-snapshot"]})"}},
     {"plugin alpha emitted ConfigMap default/job-runtime-snapshot, but that name is reserved for the operator's runtime "
      "snapshot of the TrainJob"}},
    {"one plugin, one object twice",
     {{"alpha", R"({"object": ["x", "y", "x"]})"}},
     {"plugin alpha emitted ConfigMap default/job-x twice"}},
    {"two plugins, one object",
     {{"alpha", R"({"object": "x"})"}, {"beta", R"({"object": ["y", "x"]})"}},
     {"plugins beta and alpha both emitted ConfigMap default/job-x"}},
};

BOOST_AUTO_TEST_CASE(reserved_and_repeated_names_are_errors_naming_the_plugins) {
    for (auto const& c : kCases) {
        BOOST_TEST_CONTEXT(c.name) {
            Loaded l({"alpha", "beta"}, c.configs);
            BOOST_REQUIRE_EQUAL(l.registry.plugins().size(), 2u);
            auto r = Framework(l.registry).build(minimalInfo({{"alpha", json::object{}}}, {{"beta", json::object{}}}), kEmpty);
            BOOST_TEST(errorMessages(r.diagnostics) == c.errors, boost::test_tools::per_element());
            BOOST_TEST(r.objects.empty());  // never two objects of one name, nor a partial set
        }
    }
}

// Names that merely resemble the reserved one are the plugin's to use.
BOOST_AUTO_TEST_CASE(other_names_are_free) {
    Loaded l({"alpha"}, {{"alpha", R"({"object": ["runtime-snapshot-copy", "x"]})"}});
    auto info = minimalInfo({{"alpha", json::object{}}});
    info["trainJob"].as_object()["metadata"].as_object()["name"] = "other";
    auto r = Framework(l.registry).build(info, kEmpty);  // other-runtime-snapshot-copy, other-x
    BOOST_TEST(r.diagnostics.ok(), (errorMessages(r.diagnostics).empty() ? "" : errorMessages(r.diagnostics)[0]));
    BOOST_TEST(r.objects.size() == 2u);
}

BOOST_AUTO_TEST_SUITE_END()
