#define BOOST_TEST_MODULE test_json_same_in_order
#include <boost/test/unit_test.hpp>

#include "core/json/io.hpp"
#include "core/json/same_in_order.hpp"

using namespace trainer::core;

namespace {
json::value v(const char* text) { return json::parse(text); }
}  // namespace

BOOST_AUTO_TEST_CASE(equal_documents_are_the_same) {
    const char* doc = R"({"a":1,"b":[true,null,"x",{"c":2.5,"d":[]}],"e":{}})";
    BOOST_TEST(sameInOrder(v(doc), v(doc)));
    BOOST_TEST(sameInOrder(v(doc).as_object(), v(doc).as_object()));
}

BOOST_AUTO_TEST_CASE(the_order_of_members_counts_where_operator_eq_ignores_it) {
    auto a = v(R"({"a":1,"b":{"x":1,"y":2}})"), b = v(R"({"a":1,"b":{"y":2,"x":1}})");
    BOOST_TEST(a == b);  // Boost.JSON: same members
    BOOST_TEST(!sameInOrder(a, b));
    BOOST_TEST(toYaml(a) != toYaml(b));  // why it matters
    BOOST_TEST(!sameInOrder(v(R"({"a":1,"b":2})").as_object(), v(R"({"b":2,"a":1})").as_object()));
}

BOOST_AUTO_TEST_CASE(kinds_sizes_and_values_count) {
    BOOST_TEST(!sameInOrder(json::value(1), json::value(1u)));  // int64 and uint64 compare equal in Boost.JSON
    BOOST_TEST(!sameInOrder(json::value(1), json::value(1.0)));
    BOOST_TEST(!sameInOrder(v("[1,2]"), v("[1,2,3]")));
    BOOST_TEST(!sameInOrder(v("[1,2]"), v("[2,1]")));
    BOOST_TEST(!sameInOrder(v(R"({"a":[{"b":"x"}]})"), v(R"({"a":[{"b":"y"}]})")));
    BOOST_TEST(!sameInOrder(v(R"({"a":1})"), v(R"({"a":1,"b":2})")));
    BOOST_TEST(!sameInOrder(v(R"({"a":1})"), v(R"({"b":1})")));
    BOOST_TEST(!sameInOrder(v("{}"), v("[]")));
    BOOST_TEST(sameInOrder(v("null"), v("null")));
}

BOOST_AUTO_TEST_CASE(deep_nesting_does_not_recurse) {
    std::string deep;
    for (int i = 0; i < 100000; ++i) deep += "[";
    for (int i = 0; i < 100000; ++i) deep += "]";
    json::parse_options o;
    o.max_depth = 200000;
    auto a = json::parse(deep, {}, o), b = json::parse(deep, {}, o);
    BOOST_TEST(sameInOrder(a, b));
}
