// `trainer-operator test-plugins` end to end: the real binary, the build tree's shipped plugins
// and a third party's plugin (fixtures/greet_plugin.cpp, built against sdk/ alone) loaded from
// its own --plugin-dir, on the cases of fixtures/golden_greet and broken copies of them.
#define BOOST_TEST_MODULE test_e2e_test_plugins
#include <boost/test/unit_test.hpp>

#include "../support/process.hpp"

#include <filesystem>
#include <regex>
#include <string>

using trainer::test::Result;
using trainer::test::sh;
using trainer::test::slurp;
using trainer::test::TempDir;
namespace fs = std::filesystem;

namespace {

const std::string kBin = TRAINER_BIN;
const std::string kGreet = GREET_PLUGIN_DIR;
const std::string kCases = GREET_CASES_DIR;

// The binary's own plugin directory is the build tree's (TRAINER_PLUGIN_DIR would override it).
Result testPlugins(const std::string& args) { return sh("env -u TRAINER_PLUGIN_DIR " + kBin + " test-plugins " + args); }

std::string lastLine(const std::string& out) {
    std::string s = out;
    while (!s.empty() && s.back() == '\n') s.pop_back();
    auto nl = s.rfind('\n');
    return nl == std::string::npos ? s : s.substr(nl + 1);
}

std::string replaced(std::string text, const std::string& from, const std::string& to) {
    auto at = text.find(from);
    BOOST_TEST_REQUIRE(at != std::string::npos, "\"" << from << "\" not in the case");
    return text.replace(at, from.size(), to);
}

// A copy of one of the cases with `from` replaced by `to`, in `dir`.
std::string brokenCopy(const TempDir& dir, const std::string& name, const std::string& from, const std::string& to) {
    return dir.write(name, replaced(slurp(kCases + "/" + name), from, to)).string();
}

}  // namespace

BOOST_AUTO_TEST_CASE(a_passing_suite_exits_0) {
    Result r = testPlugins("--plugin-dir " + kGreet + " " + kCases);
    BOOST_TEST(r.exit == 0, r.out << r.err);
    BOOST_TEST(lastLine(r.out) == "3 passed, 0 failed", r.out);
    BOOST_TEST(r.out.find("PASS " + kCases + "/greet-sets-greeting.yaml\n") != std::string::npos, r.out);
    BOOST_TEST(r.out.find("PASS " + kCases + "/torch-beside-greet.json\n") != std::string::npos, r.out);
    BOOST_TEST(r.out.find("FAIL") == std::string::npos, r.out);
}

BOOST_AUTO_TEST_CASE(the_plugin_under_test_comes_from_its_plugin_dir) {
    // Without greet.so its runtime's policy is claimed by no plugin: both greet cases fail,
    // the shipped-only case still passes.
    Result r = testPlugins(kCases);
    BOOST_TEST(r.exit == 1, r.out << r.err);
    BOOST_TEST(lastLine(r.out) == "1 passed, 2 failed", r.out);
    BOOST_TEST(r.out.find("mlPolicy.greet") != std::string::npos, r.out);
}

BOOST_AUTO_TEST_CASE(a_failing_case_prints_a_diff_naming_the_path) {
    TempDir t;
    const std::string file = brokenCopy(t, "greet-sets-greeting.yaml", "value: hello from 3 nodes", "value: hello from 4 nodes");
    Result r = testPlugins("--plugin-dir " + kGreet + " " + file + " " + kCases + "/torch-beside-greet.json");
    BOOST_TEST(r.exit == 1, r.out << r.err);
    BOOST_TEST(lastLine(r.out) == "1 passed, 1 failed", r.out);
    BOOST_TEST(r.out.find("FAIL " + file + ": greet sets GREETING on the trainer and the JobSet runs 3 nodes\n") !=
                   std::string::npos,
               r.out);
    BOOST_TEST(r.out.find("    JobSet default/hello: spec.replicatedJobs[name=node].template.spec.template.spec."
                          "containers[name=node].env[name=GREETING].value: expected \"hello from 4 nodes\", found "
                          "\"hello from 3 nodes\"\n") != std::string::npos,
               r.out);
}

BOOST_AUTO_TEST_CASE(a_failing_error_expectation_prints_what_was_reported) {
    TempDir t;
    const std::string file = brokenCopy(t, "greet-refuses-greeting-env.yaml", "field: spec.trainer.env[1].name",
                                        "field: spec.trainer.env[0].name");
    Result r = testPlugins("--plugin-dir " + kGreet + " " + file);
    BOOST_TEST(r.exit == 1, r.out << r.err);
    BOOST_TEST(lastLine(r.out) == "0 passed, 1 failed", r.out);
    BOOST_TEST(r.out.find("    expected error not reported: field spec.trainer.env[0].name, message containing "
                          "\"GREETING is set by the greet policy\"\n") != std::string::npos,
               r.out);
    BOOST_TEST(r.out.find("    unexpected error: trainJob: TrainJob default/hello: spec.trainer.env[1].name: GREETING "
                          "is set by the greet policy\n") != std::string::npos,
               r.out);
}

BOOST_AUTO_TEST_CASE(a_malformed_case_is_an_error_naming_the_field) {
    TempDir t;
    const std::string file = brokenCopy(t, "greet-refuses-greeting-env.yaml", "  - field: spec.trainer.env[1].name",
                                        "  - field: [spec.trainer.env]");
    const std::string typo = t.write("typo.yaml", replaced(slurp(kCases + "/greet-sets-greeting.yaml"), "expectedObjects:",
                                                           "expectedObject:")).string();
    Result r = testPlugins("--plugin-dir " + kGreet + " " + file + " " + typo);
    BOOST_TEST(r.exit == 1, r.out << r.err);
    BOOST_TEST(lastLine(r.out) == "0 passed, 2 failed", r.out);
    BOOST_TEST(r.out.find("FAIL " + file + ": not a valid golden case\n    error: expectedErrors[1].field: must be a string") !=
                   std::string::npos,
               r.out);
    BOOST_TEST(r.out.find("FAIL " + typo + ": not a valid golden case\n    error: expectedObject: unknown member") !=
                   std::string::npos,
               r.out);
}

BOOST_AUTO_TEST_CASE(a_rejected_plugin_under_test_stops_the_run) {
    // A copy of a shipped plugin: its name is taken by the shipped one, which wins.
    TempDir t;
    fs::create_directory(t.path / "plugins");
    fs::copy_file(std::string(TRAINER_PLUGIN_BUILD_DIR) + "/torch.so", t.path / "plugins" / "torch.so");
    Result r = testPlugins("--plugin-dir " + t.file("plugins") + " " + kCases);
    BOOST_TEST(r.exit == 2, r.out << r.err);
    BOOST_TEST(r.out.find("passed") == std::string::npos, r.out);
    BOOST_TEST(std::regex_search(r.err, std::regex("error: plugin .*/plugins/torch.so was rejected: a plugin named torch "
                                                   "is already loaded from .*")),
               r.err);
    BOOST_TEST(r.err.find("error: no case was run: every plugin must load") != std::string::npos, r.err);
}

BOOST_AUTO_TEST_CASE(usage_errors_exit_2) {
    TempDir empty;
    struct Row {
        std::string args;
        std::string error;
    };
    const Row rows[] = {
        {"", "error: \"test-plugins\" needs more arguments"},
        {kCases + "/no-such-case.yaml", "error: " + kCases + "/no-such-case.yaml: no such file or directory"},
        {empty.path.string(), "no case files (*.yaml, *.yml, *.json) in this directory"},
        {"--no-such-flag " + kCases, "error: unknown flag --no-such-flag"},
        {"--feature-gates Nope=true " + kCases, "error: invalid configuration: --feature-gates"},
    };
    for (auto const& row : rows) {
        BOOST_TEST_CONTEXT(row.args) {
            Result r = testPlugins(row.args);
            BOOST_TEST(r.exit == 2, r.out << r.err);
            BOOST_TEST(r.err.find(row.error) != std::string::npos, r.err);
        }
    }
}

BOOST_AUTO_TEST_CASE(the_documented_example_passes_as_written) {
    // sdk/docs/golden-tests.md shows a case in full: it is run here as the doc prints it.
    const std::string doc = slurp(std::string(TRAINER_SOURCE_DIR) + "/sdk/docs/golden-tests.md");
    const auto section = doc.find("## An example");
    const auto start = doc.find("```yaml\n", section);
    BOOST_TEST_REQUIRE((section != std::string::npos && start != std::string::npos));
    const auto end = doc.find("```", start + 8);
    TempDir t;
    const std::string file = t.write("documented.yaml", doc.substr(start + 8, end - start - 8)).string();
    Result r = testPlugins("--plugin-dir " + kGreet + " " + file);
    BOOST_TEST(r.exit == 0, r.out << r.err);
    BOOST_TEST(lastLine(r.out) == "1 passed, 0 failed", r.out);
}

BOOST_AUTO_TEST_CASE(help_documents_the_exit_status) {
    Result r = sh(kBin + " test-plugins --help");
    BOOST_TEST(r.exit == 0);
    BOOST_TEST(r.out.find("trainer-operator test-plugins [--plugin-dir DIR ...]") != std::string::npos, r.out);
    BOOST_TEST(r.out.find("Exit status: 0 every case passed, 1 a case failed") != std::string::npos, r.out);
    Result all = sh(kBin + " --help");
    BOOST_TEST(all.out.find("  test-plugins  Run golden cases") != std::string::npos, all.out);
}
