// A small thread-safe cache of decisions that expire (the API server's webhook authenticator and
// authorizer caches: k8s.io/apiserver pkg/authentication/token/cache and
// plugin/pkg/authorizer/webhook), with a time seam so tests move the clock by hand.
#pragma once

#include <chrono>
#include <cstddef>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <utility>

namespace trainer::core::auth {

// Monotonic time as the caches see it; tests pass a function over a value they advance.
using SteadyTime = std::chrono::steady_clock::time_point;
using NowFn = std::function<SteadyTime()>;

// std::chrono::steady_clock::now, the default of every cache.
inline NowFn steadyNow() {
    return [] { return std::chrono::steady_clock::now(); };
}

// Keys are strings the caller derives (never a raw token: see tokenDigest). At most `maxEntries`
// live entries: putting into a full cache first drops the expired ones, then the one expiring soonest.
template <class V>
class TtlCache {
public:
    explicit TtlCache(NowFn now = steadyNow(), std::size_t maxEntries = 4096)
        : now_(now ? std::move(now) : steadyNow()), maxEntries_(maxEntries ? maxEntries : 1) {}

    // The value stored under `key` while it has not expired.
    std::optional<V> get(const std::string& key) {
        std::lock_guard lock(mu_);
        auto it = entries_.find(key);
        if (it == entries_.end()) return std::nullopt;
        if (now_() >= it->second.expires) {
            entries_.erase(it);
            return std::nullopt;
        }
        return it->second.value;
    }

    // Stores `value` for `ttl` (a ttl of zero or less stores nothing).
    void put(const std::string& key, V value, std::chrono::steady_clock::duration ttl) {
        if (ttl <= std::chrono::steady_clock::duration::zero()) return;
        std::lock_guard lock(mu_);
        SteadyTime now = now_();
        if (!entries_.count(key) && entries_.size() >= maxEntries_) evict(now);
        entries_[key] = Entry{std::move(value), now + ttl};
    }

    std::size_t size() const {
        std::lock_guard lock(mu_);
        return entries_.size();
    }

private:
    struct Entry {
        V value;
        SteadyTime expires;
    };

    void evict(SteadyTime now) {
        std::erase_if(entries_, [&](auto const& e) { return now >= e.second.expires; });
        if (entries_.size() < maxEntries_) return;
        auto soonest = entries_.begin();
        for (auto it = entries_.begin(); it != entries_.end(); ++it)
            if (it->second.expires < soonest->second.expires) soonest = it;
        entries_.erase(soonest);
    }

    NowFn now_;
    std::size_t maxEntries_;
    mutable std::mutex mu_;
    std::map<std::string, Entry> entries_;
};

}  // namespace trainer::core::auth
