// The watcher and the two controllers of the local executor's workloads: it polls the store's
// change feed (re-listing when it fell behind compaction) and queues a JobSet change as that
// JobSet, a Job change as that Job and its controlling JobSet, a Pod change as its controlling
// Job; Services are ignored. Controller names follow controller-runtime (the lower-case kind).
#pragma once

#include "core/controller/clock.hpp"
#include "core/controller/controller.hpp"
#include "core/log/log.hpp"
#include "core/store/poll_waiter.hpp"
#include "core/store/store.hpp"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <thread>

namespace trainer::core::executor {

struct WorkloadManagerOptions {
    std::chrono::milliseconds pollInterval{20};
    size_t batch = 1000;  // changes read per poll
    int workers = 1;      // per controller
};

class WorkloadManager {
public:
    WorkloadManager(Store& store, const controller::Clock& clock, server::Registry* metrics, log::Logger logger,
                    WorkloadManagerOptions options = {});
    ~WorkloadManager();
    WorkloadManager(const WorkloadManager&) = delete;
    WorkloadManager& operator=(const WorkloadManager&) = delete;

    // Queues every JobSet and Job, then starts the watcher thread and the workers.
    void start();
    // Stops the watcher, then the controllers (in-flight reconciles finish).
    void stop();
    // One synchronous watch step: reads new changes (or re-lists) and queues keys; returns how
    // many changes it read. A failed read is logged and retried on the next poll.
    size_t pollOnce();
    // Queues every JobSet and Job in the store; false (logged) when a list failed.
    bool relist();
    // Tests: poll and reconcile everything ready until nothing changes any more.
    void settle(int rounds = 50);

    controller::Controller& jobSets() { return *jobSets_; }
    controller::Controller& jobs() { return *jobs_; }

private:
    void enqueue(const Change& change);
    // Under pollMu_: the feed position from the store's revision, then relist(); `resync_`
    // stays set until both reads succeed.
    void resync();
    void watchLoop();

    Store& store_;
    log::Logger logger_;
    WorkloadManagerOptions options_;
    std::unique_ptr<controller::Controller> jobSets_;
    std::unique_ptr<controller::Controller> jobs_;
    int64_t seen_ = 0;
    bool resync_ = false;
    std::mutex pollMu_;
    std::atomic<bool> running_{false};
    PollWaiter waiter_;  // between the watcher's polls
    std::thread watcher_;
};

}  // namespace trainer::core::executor
