// Errors are not absence (issue 12 item 6): a store whose reads fail makes the TrainJob
// reconciler write nothing (no child deleted, rebuilt or regenerated, no snapshot rewritten, no
// status or event) and retry with backoff; the watcher loses no change. The store is a
// MemoryStore behind a wrapper that answers Error for chosen reads, as SqliteStore does when
// SQLite fails (test/core/store/sqlite_read_errors_test.cpp has that for real).
#define BOOST_TEST_MODULE test_core_controller_read_failures
#include <boost/test/unit_test.hpp>

#include "core/api/schema.hpp"
#include "core/controller/manager.hpp"
#include "core/json/io.hpp"
#include "core/server/metrics.hpp"
#include "core/store/memory_store.hpp"
#include "test/support/reads.hpp"
#include "test/support/forwarding_store.hpp"

#include <set>

using namespace trainer::core;
using namespace trainer::core::controller;
using namespace std::chrono_literals;
using trainer::test::found;
using trainer::test::readOk;

namespace {

const std::string kExamples = std::string(TRAINER_SOURCE_DIR) + "/examples/";
const std::string kLocked = "store: sqlite step: database is locked";
const ObjectKey kTrainJob{"trainer.kubeflow.org/v1alpha1", "TrainJob", "default", "deepspeed-example"};
const ObjectKey kSecret{"v1", "Secret", "default", "deepspeed-example-mpi-ssh-auth"};
const ObjectKey kHostfile{"v1", "ConfigMap", "default", "deepspeed-example-mpi-hostfile"};
const ObjectKey kJobSet{"jobset.x-k8s.io/v1alpha2", "JobSet", "default", "deepspeed-example"};
const ObjectKey kSnapshot{"v1", "ConfigMap", "default", "deepspeed-example-runtime-snapshot"};
const ObjectKey kRuntime{"trainer.kubeflow.org/v1alpha1", "ClusterTrainingRuntime", "", "deepspeed-distributed"};

json::object readOne(const std::string& file) {
    std::vector<InputDocument> docs;
    auto d = readInputs({kExamples + file}, docs);
    BOOST_REQUIRE_MESSAGE(d.ok() && docs.size() == 1u, file);
    applyDefaults(docs[0].object);
    return docs[0].object;
}

// The DeepSpeed TrainJob (mpi policy) in namespace default, as `apply` would store it.
json::object trainJob() {
    auto tj = readOne("21-trainjob-deepspeed-mpi.yaml");
    tj["metadata"].as_object()["namespace"] = "default";
    return tj;
}

// Forwards to a MemoryStore. Point reads of the keys in `failing`, lists of the kinds in
// `failingKinds` and, with `failFeed`, the change feed and revisions answer Error. Every write
// that reaches it is counted, refused or not.
class FailingStore : public trainer::test::ForwardingStore {
public:
    explicit FailingStore(MemoryStore& s) : ForwardingStore(s), s_(s) {}

    ReadResult get(const ObjectKey& k) const override {
        if (failing.count(k)) return ReadResult::error(kLocked);
        return s_.get(k);
    }
    ListResult list(const std::string& a, const std::string& k, const std::optional<std::string>& ns) const override {
        if (failingKinds.count({a, k})) return ListResult::failure(kLocked);
        return s_.list(a, k, ns);
    }
    StoreResult create(const json::object& o) override { return ++writes, s_.create(o); }
    StoreResult update(const json::object& o) override { return ++writes, s_.update(o); }
    StoreResult updateStatus(const json::object& o) override { return ++writes, s_.updateStatus(o); }
    ApplyResult apply(const json::object& o, std::string_view m) override { return ++writes, s_.apply(o, m); }
    using Store::remove;
    StoreResult remove(const ObjectKey& k, const DeleteOptions& o) override { return ++writes, s_.remove(k, o); }
    ReadValue<std::vector<Change>> changesSince(int64_t r, size_t l) const override {
        if (failFeed) return ReadValue<std::vector<Change>>::failure(kLocked);
        return s_.changesSince(r, l);
    }
    ReadValue<int64_t> revision() const override {
        if (failFeed) return ReadValue<int64_t>::failure(kLocked);
        return s_.revision();
    }
    ReadValue<int64_t> compactedRevision() const override {
        if (failFeed) return ReadValue<int64_t>::failure(kLocked);
        return s_.compactedRevision();
    }

    std::set<ObjectKey> failing;
    std::set<std::pair<std::string, std::string>> failingKinds;
    bool failFeed = false;
    int writes = 0;

private:
    MemoryStore& s_;
};

// Every stored object as "<key> @<resourceVersion>", sorted: equal before and after means
// nothing was created, changed or deleted.
std::vector<std::string> versions(const MemoryStore& m) {
    std::vector<std::string> out;
    for (auto const& o : readOk(m.listAll()))
        out.push_back(keyOf(o).display() + " @" + std::string(o.at("metadata").at("resourceVersion").as_string()));
    return out;
}

struct Fixture {
    FakeClock clock;
    MemoryStore memory{StoreOptions{ResourceTable(), [this] { return clock.now(); }}};
    FailingStore store{memory};
    PluginRegistry registry;
    std::unique_ptr<Framework> framework;
    server::Registry metrics;
    std::unique_ptr<Manager> manager;
    log::Logger log{"test"};

    Fixture() {
        registry.loadDirectory(TRAINER_PLUGIN_BUILD_DIR);
        BOOST_REQUIRE_MESSAGE(registry.find("jobset") && registry.find("mpi"), "plugins not built");
        framework = std::make_unique<Framework>(registry);
        manager = std::make_unique<Manager>(store, registry, *framework, clock, &metrics, log);
    }
    // The DeepSpeed example built once with a healthy store: SSH Secret, hostfile, JobSet, snapshot.
    void buildHealthy() {
        BOOST_REQUIRE(memory.create(readOne("11-runtime-deepspeed-distributed.yaml")).ok());
        BOOST_REQUIRE(memory.create(trainJob()).ok());
        manager->settle();
        for (auto const& k : {kSecret, kHostfile, kJobSet, kSnapshot})
            BOOST_REQUIRE_MESSAGE(found(memory.get(k)), k.display() << " was not built");
        BOOST_REQUIRE(errors() == 0);
    }
    double errors() const { return metrics.value("controller_runtime_reconcile_errors_total", {"trainjob"}); }
    ReconcileResult reconcileOnce() {
        TrainJobReconciler r(store, registry, *framework, clock);
        return r.reconcile(kTrainJob, log);
    }
};

}  // namespace

BOOST_AUTO_TEST_SUITE(read_failures)

// Each read the build makes, failing alone: the reconcile writes nothing and says which read.
BOOST_AUTO_TEST_CASE(a_failed_read_anywhere_in_the_build_writes_nothing) {
    struct Case {
        const char* name;
        ObjectKey failing;
        const char* mentions;
    };
    const Case cases[] = {
        {"the TrainJob", kTrainJob, "TrainJob default/deepspeed-example"},
        {"the runtime snapshot", kSnapshot, "ConfigMap default/deepspeed-example-runtime-snapshot"},
        // Read by a plugin through the host API (lookup): an SSH key Secret "never regenerated".
        {"the SSH key Secret", kSecret, "Secret default/deepspeed-example-mpi-ssh-auth"},
        // "Running JobSets are never updated": read by a plugin's lookup too.
        {"the JobSet", kJobSet, "JobSet default/deepspeed-example"},
    };
    for (auto const& c : cases) {
        BOOST_TEST_CONTEXT(c.name) {
            Fixture f;
            f.buildHealthy();
            auto secretData = found(f.memory.get(kSecret))->at("data");
            auto before = versions(f.memory);
            f.store.failing = {c.failing};
            f.store.writes = 0;

            auto r = f.reconcileOnce();
            BOOST_TEST(!r.error.empty());
            BOOST_TEST(r.error.find(c.mentions) != std::string::npos, r.error);
            BOOST_TEST(r.error.find("database is locked") != std::string::npos, r.error);
            BOOST_TEST(f.store.writes == 0);
            BOOST_TEST(versions(f.memory) == before, boost::test_tools::per_element());

            // Through the controller: an error, retried with backoff, still nothing written.
            f.manager->relist();
            f.manager->settle();
            BOOST_TEST(f.errors() >= 1);
            BOOST_TEST(f.manager->trainJobs().queue().numRequeues(kTrainJob) >= 1);
            BOOST_TEST(f.manager->trainJobs().queue().delayed() == 1u);
            BOOST_TEST(f.store.writes == 0);
            BOOST_TEST(versions(f.memory) == before, boost::test_tools::per_element());

            // The store heals: the retry succeeds, and what existed is still what it was.
            f.store.failing.clear();
            f.clock.advance(10s);
            f.manager->settle();
            BOOST_TEST(f.manager->trainJobs().queue().numRequeues(kTrainJob) == 0);
            BOOST_TEST(found(f.memory.get(kSecret))->at("data") == secretData);
            BOOST_TEST(versions(f.memory) == before, boost::test_tools::per_element());
        }
    }
}

// The old failure mode in full: with the snapshot unreadable and the live runtime changed, a
// reconcile that took "unreadable" for "absent" would rebuild from the live runtime and rewrite
// the snapshot. It must do neither.
BOOST_AUTO_TEST_CASE(an_unreadable_snapshot_is_not_replaced_by_the_changed_live_runtime) {
    Fixture f;
    f.buildHealthy();
    auto runtime = *found(f.memory.get(kRuntime));
    runtime["spec"].as_object()["mlPolicy"].as_object()["numNodes"] = 7;
    BOOST_REQUIRE(f.memory.update(runtime).ok());
    auto before = versions(f.memory);
    f.store.failing = {kSnapshot};
    f.store.writes = 0;
    f.manager->relist();
    f.manager->settle();
    BOOST_TEST(f.errors() >= 1);
    BOOST_TEST(f.store.writes == 0);
    BOOST_TEST(versions(f.memory) == before, boost::test_tools::per_element());
    auto snapshot = found(f.memory.get(kSnapshot))->at("data").at("runtime").as_string();
    BOOST_TEST(std::string(snapshot).find("numNodes: 7") == std::string::npos, snapshot);
}

// A list the deadline path needs fails: the reconcile reports it and is retried, and the TrainJob
// is marked Failed only once its children could be listed and deleted.
BOOST_AUTO_TEST_CASE(a_failed_list_of_children_is_an_error_not_an_empty_list) {
    Fixture f;
    BOOST_REQUIRE(f.memory.create(readOne("11-runtime-deepspeed-distributed.yaml")).ok());
    auto tj = trainJob();
    tj["spec"].as_object()["activeDeadlineSeconds"] = 60;
    BOOST_REQUIRE(f.memory.create(tj).ok());
    f.manager->settle();
    BOOST_REQUIRE(found(f.memory.get(kJobSet)));
    f.store.failingKinds = {{kJobSet.apiVersion, kJobSet.kind}};
    f.clock.advance(61s);
    auto r = f.reconcileOnce();
    BOOST_TEST(r.error.find("database is locked") != std::string::npos, r.error);
    BOOST_TEST(found(f.memory.get(kJobSet)).has_value());
    auto current = *found(f.memory.get(kTrainJob));
    auto* st = current.if_contains("status");
    BOOST_TEST((!st || !findCondition(st->as_object(), "Failed")));
    f.store.failingKinds.clear();
    f.manager->relist();
    f.manager->settle();
    BOOST_TEST(!found(f.memory.get(kJobSet)).has_value());  // deleted once the list could be read
    auto status = found(f.memory.get(kTrainJob))->at("status").as_object();
    auto* failed = findCondition(status, "Failed");
    BOOST_REQUIRE(failed);
    BOOST_TEST(failed->at("reason") == "DeadlineExceeded");
}

// The watcher: a change feed that cannot be read is retried from where it was, so the TrainJob
// created meanwhile is still built once it can be read.
BOOST_AUTO_TEST_CASE(a_failing_change_feed_loses_no_change) {
    Fixture f;
    f.manager->settle();
    f.store.failFeed = true;
    BOOST_REQUIRE(f.memory.create(readOne("11-runtime-deepspeed-distributed.yaml")).ok());
    BOOST_REQUIRE(f.memory.create(trainJob()).ok());
    BOOST_TEST(f.manager->pollOnce() == 0u);
    BOOST_TEST(f.manager->trainJobs().drain() == 0u);
    BOOST_TEST(!found(f.memory.get(kJobSet)).has_value());
    f.store.failFeed = false;
    f.manager->settle();
    BOOST_TEST(found(f.memory.get(kJobSet)).has_value());
    BOOST_TEST(found(f.memory.get(kSecret)).has_value());
}

// Mapping a change needs a list of TrainJobs (a runtime changed): when it fails the change is
// kept and mapped again on the next poll, not dropped.
BOOST_AUTO_TEST_CASE(a_change_whose_mapping_fails_is_polled_again) {
    Fixture f;
    BOOST_REQUIRE(f.memory.create(trainJob()).ok());
    f.manager->settle();  // no runtime yet: Created=False, retried with backoff
    BOOST_REQUIRE(!found(f.memory.get(kJobSet)).has_value());
    f.store.failingKinds = {{kTrainJob.apiVersion, kTrainJob.kind}};
    BOOST_REQUIRE(f.memory.create(readOne("11-runtime-deepspeed-distributed.yaml")).ok());
    BOOST_TEST(f.manager->pollOnce() == 0u);  // the runtime's change could not be mapped
    f.store.failingKinds.clear();
    BOOST_TEST(f.manager->pollOnce() == 1u);  // the same change, mapped now
    BOOST_TEST(f.manager->trainJobs().drain() >= 1u);
    BOOST_TEST(found(f.memory.get(kJobSet)).has_value());
}

BOOST_AUTO_TEST_SUITE_END()
