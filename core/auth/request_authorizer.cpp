#include "core/auth/request_authorizer.hpp"

#include "core/auth/bearer_token.hpp"
#include "core/log/log.hpp"

#include <algorithm>
#include <cctype>

namespace trainer::core::auth {

namespace {

constexpr std::string_view kAllAuthenticated = "system:authenticated";
constexpr std::string_view kAllUnauthenticated = "system:unauthenticated";

std::string lower(std::string_view s) {
    std::string out(s);
    std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return std::tolower(c); });
    return out;
}

// k8s.io/apiserver's AuthenticatedGroupAdder: every authenticated user is in system:authenticated.
UserInfo withAuthenticatedGroup(UserInfo user) {
    auto& g = user.groups;
    if (std::find(g.begin(), g.end(), kAllAuthenticated) == g.end() &&
        std::find(g.begin(), g.end(), kAllUnauthenticated) == g.end())
        g.emplace_back(kAllAuthenticated);
    return user;
}

// Go's http.Error.
server::Response plainError(unsigned status, std::string message) {
    server::Response r;
    r.status = status;
    r.body = std::move(message) + "\n";
    r.headers.emplace_back("X-Content-Type-Options", "nosniff");
    return r;
}

server::Response refusal(const Decision& d, const server::Request& req, const log::Logger& logger) {
    log::Fields fields{{"path", req.path}, {"remote", req.remote}, {"reason", d.reason}};
    if (!d.user.empty()) fields.emplace_back("user", d.user);
    switch (d.verdict) {
        case Verdict::AuthenticationError:
            logger.error("Authentication failed", fields);
            return plainError(500, "Authentication failed");
        case Verdict::AuthorizationError:
            logger.error("Authorization for user " + d.user + " failed", fields);
            return plainError(500, "Authorization for user " + d.user + " failed");
        case Verdict::Forbidden:
            logger.debug("Authorization denied", fields);
            return plainError(403, "Authorization denied for user " + d.user);
        default:
            logger.debug("Authentication failed", fields);
            return plainError(401, "Unauthorized");
    }
}

}  // namespace

KubeRequestAuthorizer::KubeRequestAuthorizer(kube::Client& client, KubeRequestAuthorizerOptions options)
    : client_(client),
      options_(std::move(options)),
      tokens_(options_.now, options_.maxEntries),
      access_(options_.now, options_.maxEntries) {}

TokenReviewResult KubeRequestAuthorizer::authenticate(const std::string& token) {
    const std::string key = tokenDigest(token);
    if (auto hit = tokens_.get(key)) return *hit;
    kube::RequestOptions ro;
    ro.maxRetries = options_.maxRetries;
    auto r = reviewToken(client_, token, {}, ro);
    if (r.outcome != ReviewOutcome::Error) tokens_.put(key, r, options_.tokenTtl);
    return r;
}

AccessReviewResult KubeRequestAuthorizer::authorize(const UserInfo& user, const NonResourceAccess& access) {
    const std::string key = boost::json::serialize(accessReviewSpec(user, access));
    if (auto hit = access_.get(key)) return *hit;
    kube::RequestOptions ro;
    ro.maxRetries = options_.maxRetries;
    auto r = reviewAccess(client_, user, access, ro);
    if (r.outcome == ReviewOutcome::Yes) access_.put(key, r, options_.allowedTtl);
    if (r.outcome == ReviewOutcome::No) access_.put(key, r, options_.deniedTtl);
    return r;
}

Decision KubeRequestAuthorizer::check(const server::Request& request) {
    std::string token = bearerToken(request.header("authorization"));
    if (token.empty()) return {Verdict::Unauthenticated, {}, "no bearer token"};
    auto tr = authenticate(token);
    if (tr.outcome == ReviewOutcome::Error) return {Verdict::AuthenticationError, {}, tr.message};
    if (tr.outcome == ReviewOutcome::No)
        return {Verdict::Unauthenticated, {}, "token not authenticated" + (tr.message.empty() ? "" : ": " + tr.message)};
    UserInfo user = withAuthenticatedGroup(tr.user);
    auto ar = authorize(user, NonResourceAccess{request.path, lower(request.method)});
    if (ar.outcome == ReviewOutcome::Error) return {Verdict::AuthorizationError, user.username, ar.reason};
    if (ar.outcome == ReviewOutcome::No) return {Verdict::Forbidden, user.username, ar.reason};
    return {Verdict::Allowed, user.username, ar.reason};
}

StaticTokenRequestAuthorizer::StaticTokenRequestAuthorizer(std::string token, std::string user)
    : token_(std::move(token)), user_(std::move(user)) {}

Decision StaticTokenRequestAuthorizer::check(const server::Request& request) {
    std::string token = bearerToken(request.header("authorization"));
    if (token.empty()) return {Verdict::Unauthenticated, {}, "no bearer token"};
    if (!tokensEqual(token, token_)) return {Verdict::Unauthenticated, {}, "not the embedded API's token"};
    return {Verdict::Allowed, user_, "the embedded API's admin token"};
}

server::Route protectRoute(server::Route route, std::shared_ptr<RequestAuthorizer> authorizer, std::string loggerName) {
    log::Logger logger(std::move(loggerName));
    route.handler = [inner = std::move(route.handler), authorizer = std::move(authorizer),
                     logger](const server::Request& req) -> server::Response {
        Decision d = authorizer ? authorizer->check(req)
                                : Decision{Verdict::AuthenticationError, {}, "no request authorizer configured"};
        if (d.verdict == Verdict::Allowed) return inner(req);
        return refusal(d, req, logger);
    };
    return route;
}

}  // namespace trainer::core::auth
