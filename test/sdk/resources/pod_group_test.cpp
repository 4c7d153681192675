#include <boost/test/unit_test.hpp>

#include <trainer/pod_group.hpp>
#include <trainer/testing.hpp>

#include <string>
#include <vector>

namespace sdk = trainer::sdk;
namespace json = boost::json;
using sdk::FieldError;

namespace {

constexpr const char* kApiVersion = "scheduling.x-k8s.io/v1alpha1";

sdk::Info makeInfo(std::string_view podSets, bool suspend = false, std::string_view ns = "ns") {
    return sdk::Info(json::object{
        {"infoVersion", 1},
        {"trainJob", json::object{{"metadata", json::object{{"name", "job"}, {"namespace", ns}, {"uid", "u1"}}},
                                  {"spec", json::object{{"suspend", suspend}}}}},
        {"podSets", json::parse(podSets)},
    });
}

json::object podGroup(std::string_view apiVersion, std::string_view ns, std::string_view name) {
    return json::object{{"apiVersion", apiVersion},
                        {"kind", "PodGroup"},
                        {"metadata", json::object{{"name", name}, {"namespace", ns}}}};
}

}  // namespace

BOOST_AUTO_TEST_SUITE(pod_group)

// Upstream coscheduling.go Build
// (https://github.com/kubeflow/trainer/blob/8c0f5059bd51ec3ba6d6a6a7b2e1471de7bc13b3/pkg/runtime/framework/plugins/coscheduling/coscheduling.go):
// minMember = Σ count, minResources = Σ singlePodRequests × count, sorted by name.
BOOST_AUTO_TEST_CASE(sums_table) {
    struct Row {
        const char* name;
        const char* podSets;
        int64_t wantMinMember;
        const char* wantMinResources;  // serialized, in order
    };
    const std::vector<Row> rows{
        {"no pod sets", "[]", 0, "{}"},
        {"count defaults to 1, no requests", R"([{"name":"node"}])", 1, "{}"},
        {"count 0 adds nothing", R"([{"name":"node","count":0,"singlePodRequests":{"cpu":"4"}}])", 0, R"({"cpu":"0"})"},
        {"every pod set counts",
         R"([{"name":"dataset-initializer","count":1},{"name":"launcher","count":1},{"name":"node","count":4}])", 6,
         "{}"},
        {"exact sums, sorted by resource name",
         R"([{"name":"node","count":2,"singlePodRequests":{"nvidia.com/gpu":"1","memory":"1Gi","cpu":"1.5"}},
             {"name":"launcher","count":1,"singlePodRequests":{"memory":"512Mi","cpu":"500m"}}])",
         3, R"({"cpu":"3500m","memory":"2560Mi","nvidia.com/gpu":"2"})"},
        {"500m + 1.5 = 2", R"([{"name":"a","singlePodRequests":{"cpu":"500m"}},{"name":"b","singlePodRequests":{"cpu":"1.5"}}])",
         2, R"({"cpu":"2"})"},
        {"JSON numbers and double counts", R"([{"name":"node","count":3.0,"singlePodRequests":{"cpu":2}}])", 3,
         R"({"cpu":"6"})"},
        {"largest valid count", R"([{"name":"node","count":2147483647}])", 2147483647, "{}"},
    };
    for (auto const& r : rows) {
        BOOST_TEST_CONTEXT(r.name) {
            auto sums = sdk::sumPodSets(json::parse(r.podSets).as_array());
            BOOST_TEST(sums.ok());
            BOOST_TEST(sums.totals.minMember == r.wantMinMember);
            BOOST_TEST(json::serialize(sums.totals.minResources) == r.wantMinResources);
        }
    }
}

// Bad counts and quantities are errors at field paths; every problem is reported.
BOOST_AUTO_TEST_CASE(sum_errors_table) {
    struct Row {
        const char* name;
        const char* podSets;
        std::vector<FieldError> want;
    };
    const std::vector<Row> rows{
        {"pod set not an object", R"([1])", {{"podSets", "every PodSet must be an object"}}},
        {"negative count", R"([{"name":"node","count":-1}])",
         {{"podSets[node].count", "must be between 0 and 2147483647, got -1"}}},
        {"count above int32", R"([{"name":"node","count":2147483648}])",
         {{"podSets[node].count", "must be between 0 and 2147483647, got 2147483648"}}},
        {"invalid quantity", R"([{"name":"node","singlePodRequests":{"cpu":"lots"}}])",
         {{"podSets[node].singlePodRequests[cpu]", "is not a valid resource quantity: \"lots\""}}},
        {"quantity of the wrong type", R"([{"name":"node","singlePodRequests":{"memory":true}}])",
         {{"podSets[node].singlePodRequests[memory]", "is not a valid resource quantity: true"}}},
        {"resource total overflows", R"([{"name":"node","count":2,"singlePodRequests":{"cpu":"9e26"}}])",
         {{"podSets[node].singlePodRequests[cpu]", "resource total overflows"}}},
        {"total pod count above int32",
         R"([{"name":"a","count":2147483647},{"name":"b","count":2147483647}])",
         {{"podSets", "the total pod count 4294967294 exceeds the PodGroup minMember limit 2147483647"}}},
        {"every problem, in order",
         R"([{"name":"a","count":-2},"x",{"name":"b","singlePodRequests":{"cpu":"1","memory":"1Q"}}])",
         {{"podSets[a].count", "must be between 0 and 2147483647, got -2"},
          {"podSets", "every PodSet must be an object"},
          {"podSets[b].singlePodRequests[memory]", "is not a valid resource quantity: \"1Q\""}}},
    };
    for (auto const& r : rows) {
        BOOST_TEST_CONTEXT(r.name) {
            auto sums = sdk::sumPodSets(json::parse(r.podSets).as_array());
            BOOST_TEST(!sums.ok());
            BOOST_TEST_REQUIRE(sums.errors.size() == r.want.size());
            for (size_t i = 0; i < r.want.size(); ++i) {
                BOOST_TEST(sums.errors[i].path == r.want[i].path);
                BOOST_TEST(sums.errors[i].message == r.want[i].message);
            }
        }
    }
}

// The Context overload reports on ctx.error and returns nullopt, or the totals silently.
BOOST_AUTO_TEST_CASE(sums_through_context) {
    {
        sdk::testing::Host host;
        auto ctx = host.context();
        auto totals = sdk::sumPodSets(makeInfo(R"([{"name":"node","count":2,"singlePodRequests":{"cpu":"1"}}])"), ctx);
        BOOST_TEST_REQUIRE(totals.has_value());
        BOOST_TEST(totals->minMember == 2);
        BOOST_TEST(json::serialize(totals->minResources) == R"({"cpu":"2"})");
        BOOST_TEST(host.diagnostics.empty());
        BOOST_TEST(!ctx.failed());
    }
    {
        sdk::testing::Host host;
        auto ctx = host.context();
        auto totals = sdk::sumPodSets(makeInfo(R"([{"name":"node","count":-1},{"name":"x","singlePodRequests":{"cpu":"?"}}])"), ctx);
        BOOST_TEST(!totals.has_value());
        BOOST_TEST(ctx.failed());
        auto errors = host.errors();
        BOOST_TEST_REQUIRE(errors.size() == 2u);
        BOOST_TEST(errors[0].path == "podSets[node].count");
        BOOST_TEST(errors[1].path == "podSets[x].singlePodRequests[cpu]");
    }
}

// coscheduling.go Build and volcano.go Build
// (https://github.com/kubeflow/trainer/blob/8c0f5059bd51ec3ba6d6a6a7b2e1471de7bc13b3/pkg/runtime/framework/plugins/volcano/volcano.go):
// an existing PodGroup is left alone unless the TrainJob is suspended.
BOOST_AUTO_TEST_CASE(keep_existing_table) {
    struct Row {
        const char* name;
        bool suspend;
        std::vector<json::object> cluster;
        bool want;
    };
    const std::vector<Row> rows{
        {"absent", false, {}, false},
        {"exists, running", false, {podGroup(kApiVersion, "ns", "job")}, true},
        {"exists, suspended", true, {podGroup(kApiVersion, "ns", "job")}, false},
        {"other apiVersion", false, {podGroup("scheduling.volcano.sh/v1beta1", "ns", "job")}, false},
        {"other namespace", false, {podGroup(kApiVersion, "other", "job")}, false},
        {"other name", false, {podGroup(kApiVersion, "ns", "job2")}, false},
    };
    for (auto const& r : rows) {
        BOOST_TEST_CONTEXT(r.name) {
            sdk::testing::Host host;
            host.cluster = r.cluster;
            auto ctx = host.context();
            BOOST_TEST(sdk::keepExistingPodGroup(makeInfo("[]", r.suspend), ctx, kApiVersion) == r.want);
            BOOST_TEST(host.diagnostics.empty());
        }
    }
}

// The kind is a parameter (defaults to PodGroup).
BOOST_AUTO_TEST_CASE(keep_existing_other_kind) {
    sdk::testing::Host host;
    host.cluster = {json::object{{"apiVersion", "example.com/v1"},
                                 {"kind", "Gang"},
                                 {"metadata", json::object{{"name", "job"}, {"namespace", "ns"}}}}};
    auto ctx = host.context();
    auto info = makeInfo("[]");
    BOOST_TEST(sdk::keepExistingPodGroup(info, ctx, "example.com/v1", "Gang"));
    BOOST_TEST(!sdk::keepExistingPodGroup(info, ctx, "example.com/v1"));
}

BOOST_AUTO_TEST_CASE(policy_lookup_table) {
    struct Row {
        const char* runtimePolicy;
        const char* backend;
        const char* want;  // serialized, or nullptr for none
    };
    const std::vector<Row> rows{
        {"{}", "coscheduling", nullptr},
        {R"({"podGroupPolicy":{"coscheduling":{"scheduleTimeoutSeconds":30}}})", "coscheduling",
         R"({"scheduleTimeoutSeconds":30})"},
        {R"({"podGroupPolicy":{"coscheduling":{}}})", "volcano", nullptr},
        {R"({"podGroupPolicy":{"volcano":{}}})", "volcano", "{}"},
        {R"({"podGroupPolicy":{"volcano":true}})", "volcano", nullptr},
    };
    for (auto const& r : rows) {
        BOOST_TEST_CONTEXT(r.runtimePolicy << " " << r.backend) {
            sdk::Info info(json::object{{"runtimePolicy", json::parse(r.runtimePolicy)}});
            const json::object* got = sdk::podGroupPolicy(info, r.backend);
            BOOST_TEST((got != nullptr) == (r.want != nullptr));
            if (got && r.want) BOOST_TEST(json::serialize(*got) == r.want);
        }
    }
}

// The object frame: the TrainJob's name and namespace, the controller reference (coscheduling.go Build).
BOOST_AUTO_TEST_CASE(object_frame) {
    auto info = makeInfo("[]");
    auto pg = sdk::podGroupObject(info, kApiVersion, json::object{{"minMember", 3}});
    json::value want = json::parse(R"({
        "apiVersion": "scheduling.x-k8s.io/v1alpha1", "kind": "PodGroup",
        "metadata": {"name": "job", "namespace": "ns", "ownerReferences": [
            {"apiVersion": "trainer.kubeflow.org/v1alpha1", "kind": "TrainJob", "name": "job", "uid": "u1",
             "controller": true, "blockOwnerDeletion": true}]},
        "spec": {"minMember": 3}})");
    BOOST_TEST(json::value(pg) == want);
    BOOST_TEST(json::value(sdk::podGroupObject(info, "example.com/v1", {}, "Gang")).at("kind") == "Gang");
}

// coscheduling.go ReconcilerBuilders: owned PodGroups, LimitRanges, RuntimeClasses.
BOOST_AUTO_TEST_CASE(watches_table) {
    auto watches = sdk::podGroupWatches(kApiVersion);
    struct Row {
        std::string apiVersion, kind;
        int32_t mode;
        std::string matchField;  // "" = none
    };
    const std::vector<Row> want{
        {kApiVersion, "PodGroup", TRN_WATCH_OWNED, ""},
        {"v1", "LimitRange", TRN_WATCH_SUSPENDED_IN_NAMESPACE, ""},
        {"node.k8s.io/v1", "RuntimeClass", TRN_WATCH_SUSPENDED_MATCHING, "runtimeClassName"},
    };
    BOOST_TEST_REQUIRE(watches.size() == want.size());
    for (size_t i = 0; i < want.size(); ++i) {
        BOOST_TEST_CONTEXT("watch " << i) {
            BOOST_TEST(watches[i].apiVersion == want[i].apiVersion);
            BOOST_TEST(watches[i].kind == want[i].kind);
            BOOST_TEST(watches[i].mode == want[i].mode);
            BOOST_TEST((watches[i].matchField ? std::string(watches[i].matchField) : std::string()) == want[i].matchField);
        }
    }
}

BOOST_AUTO_TEST_SUITE_END()
