// A polling loop's wait (poll_waiter.hpp).
#include "core/store/poll_waiter.hpp"

#include <algorithm>

namespace trainer::core {

PollWaiter::PollWaiter(const Store& store, std::chrono::milliseconds minGap)
    : minGap_(minGap), commits_(store.onCommit([this] { wake(); })) {}

void PollWaiter::wake() {
    {
        std::lock_guard lock(mu_);
        changed_ = true;
    }
    cv_.notify_all();
}

bool PollWaiter::wait(std::chrono::milliseconds interval) {
    std::unique_lock lock(mu_);
    const auto deadline = std::chrono::steady_clock::now() + interval;
    const auto earliest = std::min(deadline, lastReturn_ + minGap_);  // a commit ends the wait from here
    cv_.wait_until(lock, earliest, [this] { return stopping_; });
    cv_.wait_until(lock, deadline, [this] { return stopping_ || changed_; });
    changed_ = false;
    lastReturn_ = std::chrono::steady_clock::now();
    return !stopping_;
}

bool PollWaiter::stopped() const {
    std::lock_guard lock(mu_);
    return stopping_;
}

void PollWaiter::stop() {
    {
        std::lock_guard lock(mu_);
        stopping_ = true;
    }
    cv_.notify_all();
}

void PollWaiter::restart() {
    std::lock_guard lock(mu_);
    stopping_ = false;
}

}  // namespace trainer::core
