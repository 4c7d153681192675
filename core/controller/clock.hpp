// The time seam of the controller: the real clock, and a fake one tests move by hand.
#pragma once

#include <atomic>
#include <chrono>

namespace trainer::core::controller {

// Wall-clock time as the controller sees it (condition times, deadlines, requeue-after).
class Clock {
public:
    using time_point = std::chrono::system_clock::time_point;
    using duration = std::chrono::system_clock::duration;
    virtual ~Clock() = default;
    virtual time_point now() const = 0;
};

// std::chrono::system_clock.
class RealClock : public Clock {
public:
    time_point now() const override { return std::chrono::system_clock::now(); }
};

// A clock that moves only when told to. Thread-safe.
class FakeClock : public Clock {
public:
    explicit FakeClock(time_point start = time_point(std::chrono::seconds(1714564800)))  // 2024-05-01T12:00:00Z
        : ticks_(start.time_since_epoch().count()) {}
    time_point now() const override { return time_point(duration(ticks_.load())); }
    void set(time_point t) { ticks_.store(t.time_since_epoch().count()); }
    void advance(duration d) { ticks_.fetch_add(d.count()); }

private:
    std::atomic<duration::rep> ticks_;
};

}  // namespace trainer::core::controller
