// The JobSet controller with the Job controller behind it, through the WorkloadManager.
#include "workloads_fixture.hpp"
#include "../../../support/wait.hpp"

#include "core/executor/jobset_controller.hpp"

#include <thread>

using namespace workloads_test;
using namespace std::chrono_literals;

namespace {

const std::string kJobSetApi = "jobset.x-k8s.io/v1alpha2";

// node: 2 Jobs of 2 pods; launcher: 1 Job of 1 pod.
json::object mpiLike(const std::string& launcherExtra = "", const std::string& extraSpec = "") {
    return jobSetObject("train", replicatedJob("node", 2, 2) + "," + replicatedJob("launcher", 1, 1, launcherExtra), extraSpec);
}

const json::object* replicatedJobStatus(const json::object& js, const std::string& name) {
    auto* list = at(js, "status/replicatedJobsStatus");
    if (!list || !list->is_array()) return nullptr;
    for (auto const& r : list->get_array())
        if (str(r.get_object().if_contains("name")) == name) return &r.get_object();
    return nullptr;
}

int64_t counter(const json::object& js, const std::string& rjob, const std::string& key) {
    auto* r = replicatedJobStatus(js, rjob);
    return r ? intAt(*r, key) : -1;
}

std::string reason(const json::object& o, const std::string& type) {
    auto* c = condition(o, type);
    return c ? str(c->if_contains("reason")) : "";
}

std::string message(const json::object& o, const std::string& type) {
    auto* c = condition(o, type);
    return c ? str(c->if_contains("message")) : "";
}

void runAll(Env& env, const std::string& job, const std::string& phase, bool ready = false) {
    env.setPods(job, phase, ready);
    env.settle();
}

}  // namespace

BOOST_AUTO_TEST_SUITE(jobset_controller)

BOOST_AUTO_TEST_CASE(creates_labelled_jobs_service_and_pods) {
    Env env;
    env.create(mpiLike());
    env.settle();
    auto js = env.jobSet("train");
    std::string uid = strAt(js, "metadata/uid");
    BOOST_REQUIRE_EQUAL(env.jobs().size(), 3u);
    struct Want {
        std::string name, rjob, index, global, replicas;
    };
    for (auto const& w : {Want{"train-node-0", "node", "0", "0", "2"}, Want{"train-node-1", "node", "1", "1", "2"},
                          Want{"train-launcher-0", "launcher", "0", "2", "1"}}) {
        auto job = env.job(w.name);
        BOOST_TEST_CONTEXT(w.name) {
            for (const json::object* meta : std::vector<const json::object*>{&job, &at(job, "spec/template")->as_object()}) {
                std::vector<std::pair<std::string, std::string>> keys = {
                    {"jobset.sigs.k8s.io/jobset-name", "train"},
                    {"jobset.sigs.k8s.io/jobset-uid", uid},
                    {"jobset.sigs.k8s.io/replicatedjob-name", w.rjob},
                    {"jobset.sigs.k8s.io/replicatedjob-replicas", w.replicas},
                    {"jobset.sigs.k8s.io/job-index", w.index},
                    {"jobset.sigs.k8s.io/job-global-index", w.global},
                    {"jobset.sigs.k8s.io/global-replicas", "3"},
                    {"jobset.sigs.k8s.io/restart-attempt", "0"},
                    {"jobset.sigs.k8s.io/group-name", "default"},
                    {"jobset.sigs.k8s.io/job-key", ex::jobHashKey("default", w.name)},
                };
                for (auto const& [k, v] : keys) {
                    BOOST_TEST(Env::labelOf(*meta, k) == v, k);
                    BOOST_TEST(Env::annotationOf(*meta, k) == v, k);
                }
            }
            BOOST_TEST(strAt(job, "spec/completionMode") == "Indexed");
            BOOST_TEST(strAt(job, "spec/template/spec/restartPolicy") == "OnFailure");
            BOOST_TEST(strAt(job, "spec/template/spec/subdomain") == "train");
            BOOST_TEST(at(job, "spec/suspend")->as_bool() == false);
            auto const& ref = at(job, "metadata/ownerReferences")->get_array().at(0).get_object();
            BOOST_TEST(str(ref.if_contains("kind")) == "JobSet");
            BOOST_TEST(str(ref.if_contains("uid")) == uid);
            BOOST_TEST(ref.at("controller").as_bool());
            BOOST_TEST(ref.at("blockOwnerDeletion").as_bool());
        }
    }
    auto svc = env.get("v1", "Service", "train");
    BOOST_TEST(strAt(svc, "spec/clusterIP") == "None");
    BOOST_TEST(str(at(svc, "spec/selector")->as_object().if_contains("jobset.sigs.k8s.io/jobset-name")) == "train");
    BOOST_TEST(at(svc, "spec/publishNotReadyAddresses")->as_bool());
    BOOST_TEST(str(at(svc, "metadata/ownerReferences")->as_array().at(0).as_object().if_contains("uid")) == uid);
    auto pods = env.pods("train-node-1");
    BOOST_REQUIRE_EQUAL(pods.size(), 2u);
    BOOST_TEST(strAt(pods[1], "spec/hostname") == "train-node-1-1");
    BOOST_TEST(strAt(pods[1], "spec/subdomain") == "train");
    BOOST_TEST(Env::labelOf(pods[1], "jobset.sigs.k8s.io/jobset-name") == "train");
    BOOST_TEST(intAt(js, "status/restarts") == 0);
    BOOST_TEST(counter(js, "node", "active") == 2);  // Jobs with pods running or pending
    BOOST_TEST(counter(js, "node", "ready") == 0);
    BOOST_TEST(counter(js, "launcher", "active") == 1);
    BOOST_TEST(conditionStatus(js, "Suspended") == "");
}

BOOST_AUTO_TEST_CASE(network_subdomain_and_disabled_hostnames) {
    Env env;
    env.create(jobSetObject("a", replicatedJob("w", 1, 1), R"(,"network":{"subdomain":"mesh","publishNotReadyAddresses":false})"));
    env.create(jobSetObject("b", replicatedJob("w", 1, 1), R"(,"network":{"enableDNSHostnames":false})"));
    env.settle();
    BOOST_TEST(strAt(env.job("a-w-0"), "spec/template/spec/subdomain") == "mesh");
    BOOST_TEST(!at(env.get("v1", "Service", "mesh"), "spec/publishNotReadyAddresses")->as_bool());
    BOOST_TEST(!at(env.job("b-w-0"), "spec/template/spec/subdomain"));
    BOOST_TEST(!env.exists("v1", "Service", "b"));
    BOOST_TEST(strAt(env.pods("b-w-0").at(0), "spec/hostname") == "b-w-0-0");  // Indexed Jobs always name hosts
}

BOOST_AUTO_TEST_CASE(depends_on_ready_waits_for_ready_pods) {
    Env env;
    env.create(mpiLike(R"(,"dependsOn":[{"name":"node","status":"Ready"}])"));
    env.settle();
    BOOST_TEST(env.jobs().size() == 2u);
    BOOST_TEST(!env.exists("batch/v1", "Job", "train-launcher-0"));
    runAll(env, "train-node-0", "Running", true);
    runAll(env, "train-node-1", "Running", false);
    BOOST_TEST(counter(env.jobSet("train"), "node", "ready") == 1);
    BOOST_TEST(!env.exists("batch/v1", "Job", "train-launcher-0"));
    runAll(env, "train-node-1", "Running", true);
    auto js = env.jobSet("train");
    BOOST_TEST(counter(js, "node", "ready") == 2);
    BOOST_TEST(counter(js, "node", "active") == 2);
    BOOST_TEST(env.exists("batch/v1", "Job", "train-launcher-0"));
    BOOST_TEST(env.pods("train-launcher-0").size() == 1u);
}

BOOST_AUTO_TEST_CASE(all_jobs_succeed_then_completed) {
    Env env;
    env.create(mpiLike());
    env.settle();
    for (auto const* j : {"train-node-0", "train-node-1"}) runAll(env, j, "Succeeded");
    auto js = env.jobSet("train");
    BOOST_TEST(conditionStatus(js, "Completed") == "");
    BOOST_TEST(counter(js, "node", "succeeded") == 2);
    BOOST_TEST(counter(js, "launcher", "active") == 1);
    runAll(env, "train-launcher-0", "Succeeded");
    js = env.jobSet("train");
    BOOST_TEST(conditionStatus(js, "Completed") == "True");
    BOOST_TEST(reason(js, "Completed") == "AllJobsCompleted");
    BOOST_TEST(message(js, "Completed") == "jobset completed successfully");
    BOOST_TEST(strAt(js, "status/terminalState") == "Completed");
    // What the TrainJob status hook (plugins/jobset/status.cpp) reads: the five counters per job.
    auto const& node = *replicatedJobStatus(js, "node");
    BOOST_TEST(node.size() == 6u);
    for (auto const* k : {"ready", "succeeded", "failed", "active", "suspended"}) BOOST_TEST(node.contains(k), k);
    BOOST_TEST(intAt(node, "succeeded") == 2);
    BOOST_TEST(counter(js, "launcher", "succeeded") == 1);
    BOOST_TEST(counter(js, "launcher", "active") == 0);
    BOOST_TEST(env.jobs().size() == 3u);  // finished Jobs stay
}

BOOST_AUTO_TEST_CASE(a_failed_job_fails_the_jobset) {
    Env env;
    env.create(mpiLike());
    env.settle();
    runAll(env, "train-launcher-0", "Running", true);
    env.setPod(env.pods("train-node-1")[0], "Failed");
    env.settle();
    BOOST_TEST(conditionStatus(env.job("train-node-1"), "Failed") == "True");
    auto js = env.jobSet("train");
    BOOST_TEST(conditionStatus(js, "Failed") == "True");
    BOOST_TEST(reason(js, "Failed") == "FailedJobs");
    BOOST_TEST(message(js, "Failed") == "jobset failed due to one or more job failures (first failed job: train-node-1)");
    BOOST_TEST(strAt(js, "status/terminalState") == "Failed");
    BOOST_TEST(counter(js, "node", "failed") == 1);
    // The still-active Jobs are deleted, with their pods.
    BOOST_TEST(env.jobs().size() == 1u);
    BOOST_TEST(env.pods("train-launcher-0").empty());
    BOOST_TEST(env.pods("train-node-0").empty());
}

BOOST_AUTO_TEST_CASE(max_restarts_recreates_jobs_then_fails) {
    Env env;
    env.create(mpiLike("", R"(,"failurePolicy":{"maxRestarts":1})"));
    env.settle();
    std::string firstUid = strAt(env.job("train-node-0"), "metadata/uid");
    env.setPod(env.pods("train-node-0")[0], "Failed");
    env.settle();
    auto js = env.jobSet("train");
    BOOST_TEST(conditionStatus(js, "Failed") == "");
    BOOST_TEST(intAt(js, "status/restarts") == 1);
    BOOST_TEST(intAt(js, "status/restartsCountTowardsMax") == 1);
    BOOST_REQUIRE_EQUAL(env.jobs().size(), 3u);
    for (auto const& job : env.jobs()) BOOST_TEST(Env::labelOf(job, "jobset.sigs.k8s.io/restart-attempt") == "1");
    BOOST_TEST(strAt(env.job("train-node-0"), "metadata/uid") != firstUid);
    auto pods = env.pods("train-node-0");
    BOOST_REQUIRE_EQUAL(pods.size(), 2u);  // the old pods are gone, new ones made
    for (auto const& p : pods) BOOST_TEST(!at(p, "status"));
    BOOST_TEST(Env::labelOf(pods[0], "jobset.sigs.k8s.io/restart-attempt") == "1");
    env.setPod(env.pods("train-launcher-0")[0], "Failed");
    env.settle();
    js = env.jobSet("train");
    BOOST_TEST(conditionStatus(js, "Failed") == "True");
    BOOST_TEST(reason(js, "Failed") == "ReachedMaxRestarts");
    BOOST_TEST(message(js, "Failed") ==
               "jobset failed due to reaching max number of restarts (first failed job: train-launcher-0)");
    BOOST_TEST(intAt(js, "status/restarts") == 1);
}

BOOST_AUTO_TEST_CASE(success_policy_any_launcher_completes_while_workers_run) {
    Env env;
    env.create(mpiLike("", R"(,"successPolicy":{"operator":"Any","targetReplicatedJobs":["launcher"]})"));
    env.settle();
    runAll(env, "train-node-0", "Running", true);
    runAll(env, "train-node-1", "Running", true);
    runAll(env, "train-node-0", "Succeeded");  // a worker finishing is not enough
    BOOST_TEST(conditionStatus(env.jobSet("train"), "Completed") == "");
    runAll(env, "train-launcher-0", "Succeeded");
    auto js = env.jobSet("train");
    BOOST_TEST(conditionStatus(js, "Completed") == "True");
    BOOST_TEST(strAt(js, "status/terminalState") == "Completed");
    BOOST_TEST(!env.exists("batch/v1", "Job", "train-node-1"));
    BOOST_TEST(env.pods("train-node-1").empty());
    BOOST_TEST(env.exists("batch/v1", "Job", "train-node-0"));  // finished Jobs stay
    BOOST_TEST(env.exists("batch/v1", "Job", "train-launcher-0"));
}

BOOST_AUTO_TEST_CASE(suspend_and_resume) {
    Env env;
    env.create(mpiLike("", R"(,"suspend":true)"));
    env.settle();
    auto js = env.jobSet("train");
    BOOST_TEST(conditionStatus(js, "Suspended") == "True");
    BOOST_TEST(reason(js, "Suspended") == "SuspendedJobs");
    BOOST_TEST(message(js, "Suspended") == "jobset is suspended");
    BOOST_TEST(env.jobs().size() == 3u);
    for (auto const& job : env.jobs()) BOOST_TEST(at(job, "spec/suspend")->as_bool());
    BOOST_TEST(env.pods("train-node-0").empty());
    BOOST_TEST(counter(js, "node", "suspended") == 2);

    js["spec"].as_object()["suspend"] = false;
    BOOST_REQUIRE(env.store.update(js).ok());
    env.settle();
    js = env.jobSet("train");
    BOOST_TEST(conditionStatus(js, "Suspended") == "False");
    BOOST_TEST(reason(js, "Suspended") == "ResumeJobs");
    BOOST_TEST(message(js, "Suspended") == "jobset is resumed");
    BOOST_TEST(env.pods("train-node-0").size() == 2u);
    BOOST_TEST(conditionStatus(env.job("train-node-0"), "Suspended") == "False");
    BOOST_TEST(reason(env.job("train-node-0"), "Suspended") == "JobResumed");
    runAll(env, "train-node-0", "Running", true);

    js["spec"].as_object()["suspend"] = true;
    js["metadata"].as_object().erase("resourceVersion");
    BOOST_REQUIRE(env.store.update(js).ok());
    env.settle();
    BOOST_TEST(conditionStatus(env.jobSet("train"), "Suspended") == "True");
    BOOST_TEST(env.pods("train-node-0").empty());
    BOOST_TEST(conditionStatus(env.job("train-node-0"), "Suspended") == "True");
    BOOST_TEST(!at(env.job("train-node-0"), "status/failed"));
}

BOOST_AUTO_TEST_CASE(in_order_startup) {
    Env env;
    env.create(jobSetObject("io", replicatedJob("first", 1, 1) + "," + replicatedJob("second", 1, 1),
                            R"(,"startupPolicy":{"startupPolicyOrder":"InOrder"})"));
    env.settle();
    BOOST_TEST(env.exists("batch/v1", "Job", "io-first-0"));
    BOOST_TEST(!env.exists("batch/v1", "Job", "io-second-0"));
    BOOST_TEST(conditionStatus(env.jobSet("io"), "StartupPolicyInProgress") == "True");
    runAll(env, "io-first-0", "Running", true);
    BOOST_TEST(env.exists("batch/v1", "Job", "io-second-0"));
    runAll(env, "io-second-0", "Running", true);
    auto js = env.jobSet("io");
    BOOST_TEST(conditionStatus(js, "StartupPolicyCompleted") == "True");
    BOOST_TEST(conditionStatus(js, "StartupPolicyInProgress") == "False");
}

BOOST_AUTO_TEST_CASE(ttl_after_finished_deletes_the_jobset) {
    Env env;
    env.create(jobSetObject("short", replicatedJob("w", 1, 1), R"(,"ttlSecondsAfterFinished":10)"));
    env.settle();
    runAll(env, "short-w-0", "Succeeded");
    BOOST_TEST(conditionStatus(env.jobSet("short"), "Completed") == "True");
    env.clock.advance(10s);
    env.settle();
    BOOST_TEST(!env.exists(kJobSetApi, "JobSet", "short"));
    BOOST_TEST(env.jobs().empty());
}

BOOST_AUTO_TEST_CASE(invalid_jobsets_fail_with_a_message) {
    Env env;
    auto make = [&](const std::string& name, const std::string& spec) {
        env.create(parseObject(R"({"apiVersion":"jobset.x-k8s.io/v1alpha2","kind":"JobSet","metadata":{"name":")" + name +
                               R"(","namespace":"default"},"spec":)" + spec + "}"));
    };
    make("empty", R"({"replicatedJobs":[]})");
    make("negative", R"({"replicatedJobs":[{"name":"w","replicas":-1,"template":{"spec":{"template":{"spec":{"containers":[{"name":"m"}]}}}}}]})");
    make("text", R"({"replicatedJobs":[{"name":"w","template":"x"}]})");
    make("nospec", R"("x")");
    make("nocontainers", R"({"replicatedJobs":[{"name":"w","template":{"spec":{"template":{"spec":{}}}}}]})");
    make("baddep", R"({"replicatedJobs":[{"name":"w","dependsOn":[{"name":"later","status":"Ready"}],"template":{"spec":{"template":{"spec":{"containers":[{"name":"m"}]}}}}}]})");
    env.settle();
    std::vector<std::pair<std::string, std::string>> expected = {
        {"empty", "spec.replicatedJobs: Required value"},
        {"negative", "spec.replicatedJobs[0].replicas: Invalid value: -1"},
        {"text", "spec.replicatedJobs[0].template: Required value"},
        {"nospec", "spec: Required value"},
        {"nocontainers", "spec.replicatedJobs[0].template.spec.template.spec.containers: Required value"},
        {"baddep", "spec.replicatedJobs[0].dependsOn: Invalid value: \"later\""},
    };
    for (auto const& [name, msg] : expected) {
        BOOST_TEST_CONTEXT(name) {
            auto js = env.jobSet(name);
            BOOST_TEST(conditionStatus(js, "Failed") == "True");
            BOOST_TEST(reason(js, "Failed") == "InvalidJobSet");
            BOOST_TEST(message(js, "Failed").rfind(msg, 0) == 0u, message(js, "Failed"));
            BOOST_TEST(strAt(js, "status/terminalState") == "Failed");
        }
    }
    BOOST_TEST(env.jobs().empty());
}

BOOST_AUTO_TEST_CASE(manager_threads_reconcile_in_the_background) {
    Env env;
    env.manager.start();
    env.create(jobSetObject("bg", replicatedJob("w", 1, 1)));
    // The manager's threads make the pod on their own (the bound is a hang guard).
    bool podMade = trainer::test::waitFor([&] { return !env.pods("bg-w-0").empty(); }, trainer::test::kEventBound, 10ms);
    env.manager.stop();
    BOOST_TEST(podMade);
    BOOST_TEST(env.manager.jobSets().name() == std::string("job") + "set");
    BOOST_TEST(env.manager.jobs().name() == "job");
}

BOOST_AUTO_TEST_SUITE_END()
