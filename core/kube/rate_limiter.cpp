#include "core/kube/rate_limiter.hpp"

#include <algorithm>

namespace trainer::core::kube {

TokenBucket::TokenBucket(double qps, int burst, Clock::time_point now)
    : qps_(qps), burst_(std::max(burst, 1)), tokens_(burst_), last_(now) {}

TokenBucket::Clock::duration TokenBucket::reserve(Clock::time_point now) {
    if (qps_ <= 0) return Clock::duration::zero();
    std::lock_guard lock(mu_);
    if (now > last_) {
        tokens_ = std::min(burst_, tokens_ + std::chrono::duration<double>(now - last_).count() * qps_);
        last_ = now;
    }
    tokens_ -= 1;
    if (tokens_ >= 0) return Clock::duration::zero();
    return std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(-tokens_ / qps_));
}

void TokenBucket::wait(Waits& waits) {
    auto d = reserve(waits.now());
    if (d > Clock::duration::zero()) waits.sleepFor(d);
}

}  // namespace trainer::core::kube
