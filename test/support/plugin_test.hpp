// Shared by the shipped plugins' unit tests: the TrainJob and runtime inputs they start from,
// the upstream conformance cases (test/fixtures/upstream), and one hook of a plugin class on the
// operator's real host (TrainerSDK::testing, sdk/include/trainer/testing/real_host.hpp).
#pragma once

#include <trainer/testing/real_host.hpp>

#include <boost/test/unit_test.hpp>

#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>

namespace trainer::test {

namespace json = boost::json;

inline json::value readJsonFile(const std::string& path) {
    std::ifstream in(path);
    if (!in) throw std::runtime_error("cannot open " + path);
    std::stringstream ss;
    ss << in.rdbuf();
    return json::parse(ss.str());
}

// An upstream conformance case (test/golden/upstream/<file>).
inline json::object readCase(const std::string& file) {
    return readJsonFile(std::string(TRAINER_GOLDEN_DIR) + "/upstream/" + file).as_object();
}

// A TrainingRuntime (default/<name>) with one trainer job `node` whose pod has `nodeContainer`,
// and the given mlPolicy.
inline json::object makeRuntime(json::object mlPolicy, json::object nodeContainer, std::string name = "test-runtime") {
    json::object podSpec{{"containers", json::array{std::move(nodeContainer)}}};
    json::object job{
        {"name", "node"},
        {"replicas", 1},
        {"template", json::object{{"metadata", json::object{{"labels", json::object{{"trainer.kubeflow.org/trainjob-ancestor-step",
                                                                                     "trainer"}}}}},
                                  {"spec", json::object{{"template", json::object{{"spec", std::move(podSpec)}}}}}}}};
    return json::object{
        {"apiVersion", "trainer.kubeflow.org/v1alpha1"},
        {"kind", "TrainingRuntime"},
        {"metadata", json::object{{"name", name}, {"namespace", "default"}}},
        {"spec", json::object{{"mlPolicy", std::move(mlPolicy)},
                              {"template", json::object{{"spec", json::object{{"replicatedJobs", json::array{std::move(job)}}}}}}}}};
}

// A TrainJob default/test-job (uid "uid") on TrainingRuntime `runtimeName`, with the given
// spec.trainer (none when null).
inline json::object makeTrainJob(const json::value& trainer, std::string runtimeName = "test-runtime") {
    json::object spec{{"runtimeRef", json::object{{"name", runtimeName},
                                                  {"apiGroup", "trainer.kubeflow.org"},
                                                  {"kind", "TrainingRuntime"}}},
                      {"suspend", false}};
    if (!trainer.is_null()) spec["trainer"] = trainer;
    return json::object{{"apiVersion", "trainer.kubeflow.org/v1alpha1"},
                        {"kind", "TrainJob"},
                        {"metadata", json::object{{"name", "test-job"}, {"namespace", "default"}, {"uid", "uid"}}},
                        {"spec", std::move(spec)}};
}

// The Info the operator builds for `trainJob` on `runtime` (fails the test when it cannot).
inline json::object infoFor(const json::object& trainJob, const json::object& runtime) {
    auto built = sdk::testing::buildInfo(trainJob, runtime);
    BOOST_TEST_REQUIRE(built.ok(), built.describe());
    return std::move(built.info);
}

// `hook` of plugin class P (created with `config`) alone on the real host, on the Info of
// `trainJob` on `runtime`: its edits applied by the operator's ledger, its objects checked.
template <class P>
sdk::testing::Outcome runHook(sdk::testing::Hook hook, const json::object& runtime, const json::object& trainJob,
                              const json::object& config = {}) {
    sdk::testing::RealHost host;
    BOOST_TEST_REQUIRE(host.add<P>(config), (host.rejected().empty() ? "" : host.rejected()[0].reason));
    return host.run(hook, infoFor(trainJob, runtime));
}

// The edit documents plugin class P's EnforceMLPolicy emits on the Info of `trainJob` on
// `runtime`, from the fake host: what a test of "no edit at all" reads (also where the real host
// would not call the hook, its policy not being configured). Fails the test on an error.
template <class P>
std::vector<json::value> mlPolicyEdits(const json::object& runtime, const json::object& trainJob) {
    sdk::testing::Host host;
    auto ctx = host.context(P::meta().name);
    P plugin(json::object{}, ctx);
    sdk::Edits edits(ctx);
    plugin.enforceMLPolicy(sdk::Info(infoFor(trainJob, runtime)), edits, ctx);
    BOOST_TEST(host.errors().empty());
    return host.emitted;
}

// The container of an Info (fails the test when missing).
inline const json::object& container(const json::object& info, std::string_view podSet, std::string_view name,
                                     bool init = false) {
    auto* c = sdk::testing::podSetContainer(info, podSet, name, init);
    BOOST_TEST_REQUIRE(c, "no container " << name << " in PodSet " << podSet);
    return *c;
}

// The count of a PodSet, -1 when there is none.
inline int64_t podSetCount(const json::object& info, std::string_view podSet) {
    auto* ps = sdk::findByKey(sdk::getArray(info, "podSets"), "name", podSet);
    return ps ? sdk::getInt(*ps, "count").value_or(-1) : -1;
}

}  // namespace trainer::test
