#include <boost/test/unit_test.hpp>

#include "core/api/schema.hpp"
#include "core/controller/events.hpp"
#include "core/controller/manager.hpp"
#include "core/json/io.hpp"
#include "core/server/metrics.hpp"
#include "core/store/memory_store.hpp"
#include "test/support/reads.hpp"
#include "test/support/forwarding_store.hpp"

#include <map>
#include <set>
#include <thread>

using namespace trainer::core;
using namespace trainer::core::controller;
using namespace std::chrono_literals;
using trainer::test::found;
using trainer::test::readOk;

namespace {

const std::string kExamples = std::string(TRAINER_SOURCE_DIR) + "/examples/";
const ObjectKey kTrainJob{"trainer.kubeflow.org/v1alpha1", "TrainJob", "default", "plain-example"};
const ObjectKey kJobSet{"jobset.x-k8s.io/v1alpha2", "JobSet", "default", "plain-example"};
const ObjectKey kSnapshot{"v1", "ConfigMap", "default", "plain-example-runtime-snapshot"};

json::object readOne(const std::string& file) {
    std::vector<InputDocument> docs;
    auto d = readInputs({kExamples + file}, docs);
    BOOST_REQUIRE_MESSAGE(d.ok() && docs.size() == 1u, file);
    applyDefaults(docs[0].object);
    return docs[0].object;
}

// Forwards to a MemoryStore; the first `conflicts` status writes fail with Conflict.
class ConflictingStore : public trainer::test::ForwardingStore {
public:
    ConflictingStore(MemoryStore& s, int conflicts) : ForwardingStore(s), s_(s), conflicts_(conflicts) {}
    StoreResult updateStatus(const json::object& o) override {
        ++statusWrites;
        if (conflicts_ > 0) {
            --conflicts_;
            return StoreResult{StoreStatus::Conflict, "the object has been modified", {}};
        }
        return s_.updateStatus(o);
    }
    int statusWrites = 0;

private:
    MemoryStore& s_;
    int conflicts_;
};

struct Fixture {
    FakeClock clock;
    MemoryStore memory{StoreOptions{ResourceTable(), [this] { return clock.now(); }}};
    PluginRegistry registry;
    std::unique_ptr<Framework> framework;
    server::Registry metrics;
    std::unique_ptr<Manager> manager;

    explicit Fixture(Store* store = nullptr) {
        registry.loadDirectory(TRAINER_PLUGIN_BUILD_DIR);
        BOOST_REQUIRE_MESSAGE(registry.find("jobset") && registry.find("plainml"), "plugins not built");
        framework = std::make_unique<Framework>(registry);
        manager = std::make_unique<Manager>(store ? *store : memory, registry, *framework, clock, &metrics,
                                            log::Logger("test"));
    }
    void createRuntime() { BOOST_REQUIRE(memory.create(readOne("12-runtime-plain-with-initializers.yaml")).ok()); }
    void createTrainJob(const std::function<void(json::object&)>& edit = {}) {
        auto tj = readOne("22-trainjob-plain-initializers.yaml");
        if (edit) edit(tj.at("spec").as_object());
        auto r = memory.create(tj);
        BOOST_REQUIRE_MESSAGE(r.ok(), r.message);
    }
    json::object trainJob() { return *found(memory.get(kTrainJob)); }
    json::object status() {
        auto tj = trainJob();
        return tj.contains("status") ? tj.at("status").as_object() : json::object();
    }
    const json::object* condition(const json::object& st, std::string_view type) { return findCondition(st, type); }
    void editSpec(const std::function<void(json::object&)>& edit) {
        auto tj = trainJob();
        edit(tj.at("spec").as_object());
        auto r = memory.update(tj);
        BOOST_REQUIRE_MESSAGE(r.ok(), r.message);
    }
    void setJobSetCondition(const std::string& type) {
        auto js = *found(memory.get(kJobSet));
        js["status"] = json::object{
            {"conditions", json::array{json::object{{"type", type}, {"status", "True"}, {"reason", type == "Completed" ? "AllJobsCompleted" : "FailedJobs"},
                                                    {"message", "jobset " + type}, {"lastTransitionTime", "2024-05-01T12:30:00Z"}}}},
            {"replicatedJobsStatus", json::array{json::object{{"name", "node"}, {"ready", 0}, {"succeeded", 2}, {"failed", 0}, {"active", 0}, {"suspended", 0}}}}};
        auto r = memory.updateStatus(js);
        BOOST_REQUIRE_MESSAGE(r.ok(), r.message);
    }
    std::string str(const json::object* o, const char* k) {
        return o && o->contains(k) && o->at(k).is_string() ? std::string(o->at(k).as_string()) : "";
    }
    std::string resourceVersion(const ObjectKey& k) {
        auto o = found(memory.get(k));
        return o ? std::string(o->at("metadata").at("resourceVersion").as_string()) : "";
    }
};

}  // namespace

BOOST_AUTO_TEST_SUITE(reconciler)

BOOST_AUTO_TEST_CASE(builds_snapshot_and_jobset_once) {
    Fixture f;
    f.createRuntime();
    f.createTrainJob();
    f.manager->settle();
    BOOST_REQUIRE(found(f.memory.get(kJobSet)));
    auto cm = found(f.memory.get(kSnapshot));
    BOOST_REQUIRE(cm);
    BOOST_TEST(cm->at("data").at("runtime").as_string().find("plain-with-initializers") != std::string::npos);
    auto js = *found(f.memory.get(kJobSet));
    BOOST_TEST(js.at("metadata").at("ownerReferences").at(0).at("kind") == "TrainJob");
    BOOST_TEST(js.at("metadata").at("managedFields").at(0).at("manager") == "trainer");
    auto rv = f.resourceVersion(kJobSet);
    // Another pass, a restart (re-list) and an unrelated status change leave the JobSet alone.
    f.manager->relist();
    f.manager->settle();
    BOOST_TEST(f.resourceVersion(kJobSet) == rv);
    BOOST_TEST(f.metrics.value("controller_runtime_reconcile_total", {"trainjob", "success"}) >= 2);
    BOOST_TEST(f.condition(f.status(), "Created") == nullptr);
}

// own_writes.hpp: the events of the snapshot and JobSet a reconcile created do not queue that
// TrainJob again; anyone else's change to them, and their deletion, still do.
BOOST_AUTO_TEST_CASE(own_writes_do_not_queue_the_writer_again) {
    Fixture f;
    f.createRuntime();
    f.createTrainJob();
    f.manager->settle();
    BOOST_REQUIRE(found(f.memory.get(kJobSet)));
    BOOST_REQUIRE(found(f.memory.get(kSnapshot)));
    BOOST_TEST(f.metrics.value("controller_runtime_reconcile_total", {"trainjob", "success"}) == 1);

    // The JobSet's own controller reports it finished: the TrainJob is reconciled and follows,
    // and once more for its own status write (a TrainJob's own changes always queue it).
    f.setJobSetCondition("Completed");
    f.manager->settle();
    BOOST_TEST(f.metrics.value("controller_runtime_reconcile_total", {"trainjob", "success"}) == 3);
    BOOST_TEST(f.str(f.condition(f.status(), "Complete"), "status") == "True");
}

// Forwards to a MemoryStore, counting point reads per key.
class ReadCountingStore : public trainer::test::ForwardingStore {
public:
    explicit ReadCountingStore(MemoryStore& s) : ForwardingStore(s), s_(s) {}
    ReadResult get(const ObjectKey& k) const override {
        ++gets[k];
        return s_.get(k);
    }
    mutable std::map<ObjectKey, int> gets;

private:
    MemoryStore& s_;
};

// The status hooks read the children this reconcile applied as the store answered the apply,
// not from the store again: building a TrainJob reads its JobSet once (jobset's ComponentBuilder
// looks for one that exists), and the status written is the one a read from the store maps.
BOOST_AUTO_TEST_CASE(status_hooks_read_the_children_just_applied) {
    auto statusAfterOneReconcile = [](bool counted) {
        Fixture f;
        f.createRuntime();
        f.createTrainJob();
        ReadCountingStore counting(f.memory);
        TrainJobReconciler reconciler(counted ? static_cast<Store&>(counting) : f.memory, f.registry, *f.framework, f.clock);
        auto r = reconciler.reconcile(kTrainJob, log::Logger("test"));
        BOOST_TEST(r.error.empty(), r.error);
        BOOST_TEST_REQUIRE(found(f.memory.get(kJobSet)).has_value());
        if (counted) BOOST_TEST(counting.gets[kJobSet] == 1);
        auto st = f.status();
        if (auto* conds = st.if_contains("conditions"); conds && conds->is_array())
            for (auto& c : conds->as_array()) c.as_object().erase("lastTransitionTime");
        return st;
    };
    BOOST_TEST(json::serialize(statusAfterOneReconcile(true)) == json::serialize(statusAfterOneReconcile(false)));

    // A child the build did not apply is read from the store: a running JobSet is not updated,
    // so the next reconcile's status hook reads it there.
    Fixture f;
    f.createRuntime();
    f.createTrainJob();
    f.manager->settle();
    f.manager->stop();
    f.setJobSetCondition("Completed");
    ReadCountingStore store(f.memory);
    TrainJobReconciler reconciler(store, f.registry, *f.framework, f.clock);
    auto r = reconciler.reconcile(kTrainJob, log::Logger("test"));
    BOOST_TEST(r.error.empty(), r.error);
    BOOST_TEST(store.gets[kJobSet] == 2);  // the build's look, the status hook's read
    BOOST_TEST(f.str(f.condition(f.status(), "Complete"), "status") == "True");
}

BOOST_AUTO_TEST_CASE(a_deleted_child_is_built_again) {
    Fixture f;
    f.createRuntime();
    f.createTrainJob();
    f.manager->settle();
    auto uid = std::string(found(f.memory.get(kJobSet))->at("metadata").at("uid").as_string());
    BOOST_REQUIRE(f.memory.remove(kJobSet).ok());
    f.manager->settle();
    auto again = found(f.memory.get(kJobSet));
    BOOST_REQUIRE(again);
    BOOST_TEST(std::string(again->at("metadata").at("uid").as_string()) != uid);
    // Built once, once more for the deletion; the new JobSet's own event queues nothing.
    BOOST_TEST(f.metrics.value("controller_runtime_reconcile_total", {"trainjob", "success"}) == 2);
}

BOOST_AUTO_TEST_CASE(suspend_then_resume_sets_conditions_with_transition_times) {
    Fixture f;
    f.createRuntime();
    f.createTrainJob([](json::object& spec) { spec["suspend"] = true; });
    f.manager->settle();
    auto st = f.status();
    auto* c = f.condition(st, "Suspended");
    BOOST_REQUIRE(c);
    BOOST_TEST(f.str(c, "status") == "True");
    BOOST_TEST(f.str(c, "reason") == "Suspended");
    BOOST_TEST(f.str(c, "message") == "TrainJob is suspended");
    BOOST_TEST(f.str(c, "lastTransitionTime") == "2024-05-01T12:00:00Z");
    BOOST_TEST(found(f.memory.get(kJobSet))->at("spec").at("suspend") == true);

    f.clock.advance(60s);
    f.manager->settle();  // nothing flips: the time stays
    BOOST_TEST(f.str(f.condition(f.status(), "Suspended"), "lastTransitionTime") == "2024-05-01T12:00:00Z");

    f.editSpec([](json::object& spec) { spec["suspend"] = false; });
    f.manager->settle();
    st = f.status();
    c = f.condition(st, "Suspended");
    BOOST_REQUIRE(c);
    BOOST_TEST(f.str(c, "status") == "False");
    BOOST_TEST(f.str(c, "reason") == "Resumed");
    BOOST_TEST(f.str(c, "message") == "TrainJob is resumed");
    BOOST_TEST(f.str(c, "lastTransitionTime") == "2024-05-01T12:01:00Z");
    BOOST_TEST(found(f.memory.get(kJobSet))->at("spec").at("suspend") == false);
}

BOOST_AUTO_TEST_CASE(never_suspended_jobs_have_no_suspended_condition) {
    Fixture f;
    f.createRuntime();
    f.createTrainJob();
    f.manager->settle();
    BOOST_TEST(f.condition(f.status(), "Suspended") == nullptr);
}

BOOST_AUTO_TEST_CASE(active_deadline_fails_the_job_and_deletes_the_jobset) {
    Fixture f;
    f.createRuntime();
    f.createTrainJob([](json::object& spec) { spec["activeDeadlineSeconds"] = 60; });
    f.manager->settle();
    BOOST_REQUIRE(found(f.memory.get(kJobSet)));
    BOOST_TEST(f.manager->trainJobs().queue().delayed() == 1u);  // requeued after the remaining time
    BOOST_TEST(f.condition(f.status(), "Failed") == nullptr);
    f.clock.advance(59s);
    f.manager->settle();
    BOOST_TEST(f.condition(f.status(), "Failed") == nullptr);
    f.clock.advance(2s);
    f.manager->settle();
    auto st = f.status();
    auto* c = f.condition(st, "Failed");
    BOOST_REQUIRE(c);
    BOOST_TEST(f.str(c, "reason") == "DeadlineExceeded");
    BOOST_TEST(f.str(c, "message") == "TrainJob exceeded its active deadline");
    BOOST_TEST(!found(f.memory.get(kJobSet)).has_value());
    // Finished: never rebuilt.
    f.clock.advance(600s);
    f.manager->relist();
    f.manager->settle();
    BOOST_TEST(!found(f.memory.get(kJobSet)).has_value());
    BOOST_TEST(f.str(f.condition(f.status(), "Failed"), "reason") == "DeadlineExceeded");
}

BOOST_AUTO_TEST_CASE(resume_restarts_the_deadline_clock) {
    Fixture f;
    f.createRuntime();
    f.createTrainJob([](json::object& spec) {
        spec["activeDeadlineSeconds"] = 60;
        spec["suspend"] = true;
    });
    f.manager->settle();
    f.clock.advance(300s);  // suspended time does not count
    f.editSpec([](json::object& spec) { spec["suspend"] = false; });
    f.manager->settle();
    BOOST_TEST(f.condition(f.status(), "Failed") == nullptr);
    f.clock.advance(61s);
    f.manager->settle();
    BOOST_TEST(f.str(f.condition(f.status(), "Failed"), "reason") == "DeadlineExceeded");
}

BOOST_AUTO_TEST_CASE(status_follows_the_jobset_and_finished_jobs_are_not_rebuilt) {
    struct Case {
        std::string jobSetCondition, trainJobCondition, reason;
    };
    for (auto const& c : {Case{"Completed", "Complete", "AllJobsCompleted"}, Case{"Failed", "Failed", "FailedJobs"}}) {
        Fixture f;
        f.createRuntime();
        f.createTrainJob();
        f.manager->settle();
        f.setJobSetCondition(c.jobSetCondition);
        f.manager->settle();
        auto st = f.status();
        auto* cond = f.condition(st, c.trainJobCondition);
        BOOST_REQUIRE_MESSAGE(cond, c.trainJobCondition);
        BOOST_TEST(f.str(cond, "status") == "True");
        BOOST_TEST(f.str(cond, "reason") == c.reason);
        BOOST_TEST(st.at("jobsStatus").at(0).at("succeeded") == 2);
        // The JobSet disappears (TTL): the finished TrainJob keeps its status and is not rebuilt.
        BOOST_REQUIRE(f.memory.remove(kJobSet).ok());
        f.manager->settle();
        BOOST_TEST(!found(f.memory.get(kJobSet)).has_value());
        BOOST_TEST(f.str(f.condition(f.status(), c.trainJobCondition), "status") == "True");
    }
}

// A runtime whose trainer Job template has a malformed parallelism: resolving works, building fails.
void breakParallelism(json::object& runtime) {
    auto& jobs = runtime["spec"].as_object()["template"].as_object()["spec"].as_object()["replicatedJobs"].as_array();
    jobs.at(0).as_object()["template"].as_object()["spec"].as_object()["parallelism"] = "two";
}

BOOST_AUTO_TEST_CASE(the_snapshot_is_written_before_a_failing_first_build) {
    Fixture f;
    auto broken = readOne("12-runtime-plain-with-initializers.yaml");
    breakParallelism(broken);
    BOOST_REQUIRE(f.memory.create(broken).ok());
    f.createTrainJob();
    f.manager->settle();
    BOOST_TEST(!found(f.memory.get(kJobSet)).has_value());
    auto st = f.status();
    auto* created = f.condition(st, "Created");
    BOOST_REQUIRE(created);
    BOOST_TEST(f.str(created, "reason") == "TrainJobResourcesCreationFailed");
    auto cm = found(f.memory.get(kSnapshot));
    BOOST_REQUIRE_MESSAGE(cm, "no snapshot after a failed first build");
    BOOST_TEST(std::string(cm->at("data").at("runtime").as_string()).find("two") != std::string::npos);
    // Fixing the live runtime does not change what the TrainJob is frozen to.
    auto live = *found(f.memory.get(ObjectKey{"trainer.kubeflow.org/v1alpha1", "TrainingRuntime", "default", "plain-with-initializers"}));
    auto fixed = readOne("12-runtime-plain-with-initializers.yaml");
    fixed["metadata"] = live.at("metadata");
    BOOST_REQUIRE(f.memory.update(fixed).ok());
    f.clock.advance(10s);
    f.manager->settle();
    BOOST_TEST(!found(f.memory.get(kJobSet)).has_value());
}

BOOST_AUTO_TEST_CASE(status_is_read_on_every_reconcile_even_when_the_build_fails) {
    Fixture f;
    f.createRuntime();
    f.createTrainJob();
    f.manager->settle();
    BOOST_REQUIRE(found(f.memory.get(kJobSet)));
    // The frozen runtime turns unbuildable (a snapshot edited by hand), then the JobSet completes.
    auto cm = *found(f.memory.get(kSnapshot));
    std::string yaml(cm.at("data").at("runtime").as_string());
    auto pos = yaml.find("dependsOn");
    BOOST_REQUIRE(pos != std::string::npos);
    cm["data"].as_object()["runtime"] = yaml + "\nspec: 3\n";  // duplicate key: not a runtime any more
    BOOST_REQUIRE(f.memory.update(cm).ok());
    f.setJobSetCondition("Completed");
    f.manager->settle();
    auto st = f.status();
    auto* created = f.condition(st, "Created");
    BOOST_REQUIRE_MESSAGE(created, "the build was expected to fail");
    auto* complete = f.condition(st, "Complete");
    BOOST_REQUIRE_MESSAGE(complete, "the JobSet's completion did not reach the TrainJob");
    BOOST_TEST(f.str(complete, "status") == "True");
}

BOOST_AUTO_TEST_CASE(managed_by_another_controller_is_skipped) {
    Fixture f;
    f.createRuntime();
    f.createTrainJob([](json::object& spec) { spec["managedBy"] = "kueue.x-k8s.io/multikueue"; });
    f.manager->settle();
    BOOST_TEST(!found(f.memory.get(kJobSet)).has_value());
    BOOST_TEST(!found(f.memory.get(kSnapshot)).has_value());
    BOOST_TEST(!f.trainJob().contains("status"));
}

BOOST_AUTO_TEST_CASE(missing_runtime_sets_created_false_and_an_event_then_recovers) {
    Fixture f;
    f.createTrainJob();
    f.manager->settle();
    auto st = f.status();
    auto* c = f.condition(st, "Created");
    BOOST_REQUIRE(c);
    BOOST_TEST(f.str(c, "status") == "False");
    BOOST_TEST(f.str(c, "reason") == "TrainingRuntimeNotFound");
    BOOST_TEST(f.str(c, "message").find("plain-with-initializers") != std::string::npos);
    auto events = readOk(f.memory.list("v1", "Event", std::string("default")));
    BOOST_REQUIRE(events.size() == 1u);
    BOOST_TEST(events[0].at("reason") == "TrainJobResourcesCreationFailed");
    BOOST_TEST(events[0].at("type") == "Warning");
    BOOST_TEST(events[0].at("action") == "Reconciling");
    BOOST_TEST(events[0].at("involvedObject").at("name") == "plain-example");
    BOOST_TEST(std::string(events[0].at("message").as_string()).rfind("TrainJob resources reconciliation failed: ", 0) == 0u);
    BOOST_TEST(f.manager->trainJobs().queue().numRequeues(kTrainJob) >= 1);

    // The retry repeats the event: counted, not duplicated.
    f.clock.advance(1s);
    f.manager->settle();
    events = readOk(f.memory.list("v1", "Event", std::string("default")));
    BOOST_REQUIRE(events.size() == 1u);
    BOOST_TEST(events[0].at("count").as_int64() >= 2);

    // The runtime appears: the watch re-queues the TrainJob at once, the build succeeds, the condition goes.
    f.createRuntime();
    f.manager->settle();
    BOOST_TEST(found(f.memory.get(kJobSet)).has_value());
    BOOST_TEST(f.condition(f.status(), "Created") == nullptr);
}

// The watch loop runs again after a stop (a standby that regains leadership restarts it): a
// TrainJob created after the second start() is built without a settle() driving it.
BOOST_AUTO_TEST_CASE(a_manager_started_again_after_stop_reconciles) {
    Fixture f;
    f.createRuntime();
    auto builtWithin = [&](const ObjectKey& k) {
        for (int i = 0; i < 3000; ++i) {  // 30 s at most; the build takes milliseconds
            if (found(f.memory.get(k))) return true;
            std::this_thread::sleep_for(10ms);
        }
        return false;
    };
    f.manager->start();
    f.createTrainJob();
    BOOST_TEST(builtWithin(kJobSet));
    f.manager->stop();
    f.manager->start();
    auto second = readOne("22-trainjob-plain-initializers.yaml");
    second["metadata"].as_object()["name"] = "plain-example-2";
    BOOST_REQUIRE(f.memory.create(second).ok());
    BOOST_TEST(builtWithin(ObjectKey{kJobSet.apiVersion, kJobSet.kind, kJobSet.ns, "plain-example-2"}));
    f.manager->stop();
}

BOOST_AUTO_TEST_CASE(status_conflict_is_retried) {
    Fixture f;
    ConflictingStore store(f.memory, 3);
    Manager m(store, f.registry, *f.framework, f.clock, &f.metrics, log::Logger("test"));
    f.createRuntime();
    f.createTrainJob([](json::object& spec) { spec["suspend"] = true; });
    m.settle();
    // Every status write so far conflicted and was requeued with backoff, none lost.
    BOOST_TEST(f.condition(f.status(), "Suspended") == nullptr);
    BOOST_TEST(store.statusWrites >= 1);
    BOOST_TEST(f.metrics.value("controller_runtime_reconcile_total", {"trainjob", "requeue"}) == store.statusWrites);
    BOOST_TEST(m.trainJobs().queue().delayed() == 1u);
    for (int i = 0; i < 5 && store.statusWrites < 4; ++i) {
        f.clock.advance(1s);
        m.settle();
    }
    BOOST_TEST(store.statusWrites == 4);
    BOOST_TEST(f.str(f.condition(f.status(), "Suspended"), "reason") == "Suspended");
}

BOOST_AUTO_TEST_CASE(runtime_reconciler_removes_only_the_legacy_finalizer) {
    Fixture f;
    auto rt = readOne("12-runtime-plain-with-initializers.yaml");
    rt["metadata"].as_object()["finalizers"] = json::array{"trainer.kubeflow.org/resource-in-use", "example.com/keep"};
    BOOST_REQUIRE(f.memory.create(rt).ok());
    f.manager->settle();
    auto got = *found(f.memory.get(keyOf(rt)));
    BOOST_TEST(got.at("metadata").at("finalizers") == (json::array{"example.com/keep"}));
}

BOOST_AUTO_TEST_CASE(event_notes_are_truncated_like_upstream) {
    BOOST_TEST(truncateEventNote(std::string(950, 'x')) == std::string(950, 'x'));
    BOOST_TEST(truncateEventNote(std::string(951, 'x')) == std::string(950, 'x') + " ...");
}

BOOST_AUTO_TEST_CASE(watches_map_changes_to_trainjobs) {
    Fixture f;
    BOOST_REQUIRE_MESSAGE(f.registry.find("coscheduling"), "coscheduling plugin not built");
    f.createRuntime();
    f.createTrainJob([](json::object& spec) { spec["suspend"] = true; });
    auto tj2 = readOne("22-trainjob-plain-initializers.yaml");
    tj2["metadata"].as_object()["name"] = "running";
    BOOST_REQUIRE(f.memory.create(tj2).ok());
    ChangeMapper mapper(f.registry);
    auto names = [&](const json::object& obj) {
        Change c{1, ChangeType::Added, keyOf(obj), obj};
        std::vector<std::string> out;
        for (auto const& k : readOk(mapper.trainJobsFor(c, f.memory))) out.push_back(k.name);
        return out;
    };
    using V = std::vector<std::string>;
    json::object owned{{"apiVersion", "v1"}, {"kind", "ConfigMap"},
                       {"metadata", json::object{{"name", "x"}, {"namespace", "default"},
                                                 {"ownerReferences", json::array{json::object{
                                                     {"apiVersion", "trainer.kubeflow.org/v1alpha1"}, {"kind", "TrainJob"},
                                                     {"name", "running"}, {"uid", "u"}, {"controller", true}}}}}}};
    BOOST_TEST(names(owned) == V{"running"}, boost::test_tools::per_element());
    json::object limitRange{{"apiVersion", "v1"}, {"kind", "LimitRange"},
                            {"metadata", json::object{{"name", "lr"}, {"namespace", "default"}}}};
    BOOST_TEST(names(limitRange) == V{"plain-example"}, boost::test_tools::per_element());  // suspended ones only
    json::object otherNs = limitRange;
    otherNs["metadata"].as_object()["namespace"] = "other";
    BOOST_TEST(names(otherNs).empty());
    json::object unrelated{{"apiVersion", "v1"}, {"kind", "Secret"}, {"metadata", json::object{{"name", "s"}, {"namespace", "default"}}}};
    BOOST_TEST(names(unrelated).empty());
    auto rt = readOne("12-runtime-plain-with-initializers.yaml");
    auto both = names(rt);
    std::sort(both.begin(), both.end());
    BOOST_TEST(both == (V{"plain-example", "running"}), boost::test_tools::per_element());
}

BOOST_AUTO_TEST_SUITE_END()
