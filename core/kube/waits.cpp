#include "core/kube/waits.hpp"

#include <thread>

namespace trainer::core::kube {

Waits::Clock::time_point RealWaits::now() const { return Clock::now(); }

void RealWaits::sleepFor(Clock::duration d) {
    if (d > Clock::duration::zero()) std::this_thread::sleep_for(d);
}

Waits& realWaits() {
    static RealWaits waits;
    return waits;
}

Waits::Clock::time_point FakeWaits::now() const {
    std::lock_guard lock(mu_);
    return now_;
}

void FakeWaits::sleepFor(Clock::duration d) {
    std::lock_guard lock(mu_);
    waits_.push_back(d);
    if (d > Clock::duration::zero()) now_ += d;
}

std::vector<Waits::Clock::duration> FakeWaits::waits() const {
    std::lock_guard lock(mu_);
    return waits_;
}

}  // namespace trainer::core::kube
