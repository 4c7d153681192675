// Restart backoff and circuit breaker (isolation_breaker.hpp).
#include "core/plugin/isolation_breaker.hpp"

#include <algorithm>

namespace trainer::core::isolation {

Breaker::Verdict Breaker::admit(TimePoint now) {
    if (failures_ == 0 || now >= until_) return Verdict::Allow;
    return failures_ >= s_.openAfter ? Verdict::Open : Verdict::Backoff;
}

void Breaker::recordSuccess() {
    failures_ = 0;
    last_.clear();
}

void Breaker::recordFailure(TimePoint now, std::string why) {
    ++failures_;
    last_ = std::move(why);
    if (failures_ >= s_.openAfter) {
        until_ = now + s_.openFor;
        return;
    }
    auto backoff = s_.initialBackoff;
    for (int i = 1; i < failures_ && backoff < s_.maxBackoff; ++i) backoff *= 2;
    until_ = now + std::min(backoff, s_.maxBackoff);
}

}  // namespace trainer::core::isolation
