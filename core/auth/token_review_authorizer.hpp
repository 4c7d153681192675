// Cluster mode's TokenAuthorizer: the API server vouches for a TrainJob pod's token through a
// TokenReview carrying the TrainJob's audience. Upstream verifies the same projected
// service-account token against the cluster's OIDC issuer and then checks its
// kubernetes.io.namespace claim
// (https://github.com/kubeflow/trainer/blob/master/pkg/statusserver/auth.go); a TokenReview asks
// the one party that always knows (signature, expiry, audience, and that the bound pod and
// service account still exist) without needing OIDC discovery to be reachable.
#pragma once

#include "core/auth/access_review.hpp"
#include "core/auth/token_authorizer.hpp"
#include "core/auth/ttl_cache.hpp"
#include "core/kube/client.hpp"

#include <chrono>

namespace trainer::core::auth {

struct TokenReviewAuthorizerOptions {
    // Decisions are cached per (token digest, namespace, TrainJob): Allowed for `allowedTtl`,
    // Denied for `deniedTtl`; an Error is never cached. A pod reports progress every few seconds,
    // so one review a minute per pod is what the API server sees; a revoked token (its pod
    // deleted) keeps working for at most `allowedTtl` — the same bound the API server's own
    // webhook token cache gives (controller-runtime's metrics filter uses 1 minute).
    std::chrono::seconds allowedTtl{60};
    std::chrono::seconds deniedTtl{10};
    std::size_t maxEntries = 4096;
    NowFn now;  // empty: steady_clock
    // Passed to each review: 429/5xx are retried (with kube::Client's backoff) this many times
    // before the answer is Error. Kept small: the caller waits on a status-server handler.
    int maxRetries = 2;
};

// Allowed only when the TokenReview (spec.audiences = [tokenAudience(ns, trainJob)]) answers
// status.authenticated, status.audiences contains that audience, and the user is a service
// account of `ns` ("system:serviceaccount:<ns>:<name>"), which is the namespace claim upstream
// checks. Not authenticated, wrong audience or another namespace: Denied. No answer to go by
// (transport error, any non-2xx such as 403 for missing RBAC or 5xx, a malformed body): Error.
class TokenReviewAuthorizer : public TokenAuthorizer {
public:
    // `client` must outlive the authorizer.
    explicit TokenReviewAuthorizer(kube::Client& client, TokenReviewAuthorizerOptions options = {});

    AuthorizeResult authorize(std::string_view rawToken, std::string_view ns, std::string_view trainJob) override;

private:
    AuthorizeResult review(std::string_view rawToken, std::string_view ns, const std::string& audience);

    kube::Client& client_;
    TokenReviewAuthorizerOptions options_;
    TtlCache<AuthorizeResult> cache_;
};

// The namespace of a service-account username ("system:serviceaccount:<ns>:<name>"), or empty
// when `username` is not one.
std::string serviceAccountNamespace(std::string_view username);

}  // namespace trainer::core::auth
