// Restart backoff and the circuit breaker of one process-isolated plugin. Pure state driven by
// the times it is given (tests pass their own), no clock of its own.
// A failed call (crash, timeout, limit, protocol violation) kills the child; the next call may
// start a new one only after a backoff doubling from `initialBackoff` to `maxBackoff`. After
// `openAfter` consecutive failures the circuit opens: calls fail at once, naming the last failure,
// for `openFor`; then one trial call is let through (half-open): success closes the circuit,
// failure opens it again.
#pragma once

#include <chrono>
#include <string>

namespace trainer::core::isolation {

struct BreakerSettings {
    std::chrono::milliseconds initialBackoff{500};
    std::chrono::milliseconds maxBackoff{30'000};
    int openAfter = 5;
    std::chrono::milliseconds openFor{120'000};
};

class Breaker {
public:
    using TimePoint = std::chrono::steady_clock::time_point;
    enum class Verdict { Allow, Backoff, Open };

    explicit Breaker(BreakerSettings s = {}) : s_(s) {}
    // May a call (and, when the child is gone, a restart) go ahead at `now`?
    Verdict admit(TimePoint now);
    void recordSuccess();
    void recordFailure(TimePoint now, std::string why);

    bool isOpen(TimePoint now) const { return failures_ >= s_.openAfter && now < until_; }
    int consecutiveFailures() const { return failures_; }
    // Has the circuit opened since the last success (open now, or its trial is due)?
    bool tripped() const { return failures_ >= s_.openAfter; }
    const std::string& lastFailure() const { return last_; }
    // When the current backoff or open period ends.
    TimePoint until() const { return until_; }

private:
    BreakerSettings s_;
    int failures_ = 0;
    TimePoint until_{};
    std::string last_;
};

}  // namespace trainer::core::isolation
