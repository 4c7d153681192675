// Commit notifications: how a loop that polls the store's change feed learns that this process
// has just written to it, so that it polls now rather than at its next interval (a pod starts when
// it is created, not up to a poll interval later). A notification carries nothing: the feed
// (Store::changesSince) stays the one source of what changed, and a writer in another process
// (which no notification reaches) is still seen at the next poll.
#pragma once

#include <functional>
#include <list>
#include <memory>
#include <shared_mutex>

namespace trainer::core {

namespace detail {
// The subscribers, shared with the subscriptions (weakly), which may outlive the signal.
struct ChangeSubscribers {
    std::shared_mutex mu;  // notify shares it; subscribe and unsubscribe own it
    std::list<std::function<void()>> list;
};
}  // namespace detail

// Keeps a callback subscribed; its destruction unsubscribes, after any call in flight returns.
// It may outlive its signal (a server's watch streams can outlive the store at shutdown): its
// destruction then does nothing.
class ChangeSubscription {
public:
    ChangeSubscription() = default;
    ChangeSubscription(ChangeSubscription&&) noexcept = default;
    ChangeSubscription& operator=(ChangeSubscription&& o) noexcept;
    ~ChangeSubscription();
    explicit operator bool() const { return !subscribers_.expired(); }  // false: the store sends none

private:
    friend class ChangeSignal;
    using Entry = std::list<std::function<void()>>::iterator;
    ChangeSubscription(std::weak_ptr<detail::ChangeSubscribers> s, Entry entry) : subscribers_(std::move(s)), entry_(entry) {}
    void reset();
    std::weak_ptr<detail::ChangeSubscribers> subscribers_;
    Entry entry_{};
};

class ChangeSignal {
public:
    // `fn` runs on the writing thread after each commit, with no store lock held: it must be
    // quick (set a flag, wake a thread), must not write to the store, and must not drop its own
    // subscription.
    ChangeSubscription subscribe(std::function<void()> fn);
    // Calls every subscriber (the store calls it after a commit).
    void notify() const;

private:
    std::shared_ptr<detail::ChangeSubscribers> subscribers_ = std::make_shared<detail::ChangeSubscribers>();
};

}  // namespace trainer::core
