// The threads of a server's offload routes (handlers that run plugin code, core/server/http.hpp).
// The pool starts with `start` threads and adds one, up to `max`, each time every thread has been
// inside one call for longer than `stuckAfter` while another call waits: a hung hook costs a
// thread, never the server. Until then it stays at `start` (the webhooks: one per CPU), where
// busy threads take the next call themselves instead of waking idle ones (issue 14 P5).
#pragma once

#include <boost/asio/thread_pool.hpp>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <mutex>
#include <thread>
#include <vector>

namespace trainer::core::server {

class WorkerPool {
public:
    WorkerPool(std::size_t start, std::size_t max, std::chrono::milliseconds stuckAfter);
    ~WorkerPool();  // stops the pool and joins every thread
    WorkerPool(const WorkerPool&) = delete;
    WorkerPool& operator=(const WorkerPool&) = delete;

    boost::asio::thread_pool::executor_type executor() { return pool_.get_executor(); }

    // A call was handed to the pool (it waits until a thread enters it).
    void submitted();
    // On the pool thread, around the call.
    void enter();
    void leave();

    std::size_t threads() const;

private:
    // What a thread is doing: 0 idle, else the steady clock's nanoseconds when its call began.
    struct Slot {
        std::atomic<std::int64_t> since{0};
    };
    // The calling pool thread's slot (a thread serves one pool: the one in `pool`).
    struct ThreadSlot {
        const WorkerPool* pool = nullptr;
        Slot* slot = nullptr;
    };
    static thread_local ThreadSlot tThread_;
    void watch();
    bool everyThreadStuck(std::int64_t now) const;  // under mu_

    boost::asio::thread_pool pool_;
    const std::size_t max_;
    const std::chrono::milliseconds stuckAfter_;
    mutable std::mutex mu_;
    std::condition_variable cv_;
    std::deque<Slot> slots_;  // one per thread that has entered a call; addresses stay put
    std::size_t threads_;
    std::atomic<std::size_t> waiting_{0};
    std::atomic<bool> idle_{false};  // the watchdog sleeps until a call is submitted
    bool stopping_ = false;
    std::vector<std::thread> added_;  // threads attached to the pool when it grew
    std::thread watchdog_;
};

}  // namespace trainer::core::server
