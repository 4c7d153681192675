#include "core/executor/token_manager.hpp"

#include <limits>

namespace trainer::core::executor {

namespace {

constexpr std::chrono::hours kMaxTtl{24};

}  // namespace

bool tokenRequiresRefresh(auth::TimePoint expiresAt, int64_t expirationSeconds, auth::TimePoint now) {
    const std::chrono::seconds lifetime{expirationSeconds};
    const auth::TimePoint issuedAt = expiresAt - lifetime;
    if (now > issuedAt + kMaxTtl) return true;
    return now > expiresAt - std::chrono::seconds(expirationSeconds * 20 / 100);
}

TokenResult TokenManager::token(const auth::TokenBinding& binding) {
    const std::string audience = binding.audiences.empty() ? std::string() : binding.audiences.front();
    Key key{binding.podUid, binding.serviceAccount, audience, binding.expirationSeconds};
    const auto now = clock_.now();
    std::lock_guard lock(mu_);
    if (auto it = cache_.find(key);
        it != cache_.end() && !tokenRequiresRefresh(it->second.expiresAt, binding.expirationSeconds, now))
        return {it->second.token, ""};
    auto minted = issuer_->mint(binding, now);
    if (!minted.ok()) return {"", minted.error};
    cache_[key] = Cached{minted.token, minted.expiresAt};
    return {minted.token, ""};
}

bool TokenManager::refreshDue(const std::string& podUid) const {
    const auto now = clock_.now();
    std::lock_guard lock(mu_);
    for (auto it = cache_.lower_bound(Key{podUid, "", "", std::numeric_limits<int64_t>::min()}); it != cache_.end() && std::get<0>(it->first) == podUid;
         ++it)
        if (tokenRequiresRefresh(it->second.expiresAt, std::get<3>(it->first), now)) return true;
    return false;
}

void TokenManager::forget(const std::string& podUid) {
    std::lock_guard lock(mu_);
    for (auto it = cache_.lower_bound(Key{podUid, "", "", std::numeric_limits<int64_t>::min()}); it != cache_.end() && std::get<0>(it->first) == podUid;)
        it = cache_.erase(it);
}

}  // namespace trainer::core::executor
