// The embedded mode's service-account token issuer: it mints the JWTs kube-apiserver mints for a
// TokenRequest bound to a Pod (k8s.io/kubernetes pkg/serviceaccount/jwt.go, claims.go; the
// kubelet asks for them to fill projected serviceAccountToken volumes) and verifies them again
// (pkg/serviceaccount/jwt.go Validate): the header is {"alg":"ES256","kid":"<key id>"}, the
// claims as in service_account_claims.hpp, the key one ECDSA P-256 key kept in a directory
// (signing_key_file.hpp) so tokens survive a restart.
//
// Time is an argument (`now`), never read here: callers pass their clock's now().
#pragma once

#include "core/auth/es256_key.hpp"
#include "core/auth/service_account_claims.hpp"

#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace trainer::core::auth {

struct MintResult {
    std::string token;  // header.payload.signature
    TimePoint issuedAt{}, expiresAt{};
    std::string error;  // why nothing was minted
    bool ok() const { return error.empty(); }
};

struct VerifyResult {
    std::optional<TokenClaims> claims;  // set when the token is valid
    std::string error;                  // why it is not (for logs; never sent to a client)
    bool ok() const { return claims.has_value(); }
};

class ServiceAccountTokenIssuer {
public:
    // Tolerance for clock skew on exp, nbf and iat (go-jose's jwt.DefaultLeeway, which
    // kube-apiserver's validator uses).
    static constexpr std::chrono::seconds kLeeway{60};
    // The longest token verify() reads; longer is denied unread.
    static constexpr size_t kMaxTokenBytes = 16 * 1024;

    // The issuer with the key of `keyDir` (loadOrCreateSigningKey); null and `error` when the key
    // cannot be read or made.
    static std::unique_ptr<ServiceAccountTokenIssuer> open(const std::filesystem::path& keyDir, std::string& error);
    explicit ServiceAccountTokenIssuer(Es256Key key) : key_(std::move(key)) {}

    // A token for `binding` issued at `now` (iat = nbf = now in whole seconds, exp = iat +
    // expirationSeconds, a random jti). Fails when validateBinding does. Thread-safe.
    MintResult mint(const TokenBinding& binding, TimePoint now) const;

    // Checks, in order: size, three base64url parts, header JSON with alg exactly "ES256" (no
    // other alg is ever accepted), kid (when present) this key's, no `crit`; the signature; then the claims
    // (parseClaims), iss, exp/nbf/iat against `now` with kLeeway, and that `aud` contains
    // `audience`. Never throws, whatever the input. Thread-safe.
    VerifyResult verify(std::string_view token, std::string_view audience, TimePoint now) const;

    const std::string& keyId() const { return key_.keyId(); }
    // The public key (SubjectPublicKeyInfo PEM), for verifiers outside this process.
    std::string publicKeyPem() const { return key_.publicPem(); }

private:
    std::optional<json::object> verifiedPayload(std::string_view token, std::string& error) const;

    Es256Key key_;
};

}  // namespace trainer::core::auth
