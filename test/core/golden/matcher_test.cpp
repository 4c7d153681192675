// The subset matcher, one table row per rule, each shown to hold and to fail
// (sdk/docs/golden-tests.md "Matching").
#define BOOST_TEST_MODULE test_core_golden
#include <boost/test/unit_test.hpp>

#include "core/golden/matcher.hpp"

#include <string>
#include <vector>

using namespace trainer::core;
using namespace trainer::core::golden;

namespace {

struct Row {
    const char* rule;
    const char* expected;  // JSON
    const char* actual;    // JSON
    std::vector<std::string> mismatches;  // "path: message", in report order; empty = holds
};

std::vector<std::string> run(const Row& r) {
    std::vector<std::string> out;
    for (auto const& m : matchSubset(json::parse(r.expected), json::parse(r.actual)))
        out.push_back(m.path + ": " + m.message);
    return out;
}

const std::vector<Row> kRows = {
    // Objects: expected members must be there and match; extra actual members are fine.
    {"object subset holds", R"({"a":1})", R"({"a":1,"b":2})", {}},
    {"object member missing", R"({"a":1,"c":3})", R"({"a":1})", {"c: missing"}},
    {"object expected, other found", R"({"spec":{"x":1}})", R"({"spec":"text"})",
     {"spec: expected an object, found \"text\""}},
    // Scalars.
    {"strings equal", R"({"s":"x"})", R"({"s":"x"})", {}},
    {"strings differ", R"({"s":"x"})", R"({"s":"y"})", {"s: expected \"x\", found \"y\""}},
    {"a string is not a number", R"({"s":"1"})", R"({"s":1})", {"s: expected \"1\", found 1"}},
    {"numbers by value", R"({"n":1,"m":2.5,"u":18446744073709551615})", R"({"n":1.0,"m":2.5,"u":18446744073709551615})", {}},
    {"numbers differ", R"({"n":1})", R"({"n":2})", {"n: expected 1, found 2"}},
    {"negative int is no uint", R"({"n":-1})", R"({"n":18446744073709551615})", {"n: expected -1, found 18446744073709551615"}},
    {"a bool is not a number", R"({"b":true})", R"({"b":1})", {"b: expected true, found 1"}},
    {"null equals null", R"({"z":null})", R"({"z":null})", {}},
    // Quantities under requests, limits, minResources, overhead (at any object depth below).
    {"quantities by value", R"({"requests":{"cpu":"1250m","memory":"2560Mi"},"limits":{"nvidia.com/gpu":1}})",
     R"({"requests":{"cpu":"1.25","memory":"2.5Gi"},"limits":{"nvidia.com/gpu":"1"}})", {}},
    {"quantities differ", R"({"minResources":{"cpu":"2"}})", R"({"minResources":{"cpu":"2001m"}})",
     {"minResources.cpu: expected quantity \"2\", found \"2001m\""}},
    {"no quantities elsewhere", R"({"data":{"cpu":"1250m"}})", R"({"data":{"cpu":"1.25"}})",
     {"data.cpu: expected \"1250m\", found \"1.25\""}},
    {"an unparsable quantity compares as text", R"({"overhead":{"cpu":"lots"}})", R"({"overhead":{"cpu":"1"}})",
     {"overhead.cpu: expected \"lots\", found \"1\""}},
    // Keyed lists: by key, any order, extra actual elements allowed.
    {"keyed list in any order", R"({"env":[{"name":"B","value":"2"},{"name":"A"}]})",
     R"({"env":[{"name":"A","value":"1"},{"name":"C"},{"name":"B","value":"2"}]})", {}},
    {"keyed element missing", R"({"env":[{"name":"A"},{"name":"B"}]})", R"({"env":[{"name":"A"}]})", {"env[name=B]: missing"}},
    {"keyed element differs", R"({"containers":[{"name":"node","env":[{"name":"N","value":"2"}]}]})",
     R"({"containers":[{"name":"node","env":[{"name":"N","value":"4"}]}]})",
     {"containers[name=node].env[name=N].value: expected \"2\", found \"4\""}},
    {"volumeMounts by mountPath", R"({"volumeMounts":[{"mountPath":"/b","name":"x"},{"mountPath":"/a","name":"x"}]})",
     R"({"volumeMounts":[{"mountPath":"/a","name":"x"},{"mountPath":"/b","name":"y"}]})",
     {"volumeMounts[mountPath=\"/b\"].name: expected \"x\", found \"y\""}},
    {"ports by containerPort", R"({"ports":[{"containerPort":29500}]})", R"({"ports":[{"containerPort":8080}]})",
     {"ports[containerPort=29500]: missing"}},
    {"conditions by type, ownerReferences by uid",
     R"({"status":{"conditions":[{"type":"Ready","status":"True"}]},"ownerReferences":[{"uid":"u","name":"j"}]})",
     R"({"status":{"conditions":[{"type":"Other"},{"type":"Ready","status":"True"}]},"ownerReferences":[{"uid":"u","name":"j"}]})",
     {}},
    {"an element without the key makes the list ordered", R"({"env":[{"value":"1"}]})",
     R"({"env":[{"name":"A","value":"1"},{"name":"B"}]})", {"env: expected 1 items, found 2: [{\"name\":\"A\",\"value\":\"1\"},{\"name\":\"B\"}]"}},
    // Other lists: in order, equal length.
    {"ordered list equal", R"({"args":["a","b"],"tolerations":[{"key":"k"}]})",
     R"({"args":["a","b"],"tolerations":[{"key":"k","effect":"NoSchedule"}]})", {}},
    {"ordered list order matters", R"({"command":["a","b"]})", R"({"command":["b","a"]})",
     {"command[0]: expected \"a\", found \"b\"", "command[1]: expected \"b\", found \"a\""}},
    {"ordered list length matters", R"({"args":["a"]})", R"({"args":["a","b"]})", {"args: expected 1 items, found 2: [\"a\",\"b\"]"}},
    {"list expected, other found", R"({"args":["a"]})", R"({"args":"a"})", {"args: expected a list, found \"a\""}},
    // "<any>": any value but null; the member must be there.
    {"<any> holds any value", R"({"data":{"key":"<any>","obj":"<any>"}})", R"({"data":{"key":"xyz","obj":{"a":1}}})", {}},
    {"<any> refuses null", R"({"k":"<any>"})", R"({"k":null})", {"k: expected a value, found none"}},
    {"<any> refuses a missing member", R"({"k":"<any>"})", R"({})", {"k: missing"}},
    // "<absent>": missing, null, "", [] or {}.
    {"<absent> holds for missing and empty values", R"({"a":"<absent>","b":"<absent>","c":"<absent>","d":"<absent>","e":"<absent>"})",
     R"({"b":null,"c":"","d":[],"e":{}})", {}},
    {"<absent> fails on a value", R"({"args":"<absent>","n":"<absent>"})", R"({"args":["x"],"n":0})",
     {"args: expected absent, found [\"x\"]", "n: expected absent, found 0"}},
    // "$absent" elements of keyed lists.
    {"$absent element holds when no element has the key", R"({"env":[{"name":"PET_MASTER_ADDR","$absent":true},{"name":"A"}]})",
     R"({"env":[{"name":"A"}]})", {}},
    {"$absent element fails when one has it", R"({"env":[{"name":"A","$absent":true}]})", R"({"env":[{"name":"A","value":"1"}]})",
     {"env[name=A]: expected no such element"}},
    {"a list of $absent elements holds when the list is missing", R"({"spec":{"env":[{"name":"X","$absent":true}]}})",
     R"({"spec":{}})", {}},
    {"a missing list with a wanted element fails", R"({"spec":{"env":[{"name":"X","$absent":true},{"name":"Y"}]}})",
     R"({"spec":{}})", {"spec.env: missing"}},
    // Paths: members that are not plain names are quoted.
    {"quoted member in the path", R"({"metadata":{"labels":{"trainer.kubeflow.org/step":"trainer"}}})",
     R"({"metadata":{"labels":{"trainer.kubeflow.org/step":"node"}}})",
     {"metadata.labels[\"trainer.kubeflow.org/step\"]: expected \"trainer\", found \"node\""}},
};

}  // namespace

BOOST_AUTO_TEST_CASE(every_matching_rule_holds_and_fails) {
    for (auto const& r : kRows) BOOST_TEST_CONTEXT(r.rule) { BOOST_TEST(run(r) == r.mismatches, boost::test_tools::per_element()); }
}

BOOST_AUTO_TEST_CASE(paths_start_at_the_given_prefix) {
    auto m = matchSubset(json::parse(R"({"a":{"b":1}})"), json::parse(R"({"a":{"b":2}})"), "JobSet/x");
    BOOST_TEST_REQUIRE(m.size() == 1u);
    BOOST_TEST(m[0].path == "JobSet/x.a.b");
}

BOOST_AUTO_TEST_CASE(long_values_are_cut_in_messages) {
    std::string big(500, 'x');
    auto m = matchSubset(json::value(std::string(10, 'y')), json::value(big));
    BOOST_TEST_REQUIRE(m.size() == 1u);
    BOOST_TEST(m[0].message.size() < 200u);
    BOOST_TEST(m[0].message.ends_with("..."));
}

namespace {

struct DirectiveRow {
    const char* what;
    const char* expected;
    std::vector<std::string> errors;  // "path: message prefix"
};

const std::vector<DirectiveRow> kDirectiveRows = {
    {"well-placed directives", R"({"env":[{"name":"A","$absent":true}],"args":"<absent>","x":"<any>","l":["<any>"]})", {}},
    {"$absent outside a keyed list", R"({"spec":{"$absent":true}})", {"spec.$absent: \"$absent\" marks an element of a keyed list"}},
    {"$absent in an ordered list", R"({"args":[{"$absent":true}]})", {"args[0].$absent: \"$absent\" marks an element of a keyed list"}},
    {"$absent must be true", R"({"env":[{"name":"A","$absent":false}]})", {"env[name=A].$absent: must be true"}},
    {"<absent> as a list element", R"({"args":["<absent>"]})", {"args[0]: \"<absent>\" is the value of an object member"}},
};

}  // namespace

BOOST_AUTO_TEST_CASE(misused_directives_are_errors_with_paths) {
    for (auto const& r : kDirectiveRows) {
        BOOST_TEST_CONTEXT(r.what) {
            auto d = checkDirectives(json::parse(r.expected), "expectedObjects[0]");
            BOOST_TEST_REQUIRE(d.errors.size() == r.errors.size());
            for (size_t i = 0; i < r.errors.size(); ++i) {
                std::string got = d.errors[i].path + ": " + d.errors[i].message;
                BOOST_TEST(got.starts_with("expectedObjects[0]." + r.errors[i]), got);
            }
        }
    }
}
