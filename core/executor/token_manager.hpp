// The kubelet's service-account token manager (k8s.io/kubernetes pkg/kubelet/token/token_manager.go):
// the tokens of projected serviceAccountToken volume sources, minted by the embedded issuer
// (core/auth/service_account_tokens.hpp) instead of a TokenRequest, cached per pod and request,
// and minted again once a token requires a refresh. Thread-safe: every pod worker uses it.
#pragma once

#include "core/auth/service_account_tokens.hpp"
#include "core/controller/clock.hpp"

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <tuple>
#include <cstdint>

namespace trainer::core::executor {

// Whether a token of `expirationSeconds` that expires at `expiresAt` must be replaced at `now`:
// after 80% of its lifetime or 24 hours, whichever comes first (requiresRefresh; the kubelet adds
// up to 10 s of random jitter, left out here so that the moment is predictable).
bool tokenRequiresRefresh(auth::TimePoint expiresAt, int64_t expirationSeconds, auth::TimePoint now);

struct TokenResult {
    std::string token;
    std::string error;  // why there is no token
};

class TokenManager {
public:
    TokenManager(std::shared_ptr<const auth::ServiceAccountTokenIssuer> issuer, const controller::Clock& clock)
        : issuer_(std::move(issuer)), clock_(clock) {}

    // The cached token for `binding` (one audience at most) unless it requires a refresh, else a
    // new one minted at the clock's now().
    TokenResult token(const auth::TokenBinding& binding);
    // Whether a cached token of pod `podUid` requires a refresh now.
    bool refreshDue(const std::string& podUid) const;
    // Drops the pod's tokens (its sandbox is gone).
    void forget(const std::string& podUid);

private:
    // pod uid, service account, audience, expirationSeconds (the kubelet's keyFunc, bound object
    // by uid).
    using Key = std::tuple<std::string, std::string, std::string, int64_t>;
    struct Cached {
        std::string token;
        auth::TimePoint expiresAt;
    };

    std::shared_ptr<const auth::ServiceAccountTokenIssuer> issuer_;
    const controller::Clock& clock_;
    mutable std::mutex mu_;
    std::map<Key, Cached> cache_;
};

}  // namespace trainer::core::executor
