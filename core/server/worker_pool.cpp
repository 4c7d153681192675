#include "core/server/worker_pool.hpp"

#include <algorithm>

namespace trainer::core::server {

namespace {

std::int64_t nowNanos() {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

}  // namespace

thread_local WorkerPool::ThreadSlot WorkerPool::tThread_;

WorkerPool::WorkerPool(std::size_t start, std::size_t max, std::chrono::milliseconds stuckAfter)
    : pool_(std::max<std::size_t>(1, std::min(start, max))), max_(std::max<std::size_t>(1, max)), stuckAfter_(stuckAfter),
      threads_(std::max<std::size_t>(1, std::min(start, max))) {
    if (threads_ < max_) watchdog_ = std::thread([this] { watch(); });
}

WorkerPool::~WorkerPool() {
    {
        std::lock_guard lock(mu_);
        stopping_ = true;
    }
    cv_.notify_all();
    if (watchdog_.joinable()) watchdog_.join();
    pool_.stop();
    pool_.join();
    for (auto& t : added_) t.join();  // attach() returns once the pool is stopped
}

void WorkerPool::submitted() {
    waiting_.fetch_add(1);
    if (idle_.load()) {
        std::lock_guard lock(mu_);
        cv_.notify_one();
    }
}

void WorkerPool::enter() {
    if (tThread_.pool != this) {
        std::lock_guard lock(mu_);
        tThread_ = {this, &slots_.emplace_back()};
    }
    tThread_.slot->since.store(nowNanos());
    waiting_.fetch_sub(1);
}

void WorkerPool::leave() { tThread_.slot->since.store(0); }

std::size_t WorkerPool::threads() const {
    std::lock_guard lock(mu_);
    return threads_;
}

// Every thread is inside a call that began more than stuckAfter_ ago (a thread that never
// entered one has no slot yet, so fewer busy slots than threads means one is free).
bool WorkerPool::everyThreadStuck(std::int64_t now) const {
    std::size_t stuck = 0;
    for (auto const& s : slots_) {
        const std::int64_t since = s.since.load();
        if (since != 0 && now - since >= std::chrono::nanoseconds(stuckAfter_).count()) ++stuck;
    }
    return stuck >= threads_;
}

// Looks every half stuckAfter_ while calls are running or waiting; sleeps while none are.
void WorkerPool::watch() {
    std::unique_lock lock(mu_);
    while (!stopping_ && threads_ < max_) {
        const bool busy = waiting_.load() > 0 ||
                          std::any_of(slots_.begin(), slots_.end(), [](const Slot& s) { return s.since.load() != 0; });
        if (!busy) {
            idle_.store(true);
            cv_.wait(lock, [&] { return stopping_ || waiting_.load() > 0; });
            idle_.store(false);
            continue;
        }
        cv_.wait_for(lock, stuckAfter_ / 2);
        if (!stopping_ && waiting_.load() > 0 && everyThreadStuck(nowNanos())) {
            ++threads_;
            added_.emplace_back([this] { pool_.attach(); });
        }
    }
}

}  // namespace trainer::core::server
