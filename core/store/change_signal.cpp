// Commit notifications (change_signal.hpp).
#include "core/store/change_signal.hpp"

#include <mutex>
#include <utility>

namespace trainer::core {

ChangeSubscription& ChangeSubscription::operator=(ChangeSubscription&& o) noexcept {
    if (this != &o) {
        reset();
        subscribers_ = std::move(o.subscribers_);  // leaves o's empty
        entry_ = o.entry_;
    }
    return *this;
}

ChangeSubscription::~ChangeSubscription() { reset(); }

void ChangeSubscription::reset() {
    auto s = subscribers_.lock();  // null when the signal has gone
    subscribers_.reset();
    if (!s) return;
    std::unique_lock lock(s->mu);  // waits for a notify() in flight, which may be calling it
    s->list.erase(entry_);
}

ChangeSubscription ChangeSignal::subscribe(std::function<void()> fn) {
    std::unique_lock lock(subscribers_->mu);
    subscribers_->list.push_back(std::move(fn));
    return ChangeSubscription(subscribers_, std::prev(subscribers_->list.end()));
}

void ChangeSignal::notify() const {
    std::shared_lock lock(subscribers_->mu);
    for (auto const& fn : subscribers_->list) fn();
}

}  // namespace trainer::core
