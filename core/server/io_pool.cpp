#include "core/server/io_pool.hpp"

#include <boost/asio/post.hpp>

#include <algorithm>

namespace trainer::core::server {

namespace {

std::int64_t nowNanos() {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

}  // namespace

thread_local IoPool::ThisThread IoPool::tThis_;

IoPool::IoPool(std::size_t threads) : IoPool(threads, Guard{}) {}

IoPool::IoPool(std::size_t threads, Guard guard) : guard_(guard) {
    threads = std::max<std::size_t>(threads, 1);
    for (std::size_t i = 0; i < threads; ++i) contexts_.push_back(std::make_unique<Context>());
    {
        std::lock_guard lock(mu_);
        for (auto& c : contexts_) startRunner(*c);
    }
    watchdog_ = std::thread([this] { watch(); });
}

IoPool::~IoPool() {
    stop();
    join();
}

boost::asio::io_context& IoPool::next() { return contexts_[turn_.fetch_add(1) % contexts_.size()]->io; }

void IoPool::startRunner(Context& c) {
    Runner& r = runners_.emplace_back(c);
    c.current = &r;
    r.thread = std::thread([this, &r] { loop(r); });
}

// Runs the context one handler at a time until a stand-in took over (or the context stopped).
void IoPool::loop(Runner& r) {
    tThis_ = {this, &r};
    while (r.since.load() != kReplaced && r.context->io.run_one() != 0) {
    }
    // What the call's handler posted on its way out (the connection going on) went to this
    // thread's private queue and, as the handler returned, to the context's queue without waking
    // the stand-in (boost/asio/detail/impl/scheduler.ipp, work_cleanup): wake it, from outside.
    if (r.since.load() == kReplaced) boost::asio::post(r.context->io, [] {});
    r.finished.store(true);
}

IoPool::Call IoPool::begin() {
    if (tThis_.pool != this) return {};
    Runner* r = tThis_.runner;
    const std::int64_t now = nowNanos();
    r->since.store(now);
    if (idle_.load()) {
        std::lock_guard lock(mu_);
        cv_.notify_one();
    }
    return Call(r, now);
}

// The call's end and a stand-in's start exclude each other: whichever moves `since` from the
// call's start first decides.
IoPool::Ended IoPool::end(Call call) {
    if (!call.runner_) return Ended::Here;
    std::int64_t started = call.started_;
    return call.runner_->since.compare_exchange_strong(started, 0) ? Ended::Here : Ended::Replaced;
}

std::size_t IoPool::threads() const {
    std::lock_guard lock(mu_);
    return static_cast<std::size_t>(
        std::count_if(runners_.begin(), runners_.end(), [](const Runner& r) { return !r.finished.load(); }));
}

bool IoPool::anyInCall() const {
    return std::any_of(contexts_.begin(), contexts_.end(), [](const auto& c) { return c->current->since.load() > 0; });
}

// Each context whose thread has been in one call for standInAfter gets a new thread, while
// fewer than maxStandIns threads are so left.
void IoPool::standIn(std::int64_t now) {
    const auto after = std::chrono::nanoseconds(guard_.standInAfter).count();
    for (auto& c : contexts_) {
        std::int64_t since = c->current->since.load();
        if (since <= 0 || now - since < after) continue;
        if (runners_.size() >= contexts_.size() + guard_.maxStandIns) return;
        if (c->current->since.compare_exchange_strong(since, kReplaced)) startRunner(*c);
    }
}

// Joins the threads that left (their calls returned after a stand-in took over).
void IoPool::reap() {
    for (auto it = runners_.begin(); it != runners_.end();) {
        if (it->finished.load() && it->since.load() == kReplaced) {
            it->thread.join();
            it = runners_.erase(it);
        } else {
            ++it;
        }
    }
}

// Looks every half standInAfter while a call runs; sleeps while none does.
void IoPool::watch() {
    std::unique_lock lock(mu_);
    while (!stopping_) {
        reap();
        if (!anyInCall()) {
            idle_.store(true);
            cv_.wait(lock, [&] { return stopping_ || anyInCall(); });
            idle_.store(false);
            continue;
        }
        cv_.wait_for(lock, guard_.standInAfter / 2);
        if (!stopping_) standIn(nowNanos());
    }
}

void IoPool::release() {
    for (auto& c : contexts_) c->work.reset();
}

void IoPool::stop() {
    for (auto& c : contexts_) c->io.stop();
}

void IoPool::join() {
    {
        std::lock_guard lock(mu_);
        if (stopping_) return;
        stopping_ = true;
    }
    cv_.notify_all();
    if (watchdog_.joinable()) watchdog_.join();
    for (auto& r : runners_)
        if (r.thread.joinable()) r.thread.join();
}

std::size_t IoPool::defaultThreads() { return std::clamp<std::size_t>(std::thread::hardware_concurrency() / 2, 1, 4); }

}  // namespace trainer::core::server
