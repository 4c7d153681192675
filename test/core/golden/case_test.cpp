// The case format: what a valid case reads as, and each malformed member reported at its path.
#include <boost/test/unit_test.hpp>

#include "core/golden/case.hpp"

#include <string>
#include <vector>

using namespace trainer::core;
using namespace trainer::core::golden;

namespace {

const char* kTrainJob = R"({"apiVersion":"trainer.kubeflow.org/v1alpha1","kind":"TrainJob",
    "metadata":{"name":"j","namespace":"default"},"spec":{"runtimeRef":{"name":"rt"}}})";
const char* kRuntime = R"({"apiVersion":"trainer.kubeflow.org/v1alpha1","kind":"ClusterTrainingRuntime",
    "metadata":{"name":"rt"},"spec":{"template":{"spec":{"replicatedJobs":[]}}}})";

// A valid build case with `extra` members merged over it (a null member is removed).
json::object caseWith(const char* extra) {
    json::object c{{"trainJob", json::parse(kTrainJob)},
                   {"runtimes", json::array{json::parse(kRuntime)}},
                   {"expectedObjects", json::array{}}};
    const json::value members = json::parse(extra);
    for (auto const& [k, v] : members.as_object()) {
        if (v.is_null()) c.erase(k);
        else c[k] = v;
    }
    return c;
}

std::vector<std::string> errorsOf(const json::value& doc) {
    GoldenCase c;
    std::vector<std::string> out;
    for (auto const& e : parseCase(doc, "file-stem", c).errors) out.push_back(e.path + ": " + e.message);
    return out;
}

}  // namespace

BOOST_AUTO_TEST_CASE(a_valid_case_reads_every_member) {
    auto doc = caseWith(R"({"name":"n","stage":"build","description":"d","source":"s","notes":"x",
        "featureGates":{"TrainJobStatus":true},
        "existingObjects":[{"apiVersion":"v1","kind":"Secret","metadata":{"name":"s"}}],
        "expectedObjects":[{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"},"data":"<any>"}],
        "expectedWarnings":[{"field":"spec.x","message":"deprecated"},{"message":"only text"}]})");
    GoldenCase c;
    auto d = parseCase(doc, "stem", c);
    BOOST_TEST_REQUIRE(d.ok(), (d.errors.empty() ? "" : d.errors[0].path + ": " + d.errors[0].message));
    BOOST_TEST(c.name == "n");
    BOOST_TEST((c.stage == Stage::Build));
    BOOST_TEST(c.runtimes.size() == 1u);
    BOOST_TEST(c.existingObjects.size() == 1u);
    BOOST_TEST_REQUIRE(c.expectedObjects.has_value());
    BOOST_TEST(c.expectedObjects->size() == 1u);
    BOOST_TEST(c.featureGates.at("TrainJobStatus"));
    BOOST_TEST_REQUIRE(c.expectedWarnings.has_value());
    BOOST_TEST(*c.expectedWarnings->at(0).field == "spec.x");
    BOOST_TEST(!c.expectedWarnings->at(1).field.has_value());
    BOOST_TEST(!c.expectsError());
    auto docs = inputDocuments(c);
    BOOST_TEST_REQUIRE(docs.size() == 3u);
    BOOST_TEST(docs[0].origin == "trainJob");
    BOOST_TEST(docs[1].origin == "runtimes[0]");
    BOOST_TEST(docs[2].origin == "existingObjects[0]");
}

BOOST_AUTO_TEST_CASE(the_upstream_parity_format_is_valid) {
    // expectedError null = must succeed; a string = an error containing it; stage defaults to build.
    GoldenCase ok, admission;
    BOOST_TEST(parseCase(caseWith(R"({"name":"x","source":"s","notes":"n","expectedError":null})"), "f", ok).ok());
    BOOST_TEST(!ok.expectsError());
    BOOST_TEST((ok.stage == Stage::Build));
    BOOST_TEST(ok.name == "x");
    BOOST_TEST(parseCase(caseWith(R"({"stage":"admission","expectedError":"must be"})"), "f", admission).ok());
    BOOST_TEST(admission.expectsError());
    BOOST_TEST(*admission.expectedError == "must be");
    GoldenCase unnamed;
    BOOST_TEST(parseCase(caseWith("{}"), "file-stem", unnamed).ok());
    BOOST_TEST(unnamed.name == "file-stem");
}

BOOST_AUTO_TEST_CASE(expected_errors_read_as_field_and_message) {
    GoldenCase c;
    auto doc = caseWith(R"({"stage":"admission","expectedObjects":null,
        "expectedErrors":[{"field":"spec.trainer.numProcPerNode","message":"greater than"},{"field":""}]})");
    BOOST_TEST_REQUIRE(parseCase(doc, "f", c).ok());
    BOOST_TEST(c.expectsError());
    BOOST_TEST(*c.expectedErrors->at(0).field == "spec.trainer.numProcPerNode");
    BOOST_TEST(*c.expectedErrors->at(0).message == "greater than");
    BOOST_TEST(c.expectedErrors->at(1).field->empty());
    BOOST_TEST(!c.expectedErrors->at(1).message.has_value());
    GoldenCase none;  // expectedErrors: [] = no errors: then objects are expected
    BOOST_TEST(parseCase(caseWith(R"({"expectedErrors":[]})"), "f", none).ok());
    BOOST_TEST(!none.expectsError());
}

namespace {

struct Malformed {
    const char* what;
    const char* members;  // merged over the valid case
    std::vector<std::string> errors;
};

const std::vector<Malformed> kMalformed = {
    {"unknown member", R"({"expectedObject":[]})", {"expectedObject: unknown member; a case has name, description"}},
    {"stage", R"({"stage":"reconcile"})", {"stage: must be \"admission\" or \"build\", not \"reconcile\""}},
    {"name not a string", R"({"name":3})", {"name: must be a string, not 3"}},
    {"trainJob missing", R"({"trainJob":null})", {"trainJob: required: the TrainJob of the case"}},
    {"trainJob of another kind", R"({"trainJob":{"kind":"JobSet"}})", {"trainJob.kind: must be TrainJob, not \"JobSet\""}},
    {"trainJob without kind", R"({"trainJob":{"metadata":{}}})", {"trainJob.kind: required: the object's kind"}},
    {"runtimes not a list", R"({"runtimes":{}})", {"runtimes: must be a list of objects"}},
    {"runtime of another kind", R"({"runtimes":[{"kind":"TrainingRuntime"},{"kind":"TrainJob"}]})",
     {"runtimes[1].kind: must be TrainingRuntime or ClusterTrainingRuntime, not \"TrainJob\""}},
    {"existing object not an object", R"({"existingObjects":[3]})", {"existingObjects[0]: must be an object"}},
    {"expected object without identity", R"({"expectedObjects":[{"kind":"ConfigMap","metadata":{}}]})",
     {"expectedObjects[0].apiVersion: required", "expectedObjects[0].metadata.name: required"}},
    {"expected object twice", R"({"expectedObjects":[{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"}},
        {"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"}}]})", {"expectedObjects[1]: a second expected ConfigMap c"}},
    {"directive misused in an expected object",
     R"({"expectedObjects":[{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c","$absent":true}}]})",
     {"expectedObjects[0].metadata.$absent: \"$absent\" marks an element of a keyed list"}},
    {"expectedError not a string", R"({"expectedError":["x"]})", {"expectedError: must be a string"}},
    {"expectedErrors not a list", R"({"expectedErrors":"x","expectedObjects":null})", {"expectedErrors: must be a list of {field, message}"}},
    {"expected error field not a string", R"({"expectedErrors":[{"field":1}],"expectedObjects":null})",
     {"expectedErrors[0].field: must be a string"}},
    {"expected error unknown member", R"({"expectedErrors":[{"path":"x"}],"expectedObjects":null})",
     {"expectedErrors[0].path: unknown member (field, message)"}},
    {"expected error empty", R"({"expectedErrors":[{}],"expectedObjects":null})", {"expectedErrors[0]: needs field, message or both"}},
    {"expected warning not an object", R"({"expectedWarnings":["x"]})", {"expectedWarnings[0]: must be an object"}},
    {"unknown feature gate", R"({"featureGates":{"NoSuchGate":true}})", {"featureGates.NoSuchGate: unknown feature gate (known: "}},
    {"feature gate not a bool", R"({"featureGates":{"TrainJobStatus":"yes"}})", {"featureGates.TrainJobStatus: must be true or false"}},
    {"admission with objects", R"({"stage":"admission","expectedError":"x",
        "expectedObjects":[{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"}}]})",
     {"expectedObjects: must be empty or left out in an admission case"}},
    {"errors with objects", R"({"expectedError":"x","expectedObjects":[{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"}}]})",
     {"expectedObjects: must be empty or left out when errors are expected"}},
    {"build with no expectation", R"({"expectedObjects":null})", {"expectedObjects: required: a build case expects objects"}},
};

}  // namespace

BOOST_AUTO_TEST_CASE(each_malformed_member_is_an_error_at_its_path) {
    for (auto const& m : kMalformed) {
        BOOST_TEST_CONTEXT(m.what) {
            auto got = errorsOf(caseWith(m.members));
            BOOST_TEST_REQUIRE(got.size() == m.errors.size(), [&] {
                std::string all;
                for (auto const& g : got) all += g + "\n";
                return all;
            }());
            for (size_t i = 0; i < got.size(); ++i) BOOST_TEST(got[i].starts_with(m.errors[i]), got[i]);
        }
    }
}

BOOST_AUTO_TEST_CASE(a_case_is_an_object) {
    auto got = errorsOf(json::parse("[1,2]"));
    BOOST_TEST_REQUIRE(got.size() == 1u);
    BOOST_TEST(got[0].starts_with(": a case is an object"), got[0]);
}
