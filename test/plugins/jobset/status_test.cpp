// TrainJobStatus of the jobset plugin (upstream Status in
// https://github.com/kubeflow/trainer/blob/8c0f5059bd51ec3ba6d6a6a7b2e1471de7bc13b3/pkg/runtime/framework/plugins/jobset/jobset.go;
// the condition types and reasons in
// https://github.com/kubeflow/trainer/blob/8c0f5059bd51ec3ba6d6a6a7b2e1471de7bc13b3/pkg/apis/trainer/v1alpha1/trainjob_types.go).
#include <boost/test/unit_test.hpp>

#include "fixtures.hpp"

using namespace trainer::testkit;
namespace testing = trainer::sdk::testing;

namespace {

json::object trainJob(const char* status) {
    auto tj = obj(R"({"apiVersion":"trainer.kubeflow.org/v1alpha1","kind":"TrainJob",
                      "metadata":{"name":"job","namespace":"ns","uid":"u"},"spec":{}})");
    if (status) tj["status"] = obj(status);
    return tj;
}

json::object jobSet(const char* status) {
    auto js = obj(R"({"apiVersion":"jobset.x-k8s.io/v1alpha2","kind":"JobSet",
                      "metadata":{"name":"job","namespace":"ns"},"spec":{}})");
    if (status) js["status"] = obj(status);
    return js;
}

std::optional<json::object> runStatus(const json::object& tj, testing::Host& host) {
    auto ctx = host.context("jobset");
    JobSet plugin(json::object{}, ctx);
    return plugin.status(tj, ctx);
}

const char* kCompleted = R"({"type":"Completed","status":"True","reason":"AllJobsCompleted",
  "message":"jobset completed successfully","lastTransitionTime":"2025-01-02T03:04:05Z"})";
const char* kFailed = R"({"type":"Failed","status":"True","reason":"FailedJobs",
  "message":"jobset failed due to one or more job failures","lastTransitionTime":"2025-01-02T03:04:06Z"})";

}  // namespace

BOOST_AUTO_TEST_CASE(not_found_cases) {
    struct Case {
        const char* name;
        const char* status;
        bool error;
    };
    const Case cases[] = {
        {"no status yet: error", nullptr, true},
        {"running: error", R"({"conditions":[{"type":"Suspended","status":"False","reason":"Resumed"}]})", true},
        {"Complete=False is not finished: error", R"({"conditions":[{"type":"Complete","status":"False"}]})", true},
        {"complete: no change", R"({"conditions":[{"type":"Complete","status":"True","reason":"AllJobsCompleted"}]})", false},
        {"failed: no change", R"({"conditions":[{"type":"Failed","status":"True","reason":"DeadlineExceeded"}]})", false},
    };
    for (auto const& c : cases) {
        BOOST_TEST_CONTEXT(c.name) {
            testing::Host host;
            host.cluster.push_back(jobSet(nullptr));  // same name, other namespace below
            host.cluster.back()["metadata"].as_object()["namespace"] = "other";
            auto st = runStatus(trainJob(c.status), host);
            BOOST_TEST(!st.has_value());
            BOOST_REQUIRE_EQUAL(host.errors().size(), c.error ? 1u : 0u);
            if (c.error) {
                BOOST_TEST(host.errors()[0].path == "");
                BOOST_TEST(host.errors()[0].message == "jobsets.jobset.x-k8s.io \"job\" not found");
            }
        }
    }
}

BOOST_AUTO_TEST_CASE(complete_condition_copied) {
    testing::Host host;
    host.cluster.push_back(jobSet((std::string(R"({"conditions":[)") + kCompleted + "]}").c_str()));
    auto st = runStatus(trainJob(nullptr), host);
    BOOST_REQUIRE(st);
    BOOST_TEST(host.errors().empty());
    BOOST_TEST(st->at("conditions") == json::parse(R"([{"type":"Complete","status":"True","reason":"AllJobsCompleted",
        "message":"jobset completed successfully","lastTransitionTime":"2025-01-02T03:04:05Z"}])"));
    BOOST_TEST(!st->contains("jobsStatus"));
}

BOOST_AUTO_TEST_CASE(failed_condition_copied_and_other_conditions_kept) {
    testing::Host host;
    host.cluster.push_back(jobSet((std::string(R"({"conditions":[)") + kFailed +
                                   R"(,{"type":"Completed","status":"False","reason":"x"}]})").c_str()));
    auto st = runStatus(trainJob(R"({"conditions":[
        {"type":"Suspended","status":"False","reason":"Resumed","message":"TrainJob is resumed","lastTransitionTime":"2025-01-01T00:00:00Z"}]})"),
                        host);
    BOOST_REQUIRE(st);
    const auto& conds = st->at("conditions").as_array();
    BOOST_REQUIRE_EQUAL(conds.size(), 2u);
    BOOST_TEST(conds[0].at("type").as_string() == "Suspended");
    BOOST_TEST(conds[0].at("reason").as_string() == "Resumed");
    BOOST_TEST(conds[1] == json::parse(R"({"type":"Failed","status":"True","reason":"FailedJobs",
        "message":"jobset failed due to one or more job failures","lastTransitionTime":"2025-01-02T03:04:06Z"})"));
}

BOOST_AUTO_TEST_CASE(existing_true_condition_keeps_its_transition_time) {
    testing::Host host;
    host.cluster.push_back(jobSet((std::string(R"({"conditions":[)") + kCompleted + "]}").c_str()));
    auto st = runStatus(trainJob(R"({"conditions":[{"type":"Complete","status":"True","reason":"Old",
        "message":"old","lastTransitionTime":"2024-12-31T00:00:00Z"}]})"), host);
    BOOST_REQUIRE(st);
    BOOST_TEST(st->at("conditions") == json::parse(R"([{"type":"Complete","status":"True","reason":"AllJobsCompleted",
        "message":"jobset completed successfully","lastTransitionTime":"2024-12-31T00:00:00Z"}])"));
}

BOOST_AUTO_TEST_CASE(deadline_exceeded_failed_is_kept_when_jobset_has_no_failure) {
    testing::Host host;
    host.cluster.push_back(jobSet(R"({"replicatedJobsStatus":[]})"));
    auto st = runStatus(trainJob(R"({"conditions":[{"type":"Failed","status":"True","reason":"DeadlineExceeded",
        "message":"TrainJob exceeded its active deadline"}],"jobsStatus":[{"name":"stale"}]})"), host);
    BOOST_REQUIRE(st);
    BOOST_TEST(st->at("conditions").as_array().size() == 1u);
    BOOST_TEST(st->at("conditions").as_array()[0].at("reason").as_string() == "DeadlineExceeded");
    BOOST_TEST(!st->contains("jobsStatus"));
}

BOOST_AUTO_TEST_CASE(jobs_status_from_replicated_jobs_status) {
    testing::Host host;
    host.cluster.push_back(jobSet(R"({"replicatedJobsStatus":[
        {"name":"dataset-initializer","ready":0,"succeeded":1,"failed":0,"active":0,"suspended":0},
        {"name":"node","ready":2,"active":3,"failed":1}]})"));
    auto st = runStatus(trainJob(R"({"jobsStatus":[{"name":"old","active":9}]})"), host);
    BOOST_REQUIRE(st);
    BOOST_TEST(st->at("jobsStatus") == json::parse(R"([
        {"name":"dataset-initializer","ready":0,"succeeded":1,"failed":0,"active":0,"suspended":0},
        {"name":"node","ready":2,"succeeded":0,"failed":1,"active":3,"suspended":0}])"));
    BOOST_TEST(!st->contains("conditions"));
}
