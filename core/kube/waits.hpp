// The kube client's time seam: the steady clock it reads and how it waits (for a rate-limiter
// token, between retries). RealWaits sleeps; tests pass a FakeWaits, which records each wait and
// moves its own clock by it instead of sleeping, so what the client waits is asserted exactly.
#pragma once

#include <chrono>
#include <mutex>
#include <vector>

namespace trainer::core::kube {

class Waits {
public:
    using Clock = std::chrono::steady_clock;
    virtual ~Waits() = default;
    virtual Clock::time_point now() const = 0;
    virtual void sleepFor(Clock::duration d) = 0;
};

// std::chrono::steady_clock and std::this_thread::sleep_for.
class RealWaits : public Waits {
public:
    Clock::time_point now() const override;
    void sleepFor(Clock::duration d) override;
};

// The process's real waits: what a Client uses unless it is given others.
Waits& realWaits();

// A clock that moves only by the waits asked of it, which it records. Thread-safe.
class FakeWaits : public Waits {
public:
    Clock::time_point now() const override;
    void sleepFor(Clock::duration d) override;
    // Every wait asked for so far, in order.
    std::vector<Clock::duration> waits() const;

private:
    mutable std::mutex mu_;
    Clock::time_point now_ = Clock::time_point{} + std::chrono::hours(1);
    std::vector<Clock::duration> waits_;
};

}  // namespace trainer::core::kube
