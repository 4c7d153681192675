// Who may call a protected HTTP route (upstream's metrics.auth.enabled: controller-runtime's
// filters.WithAuthenticationAndAuthorization, sigs.k8s.io/controller-runtime
// pkg/metrics/filters/filters.go): authenticate the request's bearer token, then authorize the
// user for the request's path and verb (the lower-case method), as Kubernetes components guard
// /metrics with RBAC on nonResourceURLs.
#pragma once

#include "core/auth/access_review.hpp"
#include "core/auth/ttl_cache.hpp"
#include "core/kube/client.hpp"
#include "core/server/http.hpp"

#include <chrono>
#include <memory>
#include <string>

namespace trainer::core::auth {

enum class Verdict {
    Allowed,
    Unauthenticated,      // no bearer token, or one the authenticator rejects: 401
    Forbidden,            // a known user without permission: 403
    AuthenticationError,  // the authenticator could not decide: 500
    AuthorizationError,   // the authorizer could not decide: 500
};

struct Decision {
    Verdict verdict = Verdict::Unauthenticated;
    std::string user;    // the authenticated username, when there is one
    std::string reason;  // for the log, never sent to the client
};

class RequestAuthorizer {
public:
    virtual ~RequestAuthorizer() = default;
    // Thread-safe; may block on the API server (handlers run on the server's threads).
    virtual Decision check(const server::Request& request) = 0;
};

struct KubeRequestAuthorizerOptions {
    // controller-runtime's values: tokens (authenticated or not) 1 minute, SubjectAccessReview
    // allowed 5 minutes, not allowed 30 seconds; errors are never cached.
    std::chrono::seconds tokenTtl{60};
    std::chrono::seconds allowedTtl{300};
    std::chrono::seconds deniedTtl{30};
    std::size_t maxEntries = 4096;
    NowFn now;           // empty: steady_clock
    int maxRetries = 2;  // per review, for 429/5xx (kube::Client's backoff)
};

// Cluster mode: TokenReview (no audiences: the API server's own) then a SubjectAccessReview for
// the non-resource URL (request path, lower-case method). The user reviewed carries
// "system:authenticated" as the API server's delegating authenticator adds it.
class KubeRequestAuthorizer : public RequestAuthorizer {
public:
    // `client` must outlive the authorizer.
    explicit KubeRequestAuthorizer(kube::Client& client, KubeRequestAuthorizerOptions options = {});
    Decision check(const server::Request& request) override;

private:
    TokenReviewResult authenticate(const std::string& token);
    AccessReviewResult authorize(const UserInfo& user, const NonResourceAccess& access);

    kube::Client& client_;
    KubeRequestAuthorizerOptions options_;
    TtlCache<TokenReviewResult> tokens_;   // by token digest; Yes and No only
    TtlCache<AccessReviewResult> access_;  // by the SubjectAccessReview spec; Yes and No only
};

// Embedded mode: the only principal is the embedded API's admin (its bearer token, made by
// core/apiserver/bootstrap.hpp ensureCredentials), who may do anything. That token, compared in
// constant time, is Allowed; any other or none is Unauthenticated.
class StaticTokenRequestAuthorizer : public RequestAuthorizer {
public:
    explicit StaticTokenRequestAuthorizer(std::string token, std::string user = "admin");
    Decision check(const server::Request& request) override;

private:
    std::string token_;
    std::string user_;
};

// `route` with its handler run only for Allowed requests; otherwise a plain-text answer with
// controller-runtime's wording: 401 "Unauthorized", 403 "Authorization denied for user <u>",
// 500 "Authentication failed" / "Authorization for user <u> failed". Deliberately unlike
// controller-runtime, a token the API server rejects is a 401 (as the API server itself answers)
// where controller-runtime's filter answers 500, because k8s.io/apiserver's bearer-token
// authenticator turns a rejected token into an error. Errors are logged at error level,
// refusals at debug level (logger "metrics" unless named). A null authorizer refuses everything (500).
server::Route protectRoute(server::Route route, std::shared_ptr<RequestAuthorizer> authorizer,
                           std::string loggerName = "metrics");

}  // namespace trainer::core::auth
