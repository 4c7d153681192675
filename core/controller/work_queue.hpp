// A rate-limited work queue like client-go's: an item is queued at most once and never handed
// to two workers at a time; failed items come back after a per-item exponential backoff;
// AddAfter delays an item. Exposes workqueue_* metrics under the queue's name. Thread-safe.
#pragma once

#include "core/api/object_set.hpp"
#include "core/controller/clock.hpp"

#include <condition_variable>
#include <deque>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string>

namespace trainer::core::server {
class Registry;
}

namespace trainer::core::controller {

// Per-item exponential backoff: base * 2^failures, capped (controller-runtime: 5 ms → 1000 s).
struct Backoff {
    Clock::duration base = std::chrono::milliseconds(5);
    Clock::duration max = std::chrono::seconds(1000);
    // The delay after `failures` earlier failures.
    Clock::duration delay(int failures) const;
};

class WorkQueue {
public:
    WorkQueue(std::string name, const Clock& clock, server::Registry* metrics = nullptr, Backoff backoff = {});

    // Queues `key` unless it is already waiting (dedup); an item being processed is queued again
    // when its worker calls done().
    void add(const ObjectKey& key);
    // Queues `key` once `delay` has passed on the clock (the earliest pending time wins).
    void addAfter(const ObjectKey& key, Clock::duration delay);
    // Queues `key` after its backoff and counts a failure (workqueue_retries_total).
    void addRateLimited(const ObjectKey& key);
    // Resets `key`'s failure count.
    void forget(const ObjectKey& key);
    int numRequeues(const ObjectKey& key) const;

    // The next ready item, waiting for one; nullopt once shut down.
    std::optional<ObjectKey> get();
    // The next ready item without waiting (delayed items whose time has come are promoted first).
    std::optional<ObjectKey> tryGet();
    // Marks `key` processed (must follow every get/tryGet that returned it).
    void done(const ObjectKey& key);
    // Wakes waiting workers; get() then returns nullopt and add() is ignored, until reopen().
    void shutDown();
    bool shuttingDown() const;
    // Takes items again after a shutDown() (a controller started again; what was queued before
    // is still queued, what was added meanwhile was dropped: the caller re-lists).
    void reopen();

    // Items ready to be handed out.
    size_t len() const;
    // Items waiting for their delay.
    size_t delayed() const;
    // When the earliest delayed item becomes ready.
    std::optional<Clock::time_point> nextDelayed() const;
    const std::string& name() const { return name_; }

private:
    void addLocked(const ObjectKey& key);
    void promoteLocked();
    std::optional<ObjectKey> popLocked();
    void updateDepthLocked();

    std::string name_;
    const Clock& clock_;
    server::Registry* metrics_;
    Backoff backoff_;
    mutable std::mutex mu_;
    std::condition_variable cv_;
    std::deque<ObjectKey> queue_;
    std::set<ObjectKey> dirty_;
    std::set<ObjectKey> processing_;
    std::map<ObjectKey, Clock::time_point> waiting_;      // key -> ready time
    std::map<ObjectKey, Clock::time_point> addedAt_;      // for queue_duration
    std::map<ObjectKey, Clock::time_point> startedAt_;    // for work_duration
    std::map<ObjectKey, int> failures_;
    bool shutdown_ = false;
};

}  // namespace trainer::core::controller
