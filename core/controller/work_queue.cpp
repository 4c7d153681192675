#include "core/controller/work_queue.hpp"

#include "core/server/metrics.hpp"

#include <algorithm>

namespace trainer::core::controller {

namespace {
double seconds(Clock::duration d) { return std::chrono::duration<double>(d).count(); }
}  // namespace

Clock::duration Backoff::delay(int failures) const {
    // 2^failures overflows long before the cap matters; stop doubling once past it.
    Clock::duration d = base;
    for (int i = 0; i < failures && d < max; ++i) d *= 2;
    return std::min(d, max);
}

WorkQueue::WorkQueue(std::string name, const Clock& clock, server::Registry* metrics, Backoff backoff)
    : name_(std::move(name)), clock_(clock), metrics_(metrics), backoff_(backoff) {
    if (metrics_) {
        metrics_->set("workqueue_depth", {name_}, 0);
        metrics_->add("workqueue_adds_total", {name_}, 0);
        metrics_->add("workqueue_retries_total", {name_}, 0);
    }
}

void WorkQueue::updateDepthLocked() {
    if (metrics_) metrics_->set("workqueue_depth", {name_}, static_cast<double>(queue_.size()));
}

void WorkQueue::addLocked(const ObjectKey& key) {
    if (shutdown_ || dirty_.count(key)) return;
    if (metrics_) metrics_->add("workqueue_adds_total", {name_});
    dirty_.insert(key);
    addedAt_.emplace(key, clock_.now());
    if (processing_.count(key)) return;
    queue_.push_back(key);
    updateDepthLocked();
    cv_.notify_one();
}

void WorkQueue::add(const ObjectKey& key) {
    std::lock_guard lk(mu_);
    addLocked(key);
}

void WorkQueue::addAfter(const ObjectKey& key, Clock::duration delay) {
    std::lock_guard lk(mu_);
    if (shutdown_) return;
    if (delay <= Clock::duration::zero()) return addLocked(key);
    auto at = clock_.now() + delay;
    auto [it, inserted] = waiting_.emplace(key, at);
    if (!inserted && at < it->second) it->second = at;
    cv_.notify_all();
}

void WorkQueue::addRateLimited(const ObjectKey& key) {
    Clock::duration d;
    {
        std::lock_guard lk(mu_);
        d = backoff_.delay(failures_[key]++);
    }
    if (metrics_) metrics_->add("workqueue_retries_total", {name_});
    addAfter(key, d);
}

void WorkQueue::forget(const ObjectKey& key) {
    std::lock_guard lk(mu_);
    failures_.erase(key);
}

int WorkQueue::numRequeues(const ObjectKey& key) const {
    std::lock_guard lk(mu_);
    auto it = failures_.find(key);
    return it == failures_.end() ? 0 : it->second;
}

void WorkQueue::promoteLocked() {
    auto now = clock_.now();
    for (auto it = waiting_.begin(); it != waiting_.end();) {
        if (it->second <= now) {
            ObjectKey k = it->first;
            it = waiting_.erase(it);
            addLocked(k);
        } else {
            ++it;
        }
    }
}

std::optional<ObjectKey> WorkQueue::popLocked() {
    if (queue_.empty()) return std::nullopt;
    ObjectKey k = std::move(queue_.front());
    queue_.pop_front();
    dirty_.erase(k);
    processing_.insert(k);
    auto now = clock_.now();
    if (auto it = addedAt_.find(k); it != addedAt_.end()) {
        if (metrics_) metrics_->observe("workqueue_queue_duration_seconds", {name_}, seconds(now - it->second));
        addedAt_.erase(it);
    }
    startedAt_[k] = now;
    updateDepthLocked();
    return k;
}

std::optional<ObjectKey> WorkQueue::get() {
    std::unique_lock lk(mu_);
    while (!shutdown_) {
        promoteLocked();
        if (auto k = popLocked()) return k;
        // Waits in real time, but never long: a fake clock may have been moved meanwhile.
        auto wait = std::chrono::milliseconds(100);
        if (!waiting_.empty()) {
            auto next = std::min_element(waiting_.begin(), waiting_.end(),
                                         [](auto const& a, auto const& b) { return a.second < b.second; })->second;
            auto until = std::chrono::duration_cast<std::chrono::milliseconds>(next - clock_.now());
            wait = std::clamp(until, std::chrono::milliseconds(1), wait);
        }
        cv_.wait_for(lk, wait);
    }
    return std::nullopt;
}

std::optional<ObjectKey> WorkQueue::tryGet() {
    std::lock_guard lk(mu_);
    if (shutdown_) return std::nullopt;
    promoteLocked();
    return popLocked();
}

void WorkQueue::done(const ObjectKey& key) {
    std::lock_guard lk(mu_);
    processing_.erase(key);
    if (auto it = startedAt_.find(key); it != startedAt_.end()) {
        if (metrics_) metrics_->observe("workqueue_work_duration_seconds", {name_}, seconds(clock_.now() - it->second));
        startedAt_.erase(it);
    }
    if (dirty_.count(key)) {
        queue_.push_back(key);
        updateDepthLocked();
        cv_.notify_one();
    }
}

void WorkQueue::shutDown() {
    std::lock_guard lk(mu_);
    shutdown_ = true;
    cv_.notify_all();
}

void WorkQueue::reopen() {
    std::lock_guard lk(mu_);
    shutdown_ = false;
}

bool WorkQueue::shuttingDown() const {
    std::lock_guard lk(mu_);
    return shutdown_;
}

size_t WorkQueue::len() const {
    std::lock_guard lk(mu_);
    return queue_.size();
}

size_t WorkQueue::delayed() const {
    std::lock_guard lk(mu_);
    return waiting_.size();
}

std::optional<Clock::time_point> WorkQueue::nextDelayed() const {
    std::lock_guard lk(mu_);
    std::optional<Clock::time_point> best;
    for (auto const& [k, t] : waiting_)
        if (!best || t < *best) best = t;
    return best;
}

}  // namespace trainer::core::controller
