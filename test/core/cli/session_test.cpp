// Session::admitAndBuild (render's one pass: each TrainJob built right after its admission, from
// the Info admission built) against admitInputs then buildTrainJobs: the same objects and the
// same diagnostics, a runtime snapshot among the inputs still building from the snapshot, and an
// admission failure leaving out every build's diagnostics. Real plugins (the build's .so files).
#define BOOST_TEST_MODULE test_core_cli_session
#include <boost/test/unit_test.hpp>

#include "core/cli/session.hpp"
#include "core/json/io.hpp"
#include "core/runtime/info_builder.hpp"
#include "../../support/process.hpp"

#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>

using namespace trainer::core;
using trainer::core::cli::Session;
namespace fs = std::filesystem;

namespace {

const std::string kPlugins = TRAINER_PLUGIN_BUILD_DIR;

json::object torchRuntime() {
    std::ifstream in(std::string(TRAINER_SOURCE_DIR) + "/examples/10-runtime-torch-distributed.yaml");
    std::stringstream text;
    text << in.rdbuf();
    std::vector<json::value> docs;
    std::string error;
    BOOST_REQUIRE_MESSAGE(parseYaml(text.str(), docs, error) && docs.size() == 1, error);
    return docs.front().as_object();
}

json::object trainJob(const std::string& name, const std::string& runtime) {
    return json::object{{"apiVersion", "trainer.kubeflow.org/v1alpha1"},
                        {"kind", "TrainJob"},
                        {"metadata", {{"name", name}, {"namespace", "default"}}},
                        {"spec", {{"runtimeRef", {{"name", runtime}}}, {"trainer", {{"numNodes", 2}}}}}};
}

// The objects as one JSON List file in a fresh directory (removed when the test program exits);
// its path.
std::string inputFile(const json::array& items) {
    static std::vector<std::unique_ptr<trainer::test::TempDir>> dirs;
    const fs::path dir = dirs.emplace_back(std::make_unique<trainer::test::TempDir>())->path;
    const std::string path = (dir / "in.json").string();
    std::ofstream(path) << toJson(json::object{{"apiVersion", "v1"}, {"kind", "List"}, {"items", items}});
    return path;
}

std::string text(const Diagnostics& d) {
    std::string out;
    for (auto const& e : d.errors) out += formatError(e) + "\n";
    for (auto const& w : d.warnings) out += "warning: " + w.origin + ": " + w.path + ": " + w.message + "\n";
    return out;
}

struct Rendered {
    std::vector<std::string> objects;  // as JSON text, in build order
    Diagnostics diagnostics;
};

Rendered twoCalls(const std::string& path) {
    Session s;
    Rendered r;
    r.diagnostics = s.admitInputs({path}, kPlugins);
    if (r.diagnostics.ok()) r.diagnostics.append(s.buildTrainJobs([&](json::object&& o) { r.objects.push_back(toJson(o)); }));
    return r;
}

Rendered onePass(const std::string& path) {
    Session s;
    Rendered r;
    r.diagnostics = s.admitAndBuild({path}, kPlugins, [&](json::object&& o) { r.objects.push_back(toJson(o)); });
    return r;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(session)

BOOST_AUTO_TEST_CASE(one_pass_builds_what_admission_then_build_builds) {
    const std::string path = inputFile({torchRuntime(), trainJob("a", "torch-distributed"), trainJob("b", "torch-distributed"),
                                        trainJob("c", "torch-distributed")});
    auto expected = twoCalls(path);
    auto got = onePass(path);
    BOOST_TEST_REQUIRE(expected.diagnostics.ok(), text(expected.diagnostics));
    BOOST_TEST(expected.objects.size() == 6u);  // a runtime snapshot and a JobSet per TrainJob
    BOOST_TEST(got.objects == expected.objects, boost::test_tools::per_element());
    BOOST_TEST(text(got.diagnostics) == text(expected.diagnostics));
}

// A TrainJob whose snapshot is among the inputs is built from it, as the controller would, not
// from the live runtime admission read.
BOOST_AUTO_TEST_CASE(a_runtime_snapshot_among_the_inputs_is_what_the_build_uses) {
    json::object live = torchRuntime();
    json::object frozen = live;
    auto& containers = frozen["spec"].as_object()["template"].as_object()["spec"].as_object()["replicatedJobs"].as_array()[0]
                           .as_object()["template"].as_object()["spec"].as_object()["template"].as_object()["spec"]
                           .as_object()["containers"].as_array();
    containers[0].as_object()["image"] = "registry.example/frozen:1";
    json::object tj = trainJob("frozen-job", "torch-distributed");
    tj["metadata"].as_object()["uid"] = "5e0b7e0a-0000-4000-8000-000000000001";  // the snapshot's owner
    const std::string path = inputFile({live, tj, runtimeSnapshot(tj, frozen)});
    auto expected = twoCalls(path);
    auto got = onePass(path);
    BOOST_TEST_REQUIRE(expected.diagnostics.ok(), text(expected.diagnostics));
    BOOST_TEST_REQUIRE(expected.objects.size() == 1u);  // the JobSet: the snapshot exists
    BOOST_TEST(expected.objects[0].find("registry.example/frozen:1") != std::string::npos, expected.objects[0]);
    BOOST_TEST(got.objects == expected.objects, boost::test_tools::per_element());
}

// One TrainJob refused: the diagnostics are admission's alone, as when nothing is built.
BOOST_AUTO_TEST_CASE(an_admission_failure_reports_admission_alone) {
    const std::string path = inputFile({torchRuntime(), trainJob("fine", "torch-distributed"), trainJob("lost", "no-such-runtime"),
                                        trainJob("after", "torch-distributed")});
    auto expected = twoCalls(path);
    auto got = onePass(path);
    BOOST_TEST_REQUIRE(!expected.diagnostics.ok());
    BOOST_TEST(text(expected.diagnostics).find("no-such-runtime") != std::string::npos, text(expected.diagnostics));
    BOOST_TEST(!got.diagnostics.ok());
    BOOST_TEST(text(got.diagnostics) == text(expected.diagnostics));
}

BOOST_AUTO_TEST_SUITE_END()
