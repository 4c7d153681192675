// The per-runtime part of an Info (core/plugin/info_skeleton.hpp): over the shipped and golden
// runtimes and TrainJobs that read each part of them buildInfo reads (runtime patches, the
// trainer's resources, a spec or trainer of the wrong type, bad quantities), a skeleton put
// together with its TrainJob is buildInfo's Info, member for member and in order, with the same
// diagnostics, and its text around the TrainJob's is json::serialize's with the same places.
// InfoSkeletons remembers a skeleton by runtime object and inputs, never one with errors, and
// at most kEntries.
#define BOOST_TEST_MODULE test_core_plugin_info_skeleton
#include <boost/test/unit_test.hpp>

#include "core/json/io.hpp"
#include "core/json/same_in_order.hpp"
#include "core/plugin/info_skeleton.hpp"
#include "core/plugin/info_text.hpp"
#include "core/runtime/info_builder.hpp"

#include <filesystem>
#include <fstream>
#include <sstream>

using namespace trainer::core;
namespace fs = std::filesystem;

namespace {

std::string readFile(const fs::path& p) {
    std::ifstream in(p);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

std::vector<json::value> yamlDocuments(const fs::path& p) {
    std::vector<json::value> docs;
    std::string error;
    BOOST_REQUIRE_MESSAGE(parseYaml(readFile(p), docs, error), p << ": " << error);
    return docs;
}

// The shipped example runtimes and the golden cases' runtimes.
std::vector<json::object> runtimes() {
    std::vector<json::object> out;
    for (auto const& e : fs::directory_iterator(fs::path(TRAINER_SOURCE_DIR) / "examples"))
        if (e.path().filename().string().find("-runtime-") != std::string::npos)
            for (auto const& doc : yamlDocuments(e.path()))
                if (doc.is_object() && json::value_to<std::string>(doc.at("kind")).ends_with("TrainingRuntime"))
                    out.push_back(doc.as_object());
    for (auto const& e : fs::directory_iterator(fs::path(TRAINER_GOLDEN_DIR) / "upstream"))
        if (e.path().extension() == ".json") {
            const json::value golden = json::parse(readFile(e.path()));
            for (auto const& rt : golden.at("runtimes").as_array()) out.push_back(rt.as_object());
        }
    BOOST_REQUIRE_GE(out.size(), 8u);
    return out;
}

json::object trainJob(std::string_view name, json::object spec) {
    return json::object{{"apiVersion", "trainer.kubeflow.org/v1alpha1"},
                        {"kind", "TrainJob"},
                        {"metadata", {{"name", name}, {"namespace", "default"}, {"uid", std::string(name) + "-uid"}}},
                        {"spec", std::move(spec)}};
}

// TrainJobs that read every part of the runtime buildInfo reads, and some that it refuses.
std::vector<json::object> trainJobs() {
    const json::value patch = json::parse(R"([{"manager":"trainer.kubeflow.org/kubectl","trainingRuntimeSpec":{
        "template":{"metadata":{"labels":{"patched":"yes"},"annotations":{"a":"b"}},
        "spec":{"replicatedJobs":[{"name":"node","template":{"spec":{"template":{"spec":{
        "nodeSelector":{"pool":"gpu"},"containers":[{"name":"node","env":[{"name":"P","value":"1"}]}]}}}}}]}}}}])");
    std::vector<json::object> out{
        trainJob("plain", {{"trainer", {{"numNodes", 2}, {"image", "img"}}}}),
        trainJob("no-trainer", {}),
        trainJob("resources", {{"trainer", {{"resourcesPerNode", {{"requests", {{"cpu", "2"}, {"memory", "1Gi"}}},
                                                                  {"limits", {{"cpu", "4"}}}}}}}}),
        trainJob("patched", {{"runtimePatches", patch}, {"trainer", {{"numNodes", 1}}}}),
        trainJob("patched-resources", {{"runtimePatches", patch},
                                       {"trainer", {{"resourcesPerNode", {{"requests", {{"cpu", "500m"}}}}}}}}),
        trainJob("bad-quantity", {{"trainer", {{"resourcesPerNode", {{"requests", {{"cpu", "lots"}}}}}}}}),
        trainJob("bad-patches", {{"runtimePatches", json::array{1, "x"}}}),
        trainJob("bad-trainer", {{"trainer", 7}}),
    };
    out.push_back(json::object{{"metadata", {{"name", "bad-spec"}}}, {"spec", "none"}});
    out.push_back(json::object{{"metadata", {{"name", "no-spec"}}}});
    return out;
}

std::string describe(const Diagnostics& d) {
    std::string out;
    for (auto const& e : d.errors) out += "E " + e.path + " " + e.message + " " + e.origin + "\n";
    for (auto const& w : d.warnings) out += "W " + w.path + " " + w.message + "\n";
    return out;
}

bool samePlaces(std::span<const MemberPlace> a, std::span<const MemberPlace> b) {
    if (a.size() != b.size()) return false;
    for (std::size_t i = 0; i < a.size(); ++i)
        if (a[i].keyAt != b[i].keyAt || a[i].keySize != b[i].keySize || a[i].valueAt != b[i].valueAt ||
            a[i].valueSize != b[i].valueSize)
            return false;
    return true;
}

}  // namespace

BOOST_AUTO_TEST_CASE(a_skeleton_with_its_trainjob_is_buildInfo) {
    int withErrors = 0, without = 0;
    for (auto const& rt : runtimes())
        for (auto const& tj : trainJobs()) {
            BOOST_TEST_CONTEXT(keyOf(rt).display() << " with TrainJob " << json::serialize(tj.at("metadata"))) {
                Diagnostics built, fromSkeleton;
                const json::object info = buildInfo(tj, rt, built);
                auto skeleton = makeInfoSkeleton(tj, rt, fromSkeleton);
                BOOST_TEST(describe(fromSkeleton) == describe(built));
                BOOST_TEST(!skeleton == !built.ok());
                if (!skeleton) {
                    ++withErrors;
                    continue;
                }
                ++without;
                BOOST_TEST(describe(skeleton->diagnostics) == describe(built));
                BOOST_TEST(sameInOrder(assembleInfo(*skeleton, tj), info));
                BOOST_TEST(!skeleton->members.contains("trainJob"));

                // Its text, with the TrainJob's spliced in, is the Info's, and so are the places.
                const HookInput whole = indexedText(info);
                std::string text = skeleton->head;
                appendJson(text, tj);
                const std::size_t tailAt = text.size();
                text += skeleton->tail;
                text += '}';
                BOOST_TEST(text == json::serialize(info));
                std::vector<MemberPlace> places = skeleton->headPlaces;
                BOOST_REQUIRE(!places.empty());
                places.back().valueSize = tailAt - places.back().valueAt;
                for (MemberPlace p : skeleton->tailPlaces) places.push_back({p.keyAt + tailAt, p.keySize, p.valueAt + tailAt, p.valueSize});
                BOOST_TEST(samePlaces(places, whole.places));
            }
        }
    // Both kinds were seen: the cases reach buildInfo's errors and its Infos.
    BOOST_TEST(withErrors > 0);
    BOOST_TEST(without > 0);
}

BOOST_AUTO_TEST_CASE(only_what_buildInfo_reads_of_the_trainjob_is_an_input) {
    json::object tj = trainJobs()[4];  // patched-resources
    tj["status"] = json::object{{"conditions", json::array{}}};
    tj["spec"].as_object()["trainer"].as_object()["image"] = "other";
    tj["spec"].as_object()["suspend"] = true;
    const json::value whole = tj;
    json::object trainer{{"resourcesPerNode", whole.at_pointer("/spec/trainer/resourcesPerNode")}};
    json::object spec{{"runtimePatches", whole.at_pointer("/spec/runtimePatches")}, {"trainer", std::move(trainer)}};
    BOOST_TEST(json::serialize(infoInputsOf(tj)) == json::serialize(json::object{{"spec", std::move(spec)}}));
    BOOST_TEST(json::serialize(infoInputsOf(trainJobs()[8])) == R"({"spec":"none"})");
    BOOST_TEST(json::serialize(infoInputsOf(trainJobs()[7])) == R"({"spec":{"trainer":7}})");
    BOOST_TEST(json::serialize(infoInputsOf(trainJobs()[9])) == "{}");
}

BOOST_AUTO_TEST_CASE(skeletons_are_remembered_by_runtime_object_and_inputs) {
    const auto all = runtimes();
    auto runtime = std::make_shared<const json::object>(all.front());
    const auto jobs = trainJobs();
    InfoSkeletons skeletons;
    Diagnostics d;
    auto first = skeletons.get(runtime, jobs[0], d);
    BOOST_REQUIRE(first);
    // Another TrainJob with the same inputs: the same skeleton.
    json::object other = jobs[0];
    other["metadata"].as_object()["name"] = "other";
    other["spec"].as_object()["trainer"].as_object()["numNodes"] = 5;
    BOOST_TEST(skeletons.get(runtime, other, d) == first);
    BOOST_TEST(skeletons.found() == 1u);
    BOOST_TEST(skeletons.made() == 1u);
    // Other inputs, or an equal runtime that is another object: made anew.
    auto patched = skeletons.get(runtime, jobs[3], d);
    BOOST_TEST((patched && patched != first));
    auto copy = std::make_shared<const json::object>(*runtime);
    auto fromCopy = skeletons.get(copy, jobs[0], d);
    BOOST_TEST((fromCopy && fromCopy != first));
    BOOST_TEST(skeletons.made() == 3u);
    BOOST_TEST(d.ok());
    // Errors: no skeleton, reported every time, nothing remembered.
    for (int i = 0; i < 2; ++i) {
        Diagnostics bad;
        BOOST_TEST(!skeletons.get(runtime, jobs[5], bad));
        BOOST_TEST(!bad.ok());
    }
    BOOST_TEST(skeletons.made() == 3u);
    // At most kEntries: after that many other runtimes, the first is made again.
    std::vector<std::shared_ptr<const json::object>> held;
    for (std::size_t i = 0; i < InfoSkeletons::kEntries; ++i) {
        held.push_back(std::make_shared<const json::object>(*runtime));
        BOOST_TEST(skeletons.get(held.back(), jobs[0], d));
    }
    const std::size_t made = skeletons.made();
    BOOST_TEST(skeletons.get(runtime, jobs[0], d) != first);
    BOOST_TEST(skeletons.made() == made + 1);
}
