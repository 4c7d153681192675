// Waiting for an event in a test. A test asserts that the event happens (or the order of two
// events), never how long it took: the bound here is a hang guard, generous enough that only a
// real hang reaches it (the machines running the suite may be loaded), and the caller fails with
// a message naming the event that never came.
#pragma once

#include <chrono>
#include <thread>

namespace trainer::test {

// The hang guard of every wait for an event.
inline constexpr std::chrono::seconds kEventBound{60};

// Polls `happened` every `step` until it holds (true) or `bound` passes (false).
template <class Pred>
bool waitFor(Pred happened, std::chrono::milliseconds bound = kEventBound,
             std::chrono::milliseconds step = std::chrono::milliseconds(20)) {
    const auto end = std::chrono::steady_clock::now() + bound;
    while (!happened()) {
        if (std::chrono::steady_clock::now() >= end) return happened();
        std::this_thread::sleep_for(step);
    }
    return true;
}

}  // namespace trainer::test
