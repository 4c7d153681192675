// Asking the API server who a bearer token is (TokenReview) and whether a user may do something
// (SubjectAccessReview), as the delegated authentication and authorization of Kubernetes
// components do (k8s.io/apiserver plugin/pkg/authenticator/token/webhook and
// plugin/pkg/authorizer/webhook). The operator's service account needs `create` on
// authentication.k8s.io/tokenreviews and authorization.k8s.io/subjectaccessreviews.
#pragma once

#include "core/kube/client.hpp"

#include <boost/json.hpp>

#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace trainer::core::auth {

// Who a token belongs to (TokenReview status.user; SubjectAccessReview spec's subject).
struct UserInfo {
    std::string username;
    std::string uid;
    std::vector<std::string> groups;
    std::map<std::string, std::vector<std::string>> extra;
};

inline constexpr std::string_view kTokenReviewsPath = "/apis/authentication.k8s.io/v1/tokenreviews";
inline constexpr std::string_view kSubjectAccessReviewsPath = "/apis/authorization.k8s.io/v1/subjectaccessreviews";

enum class ReviewOutcome {
    Yes,    // authenticated / allowed
    No,     // the API server answered: not authenticated / not allowed (or denied)
    Error,  // no answer to go by: transport error, a non-2xx status, a malformed body
};

struct TokenReviewResult {
    ReviewOutcome outcome = ReviewOutcome::Error;
    UserInfo user;                       // Yes only
    std::vector<std::string> audiences;  // status.audiences (Yes only)
    std::string message;                 // No: status.error (may be empty); Error: what failed
};

// POSTs a TokenReview for `token` (with spec.audiences when `audiences` is not empty). A 2xx
// answer whose status.authenticated is true is Yes, absent or false is No; any field of the
// wrong type is an Error naming it ("status.user.groups[1]: expected a string").
TokenReviewResult reviewToken(kube::Client& client, std::string_view token, const std::vector<std::string>& audiences,
                              const kube::RequestOptions& options = {});

// A non-resource request (SubjectAccessReview spec.nonResourceAttributes).
struct NonResourceAccess {
    std::string path;  // "/metrics"
    std::string verb;  // "get" (the HTTP method, lower-case)
};

struct AccessReviewResult {
    ReviewOutcome outcome = ReviewOutcome::Error;
    std::string reason;  // status.reason (Yes/No), or what failed (Error)
};

// The SubjectAccessReview spec asking whether `user` may do `access`: also the cache key.
boost::json::object accessReviewSpec(const UserInfo& user, const NonResourceAccess& access);

// POSTs a SubjectAccessReview. status.allowed is Yes; status.denied or neither is No (the API
// server's webhook authorizer: Deny / NoOpinion); allowed and denied together is an Error.
AccessReviewResult reviewAccess(kube::Client& client, const UserInfo& user, const NonResourceAccess& access,
                                const kube::RequestOptions& options = {});

}  // namespace trainer::core::auth
