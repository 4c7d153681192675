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

class ChangeSignal;

// Keeps a callback subscribed; its destruction unsubscribes, after any call in flight returns.
class ChangeSubscription {
public:
    ChangeSubscription() = default;
    ChangeSubscription(ChangeSubscription&&) noexcept;
    ChangeSubscription& operator=(ChangeSubscription&&) noexcept;
    ~ChangeSubscription();
    explicit operator bool() const { return signal_ != nullptr; }  // false: the store sends none

private:
    friend class ChangeSignal;
    using Entry = std::list<std::function<void()>>::iterator;
    ChangeSubscription(ChangeSignal* signal, Entry entry) : signal_(signal), entry_(entry) {}
    void reset();
    ChangeSignal* signal_ = nullptr;
    Entry entry_{};
};

class ChangeSignal {
public:
    // `fn` runs on the writing thread after each commit, with no store lock held: it must be
    // quick (set a flag, wake a thread), must not write to the store, and must not drop its own
    // subscription. The signal must outlive the subscription.
    ChangeSubscription subscribe(std::function<void()> fn);
    // Calls every subscriber (the store calls it after a commit).
    void notify() const;

private:
    friend class ChangeSubscription;
    void unsubscribe(ChangeSubscription::Entry entry);
    mutable std::shared_mutex mu_;  // notify shares it; subscribe and unsubscribe own it
    std::list<std::function<void()>> subscribers_;
};

}  // namespace trainer::core
