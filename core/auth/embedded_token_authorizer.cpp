#include "core/auth/embedded_token_authorizer.hpp"

namespace trainer::core::auth {

namespace {

AuthorizeResult denied(std::string reason) { return {AuthorizeOutcome::Denied, std::move(reason)}; }

PodCheck checkPod(const PodChecker& check, const TokenClaims& c) {
    try {
        return check(c.ns, c.podName, c.podUid);
    } catch (...) {
        return PodCheck::Error;
    }
}

}  // namespace

EmbeddedTokenAuthorizer::EmbeddedTokenAuthorizer(std::shared_ptr<const ServiceAccountTokenIssuer> issuer,
                                                 PodChecker podCheck, NowFunction now)
    : issuer_(std::move(issuer)), podCheck_(std::move(podCheck)), now_(std::move(now)) {}

AuthorizeResult EmbeddedTokenAuthorizer::authorize(std::string_view rawToken, std::string_view ns,
                                                   std::string_view trainJob) {
    if (!issuer_ || !podCheck_ || !now_) return {AuthorizeOutcome::Error, "the embedded token authorizer is not configured"};
    auto verified = issuer_->verify(rawToken, tokenAudience(ns, trainJob), now_());
    if (!verified.ok()) return denied(verified.error);
    const TokenClaims& c = *verified.claims;
    if (c.ns != ns) return denied("the token is bound to namespace \"" + c.ns + "\", not \"" + std::string(ns) + "\"");
    if (c.podName.empty() || c.podUid.empty()) return denied("the token is not bound to a pod");
    const std::string pod = c.ns + "/" + c.podName + " (uid " + c.podUid + ")";
    switch (checkPod(podCheck_, c)) {
    case PodCheck::Exists: return {AuthorizeOutcome::Allowed, ""};
    case PodCheck::Gone: return denied("the token's pod " + pod + " no longer exists");
    case PodCheck::Error: break;
    }
    return {AuthorizeOutcome::Error, "cannot tell whether the token's pod " + pod + " exists"};
}

}  // namespace trainer::core::auth
