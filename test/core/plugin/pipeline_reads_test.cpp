// What one reconcile's build (buildTrainJob, core/plugin/pipeline.cpp) reads of the cluster: the
// runtime snapshot ConfigMap once, though both the runtime's resolution and the decision to write
// the snapshot need it, and a snapshot that cannot be read is an error, never "absent". Part of
// test_core_plugin.
#include <boost/test/unit_test.hpp>

#include "core/plugin/pipeline.hpp"

#include <map>
#include <mutex>
#include <set>

using namespace trainer::core;
namespace json = boost::json;

namespace {

// Answers from an ObjectSet and counts the reads of each key; a key in `failing` fails.
class CountingReader : public ClusterReader {
public:
    ObjectSet objects;
    std::set<ObjectKey> failing;

    ReadResult get(const ObjectKey& key) const override {
        {
            std::lock_guard lock(mu_);
            ++reads_[key];
        }
        return failing.count(key) ? ReadResult::error("database is locked") : objects.get(key);
    }
    ListResult list(const std::string& apiVersion, const std::string& kind,
                    const std::optional<std::string>& ns) const override {
        return objects.list(apiVersion, kind, ns);
    }
    int reads(const ObjectKey& key) const {
        std::lock_guard lock(mu_);
        auto it = reads_.find(key);
        return it == reads_.end() ? 0 : it->second;
    }

private:
    mutable std::mutex mu_;
    mutable std::map<ObjectKey, int> reads_;
};

json::object runtime() {
    return json::parse(R"({"apiVersion":"trainer.kubeflow.org/v1alpha1","kind":"ClusterTrainingRuntime",
        "metadata":{"name":"plain"},
        "spec":{"template":{"spec":{"replicatedJobs":[{"name":"node",
            "template":{"metadata":{"labels":{"trainer.kubeflow.org/trainjob-ancestor-step":"trainer"}},
            "spec":{"template":{"spec":{"containers":[{"name":"node","image":"busybox"}]}}}}}]}}}})")
        .as_object();
}

json::object trainJob() {
    return json::parse(R"({"apiVersion":"trainer.kubeflow.org/v1alpha1","kind":"TrainJob",
        "metadata":{"name":"job","namespace":"default","uid":"u-1"},
        "spec":{"runtimeRef":{"name":"plain","apiGroup":"trainer.kubeflow.org","kind":"ClusterTrainingRuntime"}}})")
        .as_object();
}

const ObjectKey kSnapshot{"v1", "ConfigMap", "default", "job-runtime-snapshot"};
const ObjectKey kRuntime{"trainer.kubeflow.org/v1alpha1", "ClusterTrainingRuntime", "", "plain"};

}  // namespace

BOOST_AUTO_TEST_SUITE(pipeline_reads)

BOOST_AUTO_TEST_CASE(the_snapshot_is_read_once_per_build) {
    PluginRegistry registry;  // no plugins: the build is the host's part alone
    Framework fw(registry);
    CountingReader cluster;
    cluster.objects.put(runtime());
    auto first = buildTrainJob(fw, trainJob(), cluster);
    BOOST_TEST(first.diagnostics.ok());
    BOOST_TEST(first.runtimeResolved);
    BOOST_TEST(first.snapshot.has_value());  // known absent: written
    BOOST_TEST(cluster.reads(kSnapshot) == 1);
    BOOST_TEST(cluster.reads(kRuntime) == 1);

    // With the snapshot stored, the build resolves from it and writes none.
    cluster.objects.put(*first.snapshot);
    auto second = buildTrainJob(fw, trainJob(), cluster);
    BOOST_TEST(second.diagnostics.ok());
    BOOST_TEST(!second.snapshot.has_value());
    BOOST_TEST(cluster.reads(kSnapshot) == 2);
}

BOOST_AUTO_TEST_CASE(a_snapshot_that_cannot_be_read_is_an_error_not_absence) {
    PluginRegistry registry;
    Framework fw(registry);
    CountingReader cluster;
    cluster.objects.put(runtime());
    cluster.failing.insert(kSnapshot);
    auto r = buildTrainJob(fw, trainJob(), cluster);
    BOOST_TEST(!r.diagnostics.ok());
    BOOST_TEST(!r.snapshot.has_value());
    BOOST_TEST(r.objects.empty());
}

BOOST_AUTO_TEST_SUITE_END()
