// Comparing what the host reported with what a case expects: errors (substring; field and
// message, paired in any order), warnings, and objects by identity then as subsets.
#include <boost/test/unit_test.hpp>

#include "core/golden/expectations.hpp"

#include <string>
#include <vector>

using namespace trainer::core;
using namespace trainer::core::golden;

namespace {

GoldenCase baseCase(Stage stage = Stage::Build) {
    GoldenCase c;
    c.stage = stage;
    c.trainJob = json::parse(R"({"apiVersion":"trainer.kubeflow.org/v1alpha1","kind":"TrainJob",
        "metadata":{"name":"j","namespace":"default"}})").as_object();
    return c;
}

Diagnostics errors(std::vector<std::pair<std::string, std::string>> list) {
    Diagnostics d;
    for (auto& [p, m] : list) {
        d.add(p, m);
        d.errors.back().origin = "trainJob: TrainJob default/j";
    }
    return d;
}

ExpectedDiagnostic field(std::string f, std::string m) { return {std::move(f), std::move(m)}; }

json::object obj(const char* text) { return json::parse(text).as_object(); }

const char* kJobSet = R"({"apiVersion":"jobset.x-k8s.io/v1alpha2","kind":"JobSet",
    "metadata":{"name":"j","namespace":"default"},"spec":{"suspend":false}})";
const char* kSnapshot = R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"j-runtime-snapshot","namespace":"default"}})";

}  // namespace

BOOST_AUTO_TEST_CASE(expected_error_substring) {
    auto c = baseCase(Stage::Admission);
    c.expectedError = "greater than or equal to 1";
    auto d = errors({{"spec.trainer.numProcPerNode", "Invalid value: \"integer\": must be greater than or equal to 1"}});
    BOOST_TEST(compareOutcome(c, {d, {}}).empty());
    // The field path is part of the line it is searched in, as the old runner searched stderr.
    c.expectedError = "spec.trainer.numProcPerNode: Invalid value";
    BOOST_TEST(compareOutcome(c, {d, {}}).empty());
    c.expectedError = "less than";
    auto p = compareOutcome(c, {d, {}});
    BOOST_TEST_REQUIRE(p.size() == 2u);
    BOOST_TEST(p[0] == "no error contains \"less than\"; the errors:");
    BOOST_TEST(p[1] == "  trainJob: TrainJob default/j: spec.trainer.numProcPerNode: Invalid value: \"integer\": must be "
                       "greater than or equal to 1");
    c.expectedError = "";  // any error
    BOOST_TEST(compareOutcome(c, {d, {}}).empty());
}

BOOST_AUTO_TEST_CASE(an_expected_error_that_does_not_come) {
    auto c = baseCase(Stage::Admission);
    c.expectedError = "must be";
    auto p = compareOutcome(c, {Diagnostics{}, {}});
    BOOST_TEST_REQUIRE(p.size() == 1u);
    BOOST_TEST(p[0] == "expected an error containing \"must be\", but admission succeeded");
    auto b = baseCase(Stage::Build);
    b.expectedErrors = std::vector{field("spec.x", "bad")};
    p = compareOutcome(b, {Diagnostics{}, {}});
    BOOST_TEST_REQUIRE(p.size() == 1u);
    BOOST_TEST(p[0] == "expected an error, but the build succeeded");
}

BOOST_AUTO_TEST_CASE(unexpected_errors_fail_a_case_that_expects_none) {
    auto c = baseCase(Stage::Admission);
    BOOST_TEST(compareOutcome(c, {Diagnostics{}, {}}).empty());
    auto p = compareOutcome(c, {errors({{"spec.x", "bad"}}), {}});
    BOOST_TEST_REQUIRE(p.size() == 1u);
    BOOST_TEST(p[0] == "unexpected error: trainJob: TrainJob default/j: spec.x: bad");
}

BOOST_AUTO_TEST_CASE(expected_errors_are_exactly_those_reported) {
    auto c = baseCase(Stage::Admission);
    c.expectedErrors = std::vector{field("spec.a", "first"), field("spec.b", "second")};
    auto both = errors({{"spec.b", "the second problem"}, {"spec.a", "the first problem"}});
    BOOST_TEST(compareOutcome(c, {both, {}}).empty());  // any order

    auto p = compareOutcome(c, {errors({{"spec.a", "the first problem"}}), {}});
    BOOST_TEST_REQUIRE(p.size() == 1u);
    BOOST_TEST(p[0] == "expected error not reported: field spec.b, message containing \"second\"");

    p = compareOutcome(c, {errors({{"spec.a", "first"}, {"spec.b", "second"}, {"spec.c", "third"}}), {}});
    BOOST_TEST_REQUIRE(p.size() == 1u);
    BOOST_TEST(p[0] == "unexpected error: trainJob: TrainJob default/j: spec.c: third");

    // The field is compared whole, the message as a substring.
    p = compareOutcome(c, {errors({{"spec.a.x", "first"}, {"spec.b", "second"}}), {}});
    BOOST_TEST_REQUIRE(p.size() == 2u);
    BOOST_TEST(p[0] == "expected error not reported: field spec.a, message containing \"first\"");
}

BOOST_AUTO_TEST_CASE(expected_errors_pair_up_whatever_their_order) {
    // A first-fit pairing would give the broad entry the specific error and fail the case.
    auto c = baseCase(Stage::Admission);
    c.expectedErrors = std::vector{ExpectedDiagnostic{std::nullopt, "must"}, field("spec.a", "must be set")};
    BOOST_TEST(compareOutcome(c, {errors({{"spec.a", "must be set"}, {"spec.b", "must be positive"}}), {}}).empty());
    // Either member may be left out: field only, message only.
    c.expectedErrors = std::vector{ExpectedDiagnostic{"spec.a", std::nullopt}};
    BOOST_TEST(compareOutcome(c, {errors({{"spec.a", "anything"}}), {}}).empty());
    c.expectedErrors = std::vector{ExpectedDiagnostic{"", std::nullopt}};  // "" = an error without a path
    BOOST_TEST(compareOutcome(c, {errors({{"", "no path"}}), {}}).empty());
    BOOST_TEST(compareOutcome(c, {errors({{"spec.a", "a path"}}), {}}).size() == 2u);
}

BOOST_AUTO_TEST_CASE(warnings_when_expected) {
    auto c = baseCase(Stage::Admission);
    Diagnostics d;
    d.warn("spec.runtimeRef", "runtime is deprecated");
    BOOST_TEST(compareOutcome(c, {d, {}}).empty());  // not checked unless expectedWarnings is given
    c.expectedWarnings = std::vector{field("spec.runtimeRef", "deprecated")};
    BOOST_TEST(compareOutcome(c, {d, {}}).empty());
    c.expectedWarnings = std::vector<ExpectedDiagnostic>{};  // [] = none
    auto p = compareOutcome(c, {d, {}});
    BOOST_TEST_REQUIRE(p.size() == 1u);
    BOOST_TEST(p[0] == "unexpected warning: spec.runtimeRef: runtime is deprecated");
    c.expectedWarnings = std::vector{field("spec.other", "deprecated")};
    BOOST_TEST(compareOutcome(c, {d, {}}).size() == 2u);
}

BOOST_AUTO_TEST_CASE(objects_by_identity_then_as_subsets) {
    auto c = baseCase();
    c.expectedObjects = std::vector{obj(kJobSet)};
    BOOST_TEST(compareOutcome(c, {{}, {obj(kJobSet), obj(kSnapshot)}}).empty());  // the snapshot is the operator's

    auto other = obj(kJobSet);
    other["spec"].as_object()["suspend"] = true;
    auto p = compareOutcome(c, {{}, {other}});
    BOOST_TEST_REQUIRE(p.size() == 1u);
    BOOST_TEST(p[0] == "JobSet default/j: spec.suspend: expected false, found true");

    auto extra = obj(R"({"apiVersion":"v1","kind":"Secret","metadata":{"name":"s","namespace":"default"}})");
    p = compareOutcome(c, {{}, {extra}});
    BOOST_TEST_REQUIRE(p.size() == 2u);
    BOOST_TEST(p[0] == "missing object jobset.x-k8s.io/v1alpha2 JobSet default/j");
    BOOST_TEST(p[1] == "unexpected object v1 Secret default/s");
}

BOOST_AUTO_TEST_CASE(the_snapshot_is_compared_when_expected) {
    auto c = baseCase();
    auto want = obj(kSnapshot);
    want["data"] = json::object{{"runtime", "<any>"}};
    c.expectedObjects = std::vector{want};
    auto p = compareOutcome(c, {{}, {obj(kSnapshot)}});
    BOOST_TEST_REQUIRE(p.size() == 1u);
    BOOST_TEST(p[0] == "ConfigMap default/j-runtime-snapshot: data: missing");
    c.expectedObjects = std::vector<json::object>{};
    BOOST_TEST(compareOutcome(c, {{}, {obj(kSnapshot)}}).empty());
}

BOOST_AUTO_TEST_CASE(objects_are_not_compared_when_the_build_failed) {
    auto c = baseCase();
    c.expectedObjects = std::vector{obj(kJobSet)};
    auto p = compareOutcome(c, {errors({{"spec.x", "bad"}}), {}});
    BOOST_TEST_REQUIRE(p.size() == 1u);
    BOOST_TEST(p[0].starts_with("unexpected error: "));
}
