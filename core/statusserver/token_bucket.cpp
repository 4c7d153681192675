#include "core/statusserver/token_bucket.hpp"

#include <algorithm>
#include <cmath>

namespace trainer::core::statusserver {

TokenBucket::TokenBucket(double qps, int64_t burst, const controller::Clock& clock)
    : qps_(qps == 0 ? 5.0 : qps),
      burst_(static_cast<double>(std::max<int64_t>(burst == 0 ? 10 : burst, 1))),
      clock_(clock),
      tokens_(burst_),
      last_(clock.now()) {}

TokenBucket::Decision TokenBucket::take() {
    if (qps_ < 0) return {};
    std::lock_guard lock(mutex_);
    auto now = clock_.now();
    // A clock that went back refills nothing (and restarts the refill from `now`).
    double elapsed = std::max(0.0, std::chrono::duration<double>(now - last_).count());
    last_ = now;
    tokens_ = std::min(burst_, tokens_ + elapsed * qps_);
    if (tokens_ >= 1.0 - 1e-9) {  // tolerate rounding in elapsed * qps
        tokens_ = std::max(0.0, tokens_ - 1.0);
        return {};
    }
    double wait = (1.0 - tokens_) / qps_;
    auto seconds = static_cast<int64_t>(std::ceil(wait));
    return {false, std::chrono::seconds(std::max<int64_t>(seconds, 1))};
}

}  // namespace trainer::core::statusserver
