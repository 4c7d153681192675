// Who may write a TrainJob's progress: the seam between the status server (core/statusserver/)
// and whatever vouches for a bearer token. Upstream verifies a projected service-account token
// through the cluster's OIDC issuer
// (https://github.com/kubeflow/trainer/blob/master/pkg/statusserver/auth.go); the embedded mode
// verifies the tokens the operator itself minted for the TrainJob's pods
// (core/auth/service_account_tokens.hpp); cluster mode uses TokenReview.
#pragma once

#include <string>
#include <string_view>

namespace trainer::core::auth {

enum class AuthorizeOutcome {
    Allowed,  // the token is valid, unexpired, its audience names this TrainJob, bound to its namespace
    Denied,   // anything about the token is wrong (upstream answers 403 and writes nothing)
    Error,    // the authorizer could not decide (issuer unreachable, key unreadable): not a denial
};

struct AuthorizeResult {
    AuthorizeOutcome outcome = AuthorizeOutcome::Denied;
    std::string reason;  // for the log, never sent to the client
};

// The audience a token must carry to write `<ns>/<trainJob>`'s status (upstream's TokenAudience):
// "trainer.kubeflow.org/v1alpha1/namespaces/<ns>/trainjobs/<name>/status".
std::string tokenAudience(std::string_view ns, std::string_view trainJob);

class TokenAuthorizer {
public:
    virtual ~TokenAuthorizer() = default;
    // `rawToken` is the credential alone (the "Bearer " scheme already removed). Thread-safe.
    virtual AuthorizeResult authorize(std::string_view rawToken, std::string_view ns, std::string_view trainJob) = 0;
};

}  // namespace trainer::core::auth
