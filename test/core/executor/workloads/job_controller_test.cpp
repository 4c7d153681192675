// The batch/v1 Job controller alone (Jobs created by hand).
#include "workloads_fixture.hpp"

#include "core/executor/job_controller.hpp"

using namespace workloads_test;
using namespace std::chrono_literals;

namespace {

json::object indexedJob(const std::string& name, int parallelism, int backoffLimit, const std::string& extraSpec = "",
                        const std::string& restartPolicy = "Never") {
    return parseObject(R"({"apiVersion":"batch/v1","kind":"Job","metadata":{"name":")" + name +
                       R"(","namespace":"default"},"spec":{"completionMode":"Indexed","parallelism":)" +
                       std::to_string(parallelism) + R"(,"completions":)" + std::to_string(parallelism) +
                       R"(,"backoffLimit":)" + std::to_string(backoffLimit) + extraSpec +
                       R"(,"template":{"metadata":{"labels":{"app":"x"}},"spec":{"restartPolicy":")" + restartPolicy +
                       R"(","initContainers":[{"name":"init","image":"busybox"}],"containers":[{"name":"main","image":"busybox","env":[{"name":"A","value":"1"}]}]}}}})");
}

json::object plainJob(const std::string& name, const std::string& counts) {
    return parseObject(R"({"apiVersion":"batch/v1","kind":"Job","metadata":{"name":")" + name +
                       R"(","namespace":"default"},"spec":{)" + counts +
                       R"("template":{"spec":{"restartPolicy":"Never","containers":[{"name":"main","image":"busybox"}]}}}})");
}

bool hasEnv(const json::value& container, const std::string& name, const std::string& fieldPath) {
    auto* env = container.get_object().if_contains("env");
    if (!env || !env->is_array()) return false;
    for (auto const& e : env->get_array())
        if (str(e.get_object().if_contains("name")) == name)
            return strAt(e.get_object(), "valueFrom/fieldRef/fieldPath") == fieldPath;
    return false;
}

bool tracked(const json::object& pod) {
    auto* f = at(pod, "metadata/finalizers");
    if (!f || !f->is_array()) return false;
    for (auto const& v : f->get_array())
        if (str(&v) == "batch.kubernetes.io/job-tracking") return true;
    return false;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(job_controller)

BOOST_AUTO_TEST_CASE(indexed_job_creates_named_indexed_pods) {
    Env env;
    env.create(indexedJob("pi", 2, 0));
    env.settle();
    auto job = env.job("pi");
    auto pods = env.pods("pi");
    BOOST_REQUIRE_EQUAL(pods.size(), 2u);
    for (int i = 0; i < 2; ++i) {
        auto const& p = pods[i];
        std::string ix = std::to_string(i);
        BOOST_TEST(strAt(p, "metadata/name").rfind("pi-" + ix + "-", 0) == 0u);
        BOOST_TEST(strAt(p, "metadata/name").size() == std::string("pi-0-").size() + 5);
        BOOST_TEST(strAt(p, "metadata/generateName") == "pi-" + ix + "-");
        BOOST_TEST(strAt(p, "spec/hostname") == "pi-" + ix);
        BOOST_TEST(Env::labelOf(p, "batch.kubernetes.io/job-completion-index") == ix);
        BOOST_TEST(Env::annotationOf(p, "batch.kubernetes.io/job-completion-index") == ix);
        BOOST_TEST(Env::labelOf(p, "batch.kubernetes.io/job-name") == "pi");
        BOOST_TEST(Env::labelOf(p, "job-name") == "pi");
        BOOST_TEST(Env::labelOf(p, "batch.kubernetes.io/controller-uid") == strAt(job, "metadata/uid"));
        BOOST_TEST(Env::labelOf(p, "controller-uid") == strAt(job, "metadata/uid"));
        BOOST_TEST(Env::labelOf(p, "app") == "x");
        BOOST_TEST(tracked(p));
        auto const& ref = at(p, "metadata/ownerReferences")->get_array().at(0).get_object();
        BOOST_TEST(str(ref.if_contains("kind")) == "Job");
        BOOST_TEST(str(ref.if_contains("uid")) == strAt(job, "metadata/uid"));
        BOOST_TEST(ref.at("controller").as_bool());
        BOOST_TEST(ref.at("blockOwnerDeletion").as_bool());
        std::string path = "metadata.labels['batch.kubernetes.io/job-completion-index']";
        BOOST_TEST(hasEnv(at(p, "spec/containers")->get_array().at(0), "JOB_COMPLETION_INDEX", path));
        BOOST_TEST(hasEnv(at(p, "spec/initContainers")->get_array().at(0), "JOB_COMPLETION_INDEX", path));
        BOOST_TEST(!at(p, "status"));
    }
    BOOST_TEST(intAt(job, "status/active") == 2);
    BOOST_TEST(intAt(job, "status/ready") == 0);
    BOOST_TEST(intAt(job, "status/terminating") == 0);
    BOOST_TEST(strAt(job, "status/startTime") == "2024-05-01T12:00:00Z");
    BOOST_TEST(at(job, "status/uncountedTerminatedPods")->as_object().empty());
}

BOOST_AUTO_TEST_CASE(indexed_job_completes) {
    Env env;
    env.create(indexedJob("pi", 2, 0));
    env.settle();
    env.setPods("pi", "Running", true);
    env.settle();
    BOOST_TEST(intAt(env.job("pi"), "status/ready") == 2);
    env.setPod(env.pods("pi")[0], "Succeeded");
    env.settle();
    auto half = env.job("pi");
    BOOST_TEST(strAt(half, "status/completedIndexes") == "0");
    BOOST_TEST(intAt(half, "status/succeeded") == 1);
    BOOST_TEST(conditionStatus(half, "Complete") == "");
    env.clock.advance(5s);
    env.setPod(env.pods("pi")[1], "Succeeded");
    env.settle();
    auto job = env.job("pi");
    BOOST_TEST(conditionStatus(job, "SuccessCriteriaMet") == "True");
    BOOST_TEST(conditionStatus(job, "Complete") == "True");
    BOOST_TEST(str(condition(job, "Complete")->if_contains("reason")) == "CompletionsReached");
    BOOST_TEST(str(condition(job, "Complete")->if_contains("message")) == "Reached expected number of succeeded pods");
    BOOST_TEST(strAt(job, "status/completionTime") == "2024-05-01T12:00:05Z");
    BOOST_TEST(strAt(job, "status/completedIndexes") == "0,1");
    BOOST_TEST(intAt(job, "status/succeeded") == 2);
    BOOST_TEST(!at(job, "status/active"));
    BOOST_TEST(!at(job, "status/failed"));
    BOOST_REQUIRE_EQUAL(env.pods("pi").size(), 2u);  // finished pods stay, released
    for (auto const& p : env.pods("pi")) BOOST_TEST(!tracked(p));
}

BOOST_AUTO_TEST_CASE(failed_pod_is_replaced_until_backoff_limit) {
    Env env;
    env.create(indexedJob("pi", 2, 1));
    env.settle();
    env.setPod(env.pods("pi")[0], "Failed");
    env.settle();
    auto job = env.job("pi");
    BOOST_TEST(intAt(job, "status/failed") == 1);
    BOOST_TEST(intAt(job, "status/active") == 2);
    auto pods = env.pods("pi");
    BOOST_REQUIRE_EQUAL(pods.size(), 3u);  // the failed pod stays, index 0 again
    int index0 = 0;
    for (auto const& p : pods) index0 += Env::labelOf(p, "batch.kubernetes.io/job-completion-index") == "0";
    BOOST_TEST(index0 == 2);
    for (auto const& p : pods)
        if (strAt(p, "status/phase").empty() && Env::labelOf(p, "batch.kubernetes.io/job-completion-index") == "0")
            env.setPod(p, "Failed");
    env.settle();
    job = env.job("pi");
    BOOST_TEST(conditionStatus(job, "FailureTarget") == "True");
    BOOST_TEST(conditionStatus(job, "Failed") == "True");
    BOOST_TEST(str(condition(job, "Failed")->if_contains("reason")) == "BackoffLimitExceeded");
    BOOST_TEST(str(condition(job, "Failed")->if_contains("message")) == "Job has reached the specified backoff limit");
    // Two failed pods and the running one deleted as the Job failed.
    BOOST_TEST(intAt(job, "status/failed") == 3);
    BOOST_TEST(env.pods("pi").size() == 2u);
    BOOST_TEST(!at(job, "status/active"));
}

BOOST_AUTO_TEST_CASE(container_restarts_count_with_restart_policy_on_failure) {
    Env env;
    env.create(indexedJob("pi", 1, 2, "", "OnFailure"));
    env.settle();
    env.setPod(env.pods("pi")[0], "Running", true, 1);
    env.settle();
    BOOST_TEST(conditionStatus(env.job("pi"), "Failed") == "");
    env.setPod(env.pods("pi")[0], "Running", true, 2);
    env.settle();
    auto job = env.job("pi");
    BOOST_TEST(conditionStatus(job, "Failed") == "True");
    BOOST_TEST(str(condition(job, "Failed")->if_contains("reason")) == "BackoffLimitExceeded");
    BOOST_TEST(env.pods("pi").empty());
}

BOOST_AUTO_TEST_CASE(non_indexed_job_counts_completions) {
    Env env;
    env.create(plainJob("work", R"("parallelism":2,"completions":3,)"));
    env.settle();
    auto pods = env.pods("work");
    BOOST_REQUIRE_EQUAL(pods.size(), 2u);
    BOOST_TEST(strAt(pods[0], "metadata/generateName") == "work-");
    BOOST_TEST(!at(pods[0], "spec/hostname"));
    BOOST_TEST(Env::annotationOf(pods[0], "batch.kubernetes.io/job-completion-index") == "");
    env.setPod(pods[0], "Succeeded");
    env.settle();
    BOOST_TEST(env.pods("work").size() == 3u);  // one more for the third completion
    BOOST_TEST(intAt(env.job("work"), "status/succeeded") == 1);
    for (auto const& p : env.pods("work"))
        if (strAt(p, "status/phase") != "Succeeded") env.setPod(p, "Succeeded");
    env.settle();
    auto job = env.job("work");
    BOOST_TEST(conditionStatus(job, "Complete") == "True");
    BOOST_TEST(intAt(job, "status/succeeded") == 3);
    BOOST_TEST(!at(job, "status/completedIndexes"));
}

BOOST_AUTO_TEST_CASE(without_completions_one_success_completes_once_others_end) {
    Env env;
    env.create(plainJob("any", R"("parallelism":2,)"));
    env.settle();
    auto pods = env.pods("any");
    BOOST_REQUIRE_EQUAL(pods.size(), 2u);
    env.setPod(pods[0], "Succeeded");
    env.settle();
    BOOST_TEST(conditionStatus(env.job("any"), "Complete") == "");
    BOOST_TEST(env.pods("any").size() == 2u);  // no replacement after a success
    env.setPod(pods[1], "Succeeded");
    env.settle();
    BOOST_TEST(conditionStatus(env.job("any"), "Complete") == "True");
}

BOOST_AUTO_TEST_CASE(active_deadline_fails_the_job) {
    Env env;
    env.create(indexedJob("pi", 2, 0, R"(,"activeDeadlineSeconds":30)"));
    env.settle();
    env.setPods("pi", "Running", true);
    auto r = ex::reconcileJob(env.store, ObjectKey{"batch/v1", "Job", "default", "pi"}, env.clock, log::Logger("t"));
    BOOST_TEST(r.error.empty());
    BOOST_REQUIRE(r.requeueAfter.has_value());
    BOOST_TEST(std::chrono::duration_cast<std::chrono::seconds>(*r.requeueAfter).count() == 30);
    env.clock.advance(29s);
    env.settle();
    BOOST_TEST(conditionStatus(env.job("pi"), "Failed") == "");
    env.clock.advance(1s);
    env.settle();  // the delayed sync is due now
    auto job = env.job("pi");
    BOOST_TEST(conditionStatus(job, "Failed") == "True");
    BOOST_TEST(str(condition(job, "Failed")->if_contains("reason")) == "DeadlineExceeded");
    BOOST_TEST(str(condition(job, "Failed")->if_contains("message")) == "Job was active longer than specified deadline");
    BOOST_TEST(env.pods("pi").empty());
    BOOST_TEST(intAt(job, "status/failed") == 2);
}

BOOST_AUTO_TEST_CASE(suspend_deletes_pods_and_resume_recreates_them) {
    Env env;
    env.create(indexedJob("pi", 2, 0, R"(,"activeDeadlineSeconds":100)"));
    env.settle();
    env.setPods("pi", "Running", true);
    auto job = env.job("pi");
    job["spec"].as_object()["suspend"] = true;
    BOOST_REQUIRE(env.store.update(job).ok());
    env.settle();
    job = env.job("pi");
    BOOST_TEST(env.pods("pi").empty());
    BOOST_TEST(conditionStatus(job, "Suspended") == "True");
    BOOST_TEST(str(condition(job, "Suspended")->if_contains("reason")) == "JobSuspended");
    BOOST_TEST(!at(job, "status/failed"));  // deleted while suspended: not failures
    BOOST_TEST(!at(job, "status/active"));
    env.clock.advance(50s);
    job["spec"].as_object()["suspend"] = false;
    job["metadata"].as_object().erase("resourceVersion");
    BOOST_REQUIRE(env.store.update(job).ok());
    env.settle();
    job = env.job("pi");
    BOOST_TEST(conditionStatus(job, "Suspended") == "False");
    BOOST_TEST(str(condition(job, "Suspended")->if_contains("reason")) == "JobResumed");
    BOOST_TEST(strAt(job, "status/startTime") == "2024-05-01T12:00:50Z");
    BOOST_TEST(env.pods("pi").size() == 2u);
    env.clock.advance(60s);  // 110 s after the first start, 60 s after the resume
    env.settle();
    BOOST_TEST(conditionStatus(env.job("pi"), "Failed") == "");  // the deadline counts from the resume
}

BOOST_AUTO_TEST_CASE(pods_of_a_deleted_job_are_released) {
    Env env;
    env.create(indexedJob("pi", 2, 0));
    env.settle();
    env.setPods("pi", "Running", true);
    auto r = env.store.remove(ObjectKey{"batch/v1", "Job", "default", "pi"});
    BOOST_REQUIRE(r.ok());
    auto left = env.pods("pi");
    BOOST_REQUIRE_EQUAL(left.size(), 2u);  // held by the finalizer, marked for deletion
    BOOST_TEST(at(left[0], "metadata/deletionTimestamp"));
    env.settle();
    BOOST_TEST(env.pods("pi").empty());
}

BOOST_AUTO_TEST_CASE(invalid_job_specs_fail_with_a_message) {
    Env env;
    env.create(plainJob("nocontainers", R"("parallelism":1,)"));
    auto bad = env.job("nocontainers");
    bad["spec"].as_object()["template"].as_object()["spec"].as_object()["containers"] = json::array();
    BOOST_REQUIRE(env.store.update(bad).ok());
    env.create(plainJob("negative", R"("parallelism":-1,)"));
    env.create(plainJob("text", R"("completions":"three",)"));
    env.create(parseObject(R"({"apiVersion":"batch/v1","kind":"Job","metadata":{"name":"indexed","namespace":"default"},
        "spec":{"completionMode":"Indexed","parallelism":2,"template":{"spec":{"restartPolicy":"Never","containers":[{"name":"m"}]}}}})"));
    env.create(parseObject(R"({"apiVersion":"batch/v1","kind":"Job","metadata":{"name":"notemplate","namespace":"default"},
        "spec":{"template":"x"}})"));
    env.settle();
    std::vector<std::pair<std::string, std::string>> expected = {
        {"nocontainers", "spec.template.spec.containers: Required value"},
        {"negative", "spec.parallelism: Invalid value: -1: must be greater than or equal to 0"},
        {"text", "spec.completions: Invalid value: \"three\""},
        {"indexed", "spec.completions: Required value: when completion mode is Indexed"},
        {"notemplate", "spec.template: Required value"},
    };
    for (auto const& [name, message] : expected) {
        auto job = env.job(name);
        BOOST_TEST_CONTEXT(name) {
            BOOST_TEST(conditionStatus(job, "Failed") == "True");
            BOOST_TEST(str(condition(job, "Failed")->if_contains("reason")) == "InvalidJobSpec");
            BOOST_TEST(str(condition(job, "Failed")->if_contains("message")).rfind(message, 0) == 0u);
            BOOST_TEST(env.pods(name).empty());
        }
    }
}

BOOST_AUTO_TEST_SUITE_END()
