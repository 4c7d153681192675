// Client-side rate limiting: a token bucket (qps, burst) as client-go's flowcontrol
// NewTokenBucketRateLimiter; callers wait for a token instead of failing.
#pragma once

#include "core/kube/waits.hpp"

#include <chrono>
#include <mutex>

namespace trainer::core::kube {

class TokenBucket {
public:
    using Clock = Waits::Clock;

    // Starts full (`burst` tokens, at least 1), refilled at `qps` per second. qps <= 0: unlimited.
    TokenBucket(double qps, int burst, Clock::time_point now = Clock::now());

    // Takes one token at `now` and returns how long the caller must wait before going ahead
    // (zero when a token was available). Tokens are reserved, so concurrent callers queue in
    // order: the n-th caller beyond the burst waits n / qps.
    Clock::duration reserve(Clock::time_point now);

    // reserve(waits.now()) and waits the answer (none when a token was available).
    void wait(Waits& waits);

private:
    std::mutex mu_;
    double qps_;
    double burst_;
    double tokens_;
    Clock::time_point last_;
};

}  // namespace trainer::core::kube
