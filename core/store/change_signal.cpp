// Commit notifications (change_signal.hpp).
#include "core/store/change_signal.hpp"

#include <mutex>
#include <utility>

namespace trainer::core {

ChangeSubscription::ChangeSubscription(ChangeSubscription&& o) noexcept
    : signal_(std::exchange(o.signal_, nullptr)), entry_(o.entry_) {}

ChangeSubscription& ChangeSubscription::operator=(ChangeSubscription&& o) noexcept {
    if (this != &o) {
        reset();
        signal_ = std::exchange(o.signal_, nullptr);
        entry_ = o.entry_;
    }
    return *this;
}

ChangeSubscription::~ChangeSubscription() { reset(); }

void ChangeSubscription::reset() {
    if (auto* s = std::exchange(signal_, nullptr)) s->unsubscribe(entry_);
}

ChangeSubscription ChangeSignal::subscribe(std::function<void()> fn) {
    std::unique_lock lock(mu_);
    subscribers_.push_back(std::move(fn));
    return ChangeSubscription(this, std::prev(subscribers_.end()));
}

void ChangeSignal::unsubscribe(ChangeSubscription::Entry entry) {
    std::unique_lock lock(mu_);  // waits for a notify() in flight, which may be calling it
    subscribers_.erase(entry);
}

void ChangeSignal::notify() const {
    std::shared_lock lock(mu_);
    for (auto const& fn : subscribers_) fn();
}

}  // namespace trainer::core
