// The write budget of the status server: upstream gives the server its own Kubernetes client with
// `statusServer.qps` / `statusServer.burst` (client-go's token bucket,
// https://github.com/kubeflow/trainer/blob/master/pkg/statusserver/setup.go createClient). The
// bucket holds `burst` tokens, starts full and refills at `qps` per second of the Clock.
#pragma once

#include "core/controller/clock.hpp"

#include <chrono>
#include <cstdint>
#include <mutex>

namespace trainer::core::statusserver {

class TokenBucket {
public:
    // client-go's rules: qps 0 → 5, burst 0 → 10 (rest.Config defaults), qps < 0 → unlimited.
    // A burst below 1 is taken as 1. `clock` must outlive the bucket.
    TokenBucket(double qps, int64_t burst, const controller::Clock& clock);

    struct Decision {
        bool allowed = true;
        // When refused: how long until a token is available (at least 1 s, whole seconds), for
        // Retry-After.
        std::chrono::seconds retryAfter{0};
    };
    // Takes one token if one is available now; never waits. Thread-safe.
    Decision take();

private:
    double qps_;
    double burst_;
    const controller::Clock& clock_;
    std::mutex mutex_;
    double tokens_;
    controller::Clock::time_point last_;
};

}  // namespace trainer::core::statusserver
