// The controllers of one operator process and the watcher feeding them: it polls the store's
// change feed (re-listing when it fell behind compaction) and maps each change to the
// TrainJobs to reconcile: the TrainJob itself, the TrainJob in a controller ownerReference,
// the TrainJobs using a changed runtime, and the plugins' declared watches (rule 13), except the
// TrainJob whose own reconcile wrote the changed child and read it back (own_writes.hpp).
#pragma once

#include "core/controller/clock.hpp"
#include "core/controller/controller.hpp"
#include "core/controller/own_writes.hpp"
#include "core/controller/trainjob_reconciler.hpp"
#include "core/log/log.hpp"
#include "core/plugin/framework.hpp"
#include "core/plugin/registry.hpp"
#include "core/store/poll_waiter.hpp"
#include "core/store/store.hpp"

#include <atomic>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace trainer::core::controller {

// Maps one change to the TrainJobs it concerns (keys of TrainJob objects, deduplicated).
class ChangeMapper {
public:
    explicit ChangeMapper(const PluginRegistry& registry);
    // The TrainJobs `change` concerns, or an error when a read it needed failed (the caller
    // retries the change rather than drop the TrainJobs it could not find).
    ReadValue<std::vector<ObjectKey>> trainJobsFor(const Change& change, const ClusterReader& cluster) const;

private:
    std::vector<WatchSpec> watches_;
};

// The key of the TrainJob `ns/name`.
ObjectKey trainJobKey(std::string ns, std::string name);

struct ManagerOptions {
    int trainJobWorkers = 1;   // TrainJob.trainer.kubeflow.org concurrency
    int runtimeWorkers = 1;
    std::chrono::milliseconds pollInterval{100};
    size_t batch = 1000;       // changes read per poll
};

class Manager {
public:
    Manager(Store& store, const PluginRegistry& registry, const Framework& framework, const Clock& clock,
            server::Registry* metrics, log::Logger logger, ManagerOptions options = {});
    ~Manager();

    // Lists everything once (every TrainJob and runtime is queued), then starts the watcher
    // thread and the workers.
    void start();
    // Stops the watcher, then the controllers (in-flight reconciles finish).
    void stop();
    // The poison-pill record the TrainJob reconciles write and act on (null: off); before start().
    void setInFlightSlots(InFlightSlots* slots) { trainJobReconciler_.useInFlightSlots(slots, logger_); }
    // One synchronous watch step: reads new changes (or re-lists) and queues keys; returns how
    // many changes it handled. A failed read is logged and the step retried on the next poll
    // from where it stopped (a change is passed only once it was mapped); nothing is dropped.
    size_t pollOnce();
    // Queues every TrainJob and runtime in the store (start-up and after compaction); false
    // (logged) when a list failed, and then what was listed is queued and the rest is not.
    bool relist();
    // Tests: poll and reconcile everything ready until nothing changes any more.
    void settle(int rounds = 50);
    bool started() const { return running_.load(); }

    Controller& trainJobs() { return *trainJobs_; }
    Controller& trainingRuntimes() { return *trainingRuntimes_; }
    Controller& clusterTrainingRuntimes() { return *clusterTrainingRuntimes_; }

private:
    // Queues the keys of `change`; false (logged) when mapping it failed on a read.
    bool enqueue(const Change& change);
    // Under pollMu_: the feed position from the store's revision, then relist(); on a failed
    // read `resync_` stays set and the next poll tries again.
    void resync();
    void watchLoop();

    Store& store_;
    const Clock& clock_;
    log::Logger logger_;
    ManagerOptions options_;
    ChangeMapper mapper_;
    OwnWrites ownWrites_;  // before the reconciler that records into it
    TrainJobReconciler trainJobReconciler_;
    RuntimeReconciler runtimeReconciler_;
    std::unique_ptr<Controller> trainJobs_;
    std::unique_ptr<Controller> trainingRuntimes_;
    std::unique_ptr<Controller> clusterTrainingRuntimes_;
    int64_t seen_ = 0;
    bool resync_ = false;  // a re-list is owed (start-up or compaction) and has not succeeded yet
    std::mutex pollMu_;
    std::atomic<bool> running_{false};
    PollWaiter waiter_;  // between the watcher's polls
    std::thread watcher_;
};

}  // namespace trainer::core::controller
