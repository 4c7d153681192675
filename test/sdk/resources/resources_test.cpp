#define BOOST_TEST_MODULE sdk_resources
#include <boost/test/unit_test.hpp>

#include <trainer/resources.hpp>

#include <optional>
#include <string>
#include <vector>

namespace sdk = trainer::sdk;
namespace json = boost::json;

namespace {

// An Info whose runtime is `jobSetSpec` and whose TrainJob has `trainer` (null: none).
sdk::Info makeInfo(std::string_view jobSetSpec, std::string_view trainer = "null") {
    json::object spec{{"runtimeRef", json::object{{"name", "rt"}}}};
    if (json::value t = json::parse(trainer); !t.is_null()) spec["trainer"] = t;
    return sdk::Info(json::object{
        {"infoVersion", 1},
        {"trainJob", json::object{{"metadata", json::object{{"name", "job"}, {"namespace", "ns"}}}, {"spec", spec}}},
        {"jobSetSpec", json::parse(jobSetSpec)},
    });
}

// A replicated job with one pod template; `containers` is a JSON array.
std::string replicatedJob(std::string_view name, std::string_view ancestor, std::string_view containers) {
    std::string labels = ancestor.empty() ? "{}" : R"({"trainer.kubeflow.org/trainjob-ancestor-step":")" +
                                                       std::string(ancestor) + "\"}";
    return R"({"name":")" + std::string(name) + R"(","template":{"metadata":{"labels":)" + labels +
           R"(},"spec":{"template":{"spec":{"containers":)" + std::string(containers) + "}}}}}";
}

}  // namespace

BOOST_AUTO_TEST_CASE(ceil_quantity_table) {
    struct Row {
        json::value in;
        std::optional<int64_t> want;
    };
    const std::vector<Row> rows{
        {"4", 4},          {"2500m", 3},        {"2.5", 3},          {"0.7", 1},           {"0", 0},
        {"1k", 1000},      {"1Ki", 1024},       {"1e3", 1000},       {"5n", 1},            {json::value(2), 2},
        {json::value(0.5), 1}, {"-1", std::nullopt}, {"-500m", std::nullopt}, {"abc", std::nullopt},
        {"", std::nullopt}, {json::value(true), std::nullopt}, {json::value(nullptr), std::nullopt},
    };
    for (auto const& r : rows) {
        BOOST_TEST_CONTEXT("quantity " << json::serialize(r.in)) {
            auto got = sdk::ceilQuantity(r.in);
            BOOST_TEST(got.has_value() == r.want.has_value());
            if (got && r.want) BOOST_TEST(*got == *r.want);
        }
    }
}

BOOST_AUTO_TEST_CASE(gpu_resource_name_table) {
    const std::vector<std::pair<std::string, bool>> rows{
        {"nvidia.com/gpu", true}, {"amd.com/GPU", true}, {"gpu", true},   {"example.com/vGpu-slice", true},
        {"cpu", false},           {"memory", false},     {"g-p-u", false}, {"", false},
    };
    for (auto const& [name, want] : rows)
        BOOST_TEST_CONTEXT("name " << name) { BOOST_TEST(sdk::isGpuResource(name) == want); }
}

// Upstream GetNumGPUPerNode, as torch and mpi use it
// (https://github.com/kubeflow/trainer/blob/8c0f5059bd51ec3ba6d6a6a7b2e1471de7bc13b3/pkg/runtime/runtime.go):
// requests first, rounded up; limits when that is 0.
BOOST_AUTO_TEST_CASE(gpu_count_table) {
    struct Row {
        const char* name;
        const char* resources;  // ResourceRequirements JSON, "null" = none
        int64_t want;
    };
    const std::vector<Row> rows{
        {"no resources", "null", 0},
        {"empty", "{}", 0},
        {"cpu only", R"({"requests":{"cpu":"4"},"limits":{"cpu":"8"}})", 0},
        {"requests", R"({"requests":{"nvidia.com/gpu":"2"}})", 2},
        {"limits", R"({"limits":{"nvidia.com/gpu":"4"}})", 4},
        {"mixed case name", R"({"requests":{"amd.com/GPU":"3"}})", 3},
        {"requests win over limits", R"({"requests":{"nvidia.com/gpu":"2"},"limits":{"nvidia.com/gpu":"4"}})", 2},
        {"zero requests fall back to limits", R"({"requests":{"nvidia.com/gpu":"0"},"limits":{"nvidia.com/gpu":"3"}})", 3},
        {"fraction rounds up to 1", R"({"limits":{"nvidia.com/gpu":"500m"}})", 1},
        {"fraction rounds up to 2", R"({"limits":{"nvidia.com/gpu":"1500m"}})", 2},
        {"exponent", R"({"limits":{"nvidia.com/gpu":"0.4e1"}})", 4},
        {"JSON number", R"({"requests":{"nvidia.com/gpu":2}})", 2},
        {"invalid requests fall back to limits", R"({"requests":{"nvidia.com/gpu":"lots"},"limits":{"nvidia.com/gpu":"2"}})", 2},
        {"invalid everywhere", R"({"limits":{"nvidia.com/gpu":"lots"}})", 0},
        {"negative counts as none", R"({"requests":{"nvidia.com/gpu":"-2"},"limits":{"nvidia.com/gpu":"3"}})", 3},
        {"first gpu resource wins", R"({"limits":{"nvidia.com/gpu":"2","amd.com/gpu":"8"}})", 2},
        {"first gpu resource even if zero", R"({"limits":{"amd.com/gpu":"0","nvidia.com/gpu":"8"}})", 0},
        {"requests not an object", R"({"requests":"4","limits":{"nvidia.com/gpu":"1"}})", 1},
    };
    for (auto const& r : rows) {
        BOOST_TEST_CONTEXT(r.name) {
            json::value v = json::parse(r.resources);
            BOOST_TEST(sdk::gpuCount(v.is_object() ? &v.as_object() : nullptr) == r.want);
        }
    }
}

// Upstream getNumCPUPerNode
// (https://github.com/kubeflow/trainer/blob/8c0f5059bd51ec3ba6d6a6a7b2e1471de7bc13b3/pkg/runtime/framework/plugins/torch/torch.go):
// ceil(requests.cpu) if non-zero, else ceil(limits.cpu), else 0.
BOOST_AUTO_TEST_CASE(cpu_count_table) {
    struct Row {
        const char* resources;
        int64_t want;
    };
    const std::vector<Row> rows{
        {"null", 0},
        {"{}", 0},
        {R"({"requests":{"cpu":"4"}})", 4},
        {R"({"requests":{"cpu":"2500m"}})", 3},
        {R"({"requests":{"cpu":"2.5"}})", 3},
        {R"({"requests":{"cpu":"0.7"}})", 1},
        {R"({"requests":{"cpu":1}})", 1},
        {R"({"limits":{"cpu":"6"}})", 6},
        {R"({"requests":{"cpu":"0"},"limits":{"cpu":"6"}})", 6},
        {R"({"requests":{"cpu":"2"},"limits":{"cpu":"6"}})", 2},
        {R"({"requests":{"cpu":"bad"},"limits":{"cpu":"3"}})", 3},
        {R"({"requests":{"cpu":"-2"}})", 0},
        {R"({"requests":{"memory":"4Gi","nvidia.com/gpu":"1"}})", 0},
    };
    for (auto const& r : rows) {
        BOOST_TEST_CONTEXT("resources " << r.resources) {
            json::value v = json::parse(r.resources);
            BOOST_TEST(sdk::cpuCount(v.is_object() ? &v.as_object() : nullptr) == r.want);
        }
    }
}

// runtime.go ExtractResourcePerNodeFromRuntime: the first container `node` with resources in the
// first replicated job named `node` or labelled ancestor `trainer`.
BOOST_AUTO_TEST_CASE(runtime_trainer_resources_table) {
    const std::string nodeCpu2 = R"([{"name":"node","resources":{"requests":{"cpu":"2"}}}])";
    const std::string nodeCpu3 = R"([{"name":"node","resources":{"requests":{"cpu":"3"}}}])";
    struct Row {
        const char* name;
        std::string jobSetSpec;
        int64_t wantCpu;  // cpuCount of the result; -1 = nullptr expected
    };
    const std::vector<Row> rows{
        {"no replicated jobs", "{}", -1},
        {"replicatedJobs not an array", R"({"replicatedJobs":{}})", -1},
        {"job named node", R"({"replicatedJobs":[)" + replicatedJob("node", "", nodeCpu2) + "]}", 2},
        {"job labelled trainer", R"({"replicatedJobs":[)" + replicatedJob("worker", "trainer", nodeCpu3) + "]}", 3},
        {"other jobs are ignored",
         R"({"replicatedJobs":[)" + replicatedJob("launcher", "", nodeCpu3) + "," +
             replicatedJob("node", "", nodeCpu2) + "]}",
         2},
        {"initializer ancestor is ignored",
         R"({"replicatedJobs":[)" + replicatedJob("dataset-initializer", "dataset-initializer", nodeCpu3) + "]}", -1},
        {"container must be named node",
         R"({"replicatedJobs":[)" + replicatedJob("node", "", R"([{"name":"main","resources":{"requests":{"cpu":"5"}}}])") +
             "]}",
         -1},
        {"node container without resources is skipped",
         R"({"replicatedJobs":[)" + replicatedJob("node", "", R"([{"name":"node"}])") + "," +
             replicatedJob("worker", "trainer", nodeCpu3) + "]}",
         3},
        {"first job with resources wins",
         R"({"replicatedJobs":[)" + replicatedJob("node", "", nodeCpu2) + "," +
             replicatedJob("worker", "trainer", nodeCpu3) + "]}",
         2},
        {"malformed entries are skipped",
         R"({"replicatedJobs":[1,"x",{"name":"node"},)" + replicatedJob("node", "", nodeCpu2) + "]}", 2},
    };
    for (auto const& r : rows) {
        BOOST_TEST_CONTEXT(r.name) {
            auto info = makeInfo(r.jobSetSpec);
            const json::object* res = sdk::runtimeTrainerResources(info);
            BOOST_TEST((res != nullptr) == (r.wantCpu >= 0));
            if (res && r.wantCpu >= 0) BOOST_TEST(sdk::cpuCount(res) == r.wantCpu);
        }
    }
}

// torch.go EnforceMLPolicy: TrainJob resourcesPerNode is used wholesale, else the runtime's.
BOOST_AUTO_TEST_CASE(effective_resources_table) {
    const std::string runtime =
        R"({"replicatedJobs":[)" +
        replicatedJob("node", "trainer", R"([{"name":"node","resources":{"limits":{"nvidia.com/gpu":"2"}}}])") + "]}";
    struct Row {
        const char* name;
        std::string jobSetSpec;
        const char* trainer;
        int64_t wantGpu;
        int64_t wantCpu;
        bool wantNull;
    };
    const std::vector<Row> rows{
        {"no trainer: runtime", runtime, "null", 2, 0, false},
        {"trainer without resourcesPerNode: runtime", runtime, R"({"numNodes":2})", 2, 0, false},
        {"resourcesPerNode wholesale (gpu of runtime dropped)", runtime,
         R"({"resourcesPerNode":{"requests":{"cpu":"4"}}})", 0, 4, false},
        {"resourcesPerNode gpu", runtime, R"({"resourcesPerNode":{"limits":{"nvidia.com/gpu":"8"}}})", 8, 0, false},
        {"resourcesPerNode not an object: runtime", runtime, R"({"resourcesPerNode":"4"})", 2, 0, false},
        {"neither", "{}", "null", 0, 0, true},
    };
    for (auto const& r : rows) {
        BOOST_TEST_CONTEXT(r.name) {
            auto info = makeInfo(r.jobSetSpec, r.trainer);
            const json::object* res = sdk::effectiveResources(info);
            BOOST_TEST((res == nullptr) == r.wantNull);
            BOOST_TEST(sdk::gpuCount(res) == r.wantGpu);
            BOOST_TEST(sdk::cpuCount(res) == r.wantCpu);
        }
    }
}
