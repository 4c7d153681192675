#include "core/auth/token_review_authorizer.hpp"

#include "core/auth/bearer_token.hpp"

#include <algorithm>

namespace trainer::core::auth {

namespace {

constexpr std::string_view kServiceAccountPrefix = "system:serviceaccount:";
// The pod a projected token is bound to (TokenReview status.user.extra), for the log.
constexpr std::string_view kPodNameExtra = "authentication.kubernetes.io/pod-name";

AuthorizeResult denied(std::string reason) { return {AuthorizeOutcome::Denied, std::move(reason)}; }

std::string podOf(const UserInfo& user) {
    auto it = user.extra.find(std::string(kPodNameExtra));
    return it == user.extra.end() || it->second.empty() ? std::string() : it->second.front();
}

}  // namespace

std::string serviceAccountNamespace(std::string_view username) {
    if (!username.starts_with(kServiceAccountPrefix)) return {};
    auto rest = username.substr(kServiceAccountPrefix.size());
    auto colon = rest.find(':');
    if (colon == std::string_view::npos || colon == 0 || colon + 1 == rest.size()) return {};
    if (rest.find(':', colon + 1) != std::string_view::npos) return {};
    return std::string(rest.substr(0, colon));
}

TokenReviewAuthorizer::TokenReviewAuthorizer(kube::Client& client, TokenReviewAuthorizerOptions options)
    : client_(client), options_(std::move(options)), cache_(options_.now, options_.maxEntries) {}

AuthorizeResult TokenReviewAuthorizer::authorize(std::string_view rawToken, std::string_view ns, std::string_view trainJob) {
    if (rawToken.empty()) return denied("no bearer token");
    const std::string audience = tokenAudience(ns, trainJob);
    const std::string key = tokenDigest(rawToken) + "\n" + audience;
    if (auto hit = cache_.get(key)) return *hit;
    AuthorizeResult result = review(rawToken, ns, audience);
    if (result.outcome == AuthorizeOutcome::Allowed) cache_.put(key, result, options_.allowedTtl);
    if (result.outcome == AuthorizeOutcome::Denied) cache_.put(key, result, options_.deniedTtl);
    return result;
}

AuthorizeResult TokenReviewAuthorizer::review(std::string_view rawToken, std::string_view ns, const std::string& audience) {
    kube::RequestOptions ro;
    ro.maxRetries = options_.maxRetries;
    auto r = reviewToken(client_, rawToken, {audience}, ro);
    if (r.outcome == ReviewOutcome::Error) return {AuthorizeOutcome::Error, "TokenReview failed: " + r.message};
    if (r.outcome == ReviewOutcome::No)
        return denied("token not authenticated" + (r.message.empty() ? std::string() : ": " + r.message));
    if (std::find(r.audiences.begin(), r.audiences.end(), audience) == r.audiences.end())
        return denied("token audiences do not include " + audience);
    std::string tokenNs = serviceAccountNamespace(r.user.username);
    if (tokenNs.empty()) return denied("user " + r.user.username + " is not a service account");
    if (tokenNs != ns) return denied("service account " + r.user.username + " is not in namespace " + std::string(ns));
    std::string pod = podOf(r.user);
    return {AuthorizeOutcome::Allowed, "service account " + r.user.username + (pod.empty() ? "" : ", pod " + pod)};
}

}  // namespace trainer::core::auth
