// Where a loop that polls the store's change feed waits between polls: until its interval has
// passed, until this process commits a write to the store (Store::onCommit), or until stop(). A
// commit made while the loop was polling ends the next wait at once, so no write is left for a
// whole interval. The controller, the workload controllers and the kubelet wait here: a TrainJob
// created in the embedded store reaches its pods' processes without a poll interval at each step.
// Under a stream of commits (the controller's own writes wake it too), a commit wakes the loop no
// sooner than `minGap` after the previous wait ended, so the feed is read in batches rather than
// once per commit; a commit after a quiet spell is polled at once.
#pragma once

#include "core/store/store.hpp"

#include <chrono>
#include <condition_variable>
#include <mutex>

namespace trainer::core {

class PollWaiter {
public:
    explicit PollWaiter(const Store& store, std::chrono::milliseconds minGap = std::chrono::milliseconds(2));
    PollWaiter(const PollWaiter&) = delete;
    PollWaiter& operator=(const PollWaiter&) = delete;

    // Waits as above; false when stopped (at once if stop() came first).
    bool wait(std::chrono::milliseconds interval);
    bool stopped() const;
    // Ends the current wait (or the next) as this process's commit does: for what else a loop
    // waits on, such as a watched file's writes (core/executor/file_watch.hpp). Any thread.
    void wake();
    // Ends the current and every later wait, until restart().
    void stop();
    void restart();

private:
    mutable std::mutex mu_;
    std::condition_variable cv_;
    bool stopping_ = false;
    bool changed_ = false;        // a commit since the last wait returned
    const std::chrono::milliseconds minGap_;
    std::chrono::steady_clock::time_point lastReturn_{};
    ChangeSubscription commits_;  // last: unsubscribed before the members wake() touches go
};

}  // namespace trainer::core
