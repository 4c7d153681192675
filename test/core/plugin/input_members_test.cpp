// The host's index of a hook's input (abi.h trn_host_api.input_members): every hook the
// Framework runs in the operator's process is offered where each member of its input lies,
// in document order, and the places agree with the text; a plugin-host child offers none (its
// plugin scans the input, as a plugin built before the index existed does). The host hands out
// only places inside the input.
#define BOOST_TEST_MODULE test_core_plugin_input_members
#include <boost/test/unit_test.hpp>

#include "core/plugin/call.hpp"
#include "core/plugin/framework.hpp"
#include "core/plugin/pipeline.hpp"
#include "core/runtime/info_builder.hpp"
#include "test_support.hpp"

#include <cstdio>

#include <map>
#include <mutex>

using namespace trainer::core;
namespace json = boost::json;

namespace {

struct Loaded {
    PluginDir dir{{"index_probe"}};
    PluginRegistry registry;
    std::mutex mu;
    std::vector<std::string> lines;  // what the probe logged
    explicit Loaded(Isolation mode) {
        PluginOptions o;
        o.isolation.mode = mode;
        registry.setLogSink([this](const std::string&, int32_t, std::string_view msg) {
            std::lock_guard lock(mu);
            lines.emplace_back(msg);
        });
        registry.loadDirectory(dir.dir.string(), o);
        BOOST_REQUIRE_MESSAGE(registry.find("index-probe"), "fixture not loaded: " << rejectionFor(registry, "index_probe"));
    }
    // The last line the probe logged that begins with `prefix`, or "".
    std::string lastLine(std::string_view prefix) {
        std::lock_guard lock(mu);
        for (auto it = lines.rbegin(); it != lines.rend(); ++it)
            if (it->rfind(prefix, 0) == 0) return *it;
        return "";
    }
    // The line the probe logged for `hook`, or "" (the last one, when it ran more than once).
    std::string lineOf(std::string_view hook) {
        std::lock_guard lock(mu);
        for (auto it = lines.rbegin(); it != lines.rend(); ++it)
            if (it->rfind(std::string(hook) + ": ", 0) == 0) return it->substr(hook.size() + 2);
        return "";
    }
};

// What the probe logs of an input it was given (fixtures/index_probe.c).
std::string textLine(std::string_view hook, std::string_view text) {
    unsigned long long h = 14695981039346656037ull;
    for (unsigned char c : text) h = (h ^ c) * 1099511628211ull;
    char line[128];
    std::snprintf(line, sizeof line, " text %zu %016llx", text.size(), h);
    return std::string(hook) + line;
}

std::string keysOf(const json::object& o) {
    std::string out;
    for (auto const& kv : o) out += (out.empty() ? "" : ",") + std::string(kv.key());
    return out;
}

}  // namespace

BOOST_AUTO_TEST_CASE(every_hook_in_process_is_offered_its_members_and_a_child_none) {
    for (auto mode : {Isolation::InProcess, Isolation::Process}) {
        BOOST_TEST_CONTEXT("isolation " << toString(mode)) {
            Loaded l(mode);
            Framework fw(l.registry);
            ObjectSet cluster;
            const json::object info = minimalInfo();
            BOOST_TEST(fw.validate(info, cluster).ok());
            auto built = fw.build(info, cluster);
            BOOST_TEST(built.diagnostics.ok());
            Diagnostics statusDiag;
            (void)fw.status(info.at("trainJob").as_object(), cluster, statusDiag);
            BOOST_TEST(statusDiag.ok());

            const bool indexed = mode == Isolation::InProcess;
            const std::string none = "none";
            // Validators and builders see the Info with `operator` last; the status hook its own input.
            BOOST_TEST(l.lineOf("CustomValidation") == (indexed ? keysOf(info) + ",operator" : none));
            BOOST_TEST(l.lineOf("EnforcePodSpec") == (indexed ? keysOf(info) + ",operator" : none));
            BOOST_TEST(l.lineOf("ComponentBuilder") == (indexed ? keysOf(info) + ",operator" : none));
            BOOST_TEST(l.lineOf("TrainJobStatus") == (indexed ? "infoVersion,trainJob,operator" : none));
        }
    }
}

BOOST_AUTO_TEST_CASE(the_host_hands_out_only_places_inside_the_input) {
    const trn_host_api* api = PluginRegistry::hostApi();
    BOOST_REQUIRE(api->struct_size >= offsetof(trn_host_api, input_members) + sizeof api->input_members);
    BOOST_REQUIRE(api->input_members);
    const std::string input = R"({"a":1,"bb":[2]})";
    const trn_member* out = nullptr;

    trn_call none;
    none.input = input;
    BOOST_TEST(api->input_members(&none, &out) == 0u);  // no places: no index

    const std::vector<MemberPlace> places{{2, 1, 5, 1}, {8, 2, 12, 3}};
    trn_call call;
    call.input = input;
    call.places = places;
    BOOST_REQUIRE_EQUAL(api->input_members(&call, &out), 2u);
    BOOST_TEST(std::string_view(out[0].key.data, out[0].key.size) == "a");
    BOOST_TEST(std::string_view(out[0].value.data, out[0].value.size) == "1");
    BOOST_TEST(std::string_view(out[1].key.data, out[1].key.size) == "bb");
    BOOST_TEST(std::string_view(out[1].value.data, out[1].value.size) == "[2]");
    BOOST_TEST(out[1].value.data == input.data() + 12);  // into the input itself
    const trn_member* again = nullptr;
    BOOST_TEST(api->input_members(&call, &again) == 2u);
    BOOST_TEST(again == out);  // made once per call

    for (MemberPlace wild : {MemberPlace{2, 1, 5, 20}, MemberPlace{40, 1, 5, 1}, MemberPlace{2, 1, std::size_t(-1), 2}}) {
        const std::vector<MemberPlace> bad{places[0], wild};
        trn_call c;
        c.input = input;
        c.places = bad;
        BOOST_TEST(api->input_members(&c, &out) == 0u);
    }
}

// Admission puts each TrainJob into its runtime's skeleton (core/plugin/info_skeleton.hpp): the
// validators are given the very text validate() gives for the Info buildInfo makes, with
// `admission` and `operator` added, and where its members lie, in either isolation mode.
BOOST_AUTO_TEST_CASE(admission_gives_validators_the_text_of_the_whole_info) {
    const json::object runtime = json::parse(R"({"apiVersion":"trainer.kubeflow.org/v1alpha1",
        "kind":"ClusterTrainingRuntime","metadata":{"name":"rt","labels":{"l":"1"}},"spec":{
        "mlPolicy":{"numNodes":2},"template":{"metadata":{"labels":{"t":"x"}},"spec":{"replicatedJobs":[
        {"name":"node","template":{"metadata":{"labels":{"trainer.kubeflow.org/trainjob-ancestor-step":"trainer"}},
        "spec":{"template":{"spec":{"containers":[{"name":"node","image":"i",
        "resources":{"requests":{"cpu":"1"}}}]}}}}}]}}}})").as_object();
    ObjectSet cluster;
    cluster.put(runtime);
    for (auto mode : {Isolation::InProcess, Isolation::Process}) {
        BOOST_TEST_CONTEXT("isolation " << toString(mode)) {
            Loaded l(mode);
            Framework fw(l.registry);
            for (std::string_view name : {"a", "b"}) {  // the second TrainJob finds the skeleton
                const json::object tj = json::parse(R"({"apiVersion":"trainer.kubeflow.org/v1alpha1","kind":"TrainJob",
                    "metadata":{"name":")" + std::string(name) + R"(","namespace":"default"},
                    "spec":{"runtimeRef":{"name":"rt"},"trainer":{"resourcesPerNode":{"requests":{"cpu":"2"}}}}})").as_object();
                Diagnostics d;
                json::object info = buildInfo(tj, runtime, d);
                BOOST_REQUIRE(d.ok());
                info["admission"] = json::object{{"operation", "CREATE"}};
                const std::string expected = json::serialize(fw.withOperator(info));

                json::object admitted;
                const Diagnostics admittedDiag = admitTrainJob(fw, tj, nullptr, cluster, &admitted);
                BOOST_TEST(errorMessages(admittedDiag).empty());
                BOOST_TEST(l.lastLine("CustomValidation text") == textLine("CustomValidation", expected));
                if (mode == Isolation::InProcess) BOOST_TEST(l.lineOf("CustomValidation") == keysOf(info) + ",operator");
                info.erase("admission");
                BOOST_TEST(json::serialize(admitted) == json::serialize(info));  // what the build is handed
            }
            BOOST_TEST(fw.skeletons().made() == 1u);
            BOOST_TEST(fw.skeletons().found() == 1u);
        }
    }
}
