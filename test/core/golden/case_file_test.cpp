// Case files: which files CASES names, YAML (comments allowed) and JSON, and the errors of a
// file that is not one case.
#include <boost/test/unit_test.hpp>

#include "core/golden/case_file.hpp"
#include "test/support/process.hpp"

#include <filesystem>

using namespace trainer::core;
using namespace trainer::core::golden;
using trainer::test::TempDir;

namespace {

const char* kYamlCase = R"(# a case, with comments
name: torch sets PET_NNODES
stage: build
trainJob:
  apiVersion: trainer.kubeflow.org/v1alpha1
  kind: TrainJob
  metadata: {name: j}     # namespace defaults to "default"
  spec: {runtimeRef: {name: rt}}
expectedObjects: []
)";

std::string errorLines(const Diagnostics& d) {
    std::string s;
    for (auto const& e : d.errors) s += e.origin + ": " + e.path + ": " + e.message + "\n";
    return s;
}

}  // namespace

BOOST_AUTO_TEST_CASE(directories_hold_their_yaml_and_json_files_sorted) {
    TempDir t;
    t.write("b.yaml", kYamlCase);
    t.write("a.json", "{}");
    t.write("c.yml", kYamlCase);
    t.write("README.md", "not a case");
    t.write(".hidden.yaml", kYamlCase);
    std::filesystem::create_directory(t.path / "sub");
    t.write("sub/d.yaml", kYamlCase);  // not recursive
    std::vector<std::string> files;
    BOOST_TEST_REQUIRE(collectCaseFiles({t.path.string(), t.file("README.md")}, files).ok());
    BOOST_TEST((files == std::vector<std::string>{t.file("a.json"), t.file("b.yaml"), t.file("c.yml"), t.file("README.md")}));
}

BOOST_AUTO_TEST_CASE(missing_paths_and_empty_directories_are_errors) {
    TempDir t, empty;
    std::vector<std::string> files;
    auto d = collectCaseFiles({t.file("nope.yaml"), empty.path.string()}, files);
    BOOST_TEST_REQUIRE(d.errors.size() == 2u);
    BOOST_TEST(d.errors[0].message == t.file("nope.yaml") + ": no such file or directory");
    BOOST_TEST(d.errors[1].message.find("no case files (*.yaml, *.yml, *.json)") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(yaml_with_comments_and_json_read_alike) {
    TempDir t;
    GoldenCase y, j;
    auto d = loadCaseFile(t.write("case.yaml", kYamlCase).string(), y);
    BOOST_TEST_REQUIRE(d.ok(), errorLines(d));
    BOOST_TEST(y.name == "torch sets PET_NNODES");
    BOOST_TEST(y.trainJob.at("metadata").at("name") == "j");
    d = loadCaseFile(t.write("named-by-file.json", R"({"trainJob":{"kind":"TrainJob"},"expectedError":"x"})").string(), j);
    BOOST_TEST_REQUIRE(d.ok(), errorLines(d));
    BOOST_TEST(j.name == "named-by-file");
}

BOOST_AUTO_TEST_CASE(a_file_that_is_not_one_case_is_an_error_naming_it) {
    TempDir t;
    struct Row {
        const char* file;
        const char* text;
        const char* error;  // "path: message" prefix
    };
    const Row rows[] = {
        {"two.yaml", "trainJob: {kind: TrainJob}\n---\ntrainJob: {kind: TrainJob}\n",
         ": holds 2 YAML documents; a case file holds exactly one"},
        {"empty.yaml", "# nothing\n", ": holds 0 YAML documents"},
        {"bad.yaml", "trainJob: [\n", ": not valid YAML: line "},
        {"bad.json", "{\"trainJob\": ", ": not valid JSON"},
        {"dup.json", R"({"name":"a","name":"b"})", ": not valid JSON: "},
        {"member.yaml", "trainJob: {kind: TrainJob}\nexpectedErrors: [{field: 1}]\n",
         "expectedErrors[0].field: must be a string"},
    };
    for (auto const& r : rows) {
        BOOST_TEST_CONTEXT(r.file) {
            GoldenCase c;
            const std::string path = t.write(r.file, r.text).string();
            auto d = loadCaseFile(path, c);
            BOOST_TEST_REQUIRE(!d.ok());
            BOOST_TEST(d.errors[0].origin == path);
            BOOST_TEST((d.errors[0].path + ": " + d.errors[0].message).starts_with(r.error), errorLines(d));
        }
    }
    GoldenCase c;
    auto d = loadCaseFile(t.file("absent.yaml"), c);
    BOOST_TEST_REQUIRE(d.errors.size() == 1u);
    BOOST_TEST(d.errors[0].message == "cannot read the file");
}
