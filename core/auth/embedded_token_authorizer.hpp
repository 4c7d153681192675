// The TokenAuthorizer of the embedded mode: the tokens come from our own issuer (the local
// kubelet puts them in the pods' projected serviceAccountToken volumes), so they are verified
// with its key instead of through an OIDC provider.
//
// Allowed when, as upstream checks (https://github.com/kubeflow/trainer/blob/master/pkg/statusserver/auth.go):
// the signature is valid, the token is unexpired and its audience contains
// tokenAudience(ns, trainJob), and kubernetes.io.namespace == ns; and, as kube-apiserver checks
// for a pod-bound token (k8s.io/kubernetes pkg/serviceaccount/claims.go validator.Validate),
// the pod it is bound to still exists with that uid.
#pragma once

#include "core/auth/service_account_tokens.hpp"
#include "core/auth/token_authorizer.hpp"

#include <functional>
#include <memory>

namespace trainer::core::auth {

// Whether the pod a token is bound to is still there. Error: the answer is unknown (the store
// failed), which the authorizer reports as AuthorizeOutcome::Error, never as a denial.
enum class PodCheck { Exists, Gone, Error };
// Exists only when `ns/podName` exists and its metadata.uid is `podUid`. Must not throw.
using PodChecker = std::function<PodCheck(std::string_view ns, std::string_view podName, std::string_view podUid)>;
// The current time (the seam tests move: pass a FakeClock's now()).
using NowFunction = std::function<TimePoint()>;

class EmbeddedTokenAuthorizer : public TokenAuthorizer {
public:
    EmbeddedTokenAuthorizer(std::shared_ptr<const ServiceAccountTokenIssuer> issuer, PodChecker podCheck, NowFunction now);
    // Denied (with the reason) for a malformed, forged, expired, misdirected or other-namespace
    // token, one bound to no pod or to a pod that is gone; Error when the pod check cannot answer.
    AuthorizeResult authorize(std::string_view rawToken, std::string_view ns, std::string_view trainJob) override;

private:
    std::shared_ptr<const ServiceAccountTokenIssuer> issuer_;
    PodChecker podCheck_;
    NowFunction now_;
};

}  // namespace trainer::core::auth
