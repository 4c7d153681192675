// The resource registry hands out its resources shared, never copied (every request on a kind looks
// its resource up, and a CRD's carries the whole schema: a copy per request made a TrainJob GET 8x
// a ConfigMap's, test/bench/api_bench.cpp), and what a holder has stays as it was when the CRD
// behind it is replaced or removed.
#include <boost/test/unit_test.hpp>

#include "core/apiserver/resources.hpp"

using namespace trainer::core;
using namespace trainer::core::apiserver;

namespace {

// A CRD of kind Widget in example.com, served at v1, whose schema says `marker`.
json::object widgetCrd(const std::string& marker) {
    return json::parse(R"({"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition",
        "metadata":{"name":"widgets.example.com"},
        "spec":{"group":"example.com","scope":"Namespaced",
          "names":{"kind":"Widget","plural":"widgets","singular":"widget","listKind":"WidgetList"},
          "versions":[{"name":"v1","served":true,"storage":true,
            "schema":{"openAPIV3Schema":{"type":"object","description":")" + marker + R"("}}}]}})")
        .as_object();
}

std::string descriptionOf(const ApiResource& r) { return std::string(r.schema.at("description").as_string()); }

}  // namespace

BOOST_AUTO_TEST_SUITE(resource_registry)

BOOST_AUTO_TEST_CASE(lookups_share_one_resource_instead_of_copying_it) {
    ResourceRegistry registry;
    BOOST_TEST_REQUIRE(registry.addCrd(widgetCrd("first")));
    auto byName = registry.find("example.com", "v1", "widgets");
    auto byKind = registry.findKind("example.com/v1", "Widget");
    BOOST_TEST_REQUIRE(byName);
    BOOST_TEST_REQUIRE(byKind);
    BOOST_TEST(descriptionOf(*byName) == "first");
    BOOST_TEST(byName.get() == byKind.get());
    BOOST_TEST(registry.find("example.com", "v1", "widgets").get() == byName.get());
    bool listed = false;
    for (auto const& r : registry.all()) listed = listed || r.get() == byName.get();
    BOOST_TEST(listed);
    // Built-in kinds too.
    auto pods = registry.find("", "v1", "pods");
    BOOST_TEST_REQUIRE(pods);
    BOOST_TEST(pods.get() == registry.findKind("v1", "Pod").get());
}

BOOST_AUTO_TEST_CASE(a_held_resource_outlives_the_crd_that_replaced_or_removed_it) {
    ResourceRegistry registry;
    BOOST_TEST_REQUIRE(registry.addCrd(widgetCrd("first")));
    auto held = registry.find("example.com", "v1", "widgets");
    BOOST_TEST_REQUIRE(held);

    BOOST_TEST_REQUIRE(registry.addCrd(widgetCrd("second")));
    auto now = registry.find("example.com", "v1", "widgets");
    BOOST_TEST_REQUIRE(now);
    BOOST_TEST(descriptionOf(*now) == "second");
    BOOST_TEST(descriptionOf(*held) == "first");
    BOOST_TEST(now.get() != held.get());

    registry.removeCrd("widgets.example.com");
    BOOST_TEST(!registry.find("example.com", "v1", "widgets"));
    BOOST_TEST(!registry.findKind("example.com/v1", "Widget"));
    BOOST_TEST(descriptionOf(*now) == "second");
    BOOST_TEST(held->kind == "Widget");
}

BOOST_AUTO_TEST_CASE(absent_kinds_are_null) {
    ResourceRegistry registry;
    BOOST_TEST(!registry.find("example.com", "v1", "widgets"));
    BOOST_TEST(!registry.findKind("example.com/v1", "Widget"));
    BOOST_TEST(!registry.find("", "v2", "pods"));
}

BOOST_AUTO_TEST_SUITE_END()
