// The claims of a bound service-account token as kube-apiserver writes them
// (k8s.io/kubernetes pkg/serviceaccount/claims.go Claims), for a token bound to a Pod:
//
//   {"aud":["<audience>"], "exp":<iat+expirationSeconds>, "iat":<now>,
//    "iss":"https://kubernetes.default.svc.cluster.local", "jti":"<uuid>",
//    "kubernetes.io":{"namespace":"<ns>", "pod":{"name":"<pod>","uid":"<uid>"},
//                     "serviceaccount":{"name":"<sa>"[,"uid":"<sa uid>"]}},
//    "nbf":<now>, "sub":"system:serviceaccount:<ns>:<sa>"}
//
// Members are written in sorted order, as go-jose's builder does. Not written: `node` (the
// apiserver adds it for pod-bound tokens with ServiceAccountTokenPodNodeInfo; the embedded node
// has no uid) and `warnafter` (only for tokens the apiserver extends to a year, which it does
// not do here).
#pragma once

#include <boost/json.hpp>

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

namespace trainer::core::auth {

namespace json = boost::json;
using TimePoint = std::chrono::system_clock::time_point;

// The issuer kube-apiserver uses by default (--service-account-issuer of kubeadm and kind), also
// the default audience (--api-audiences defaults to the issuer).
inline constexpr std::string_view kServiceAccountIssuer = "https://kubernetes.default.svc.cluster.local";

// What a TokenRequest for a Pod-bound token asks for (authentication/v1 TokenRequestSpec with a
// boundObjectRef of kind Pod).
struct TokenBinding {
    std::string ns;
    std::string serviceAccount = "default";
    std::string serviceAccountUid;  // not written when empty
    std::string podName;
    std::string podUid;
    std::vector<std::string> audiences;  // empty: {kServiceAccountIssuer}
    int64_t expirationSeconds = 3600;    // 600 .. 2^32, as the apiserver validates TokenRequest
};

// What a verified token says.
struct TokenClaims {
    std::string issuer, subject, id;
    std::vector<std::string> audiences;
    TimePoint issuedAt{}, notBefore{}, expiresAt{};
    std::string ns, serviceAccount, serviceAccountUid;
    std::string podName, podUid;  // empty when the token is not bound to a pod
};

// "system:serviceaccount:<ns>:<name>" (k8s.io/apiserver pkg/authentication/serviceaccount MakeUsername).
std::string serviceAccountUsername(std::string_view ns, std::string_view name);

// "" when `binding` may be minted, else why not, naming the field ("expirationSeconds: may not
// specify a duration less than 10 minutes").
std::string validateBinding(const TokenBinding& binding);

// The claims of a token for `binding` issued at `now` (whole seconds) with id `jti`.
json::object buildClaims(const TokenBinding& binding, TimePoint now, const std::string& jti);

// Reads claims written by buildClaims (or by kube-apiserver): `iss`, `sub`, `exp` required,
// `aud` a string or an array of strings, `nbf`/`iat` optional NumericDates (numbers of seconds),
// `kubernetes.io.namespace` and `.serviceaccount.name` required and consistent with `sub`,
// `kubernetes.io.pod` optional. false and `error` (naming the claim) for anything else.
bool parseClaims(const json::object& claims, TokenClaims& out, std::string& error);

}  // namespace trainer::core::auth
