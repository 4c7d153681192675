// An ECDSA P-256 key signing and verifying compact JWS with alg ES256 (RFC 7518 §3.4: the
// signature is R || S, 32 bytes each, over SHA-256), and base64url without padding (RFC 7515 §2).
// The key id is kube-apiserver's: base64url(SHA-256(DER SubjectPublicKeyInfo))
// (k8s.io/kubernetes pkg/serviceaccount/jwt.go keyIDFromPublicKey).
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>

typedef struct evp_pkey_st EVP_PKEY;

namespace trainer::core::auth {

// base64url without '=' padding.
std::string base64UrlEncode(std::string_view bytes);
// Strict base64url: only [A-Za-z0-9_-], no padding, no length of 1 mod 4, no stray low bits in
// the last character (a canonical encoding); nullopt otherwise.
std::optional<std::string> base64UrlDecode(std::string_view text);

class Es256Key {
public:
    // A new random P-256 key; nullopt and `error` when OpenSSL cannot make one.
    static std::optional<Es256Key> generate(std::string& error);
    // A P-256 private key from PEM (PKCS#8 or SEC 1); nullopt and `error` for anything else
    // (other curve or algorithm, encrypted, truncated).
    static std::optional<Es256Key> fromPrivatePem(std::string_view pem, std::string& error);

    // The private key as unencrypted PKCS#8 PEM.
    std::string privatePem() const;
    // The public key as SubjectPublicKeyInfo PEM (what `openssl dgst -verify` reads).
    std::string publicPem() const;
    const std::string& keyId() const { return keyId_; }

    // R || S over SHA-256(data); "" when signing fails.
    std::string sign(std::string_view data) const;
    // Whether `signature` (R || S, 64 bytes) is this key's signature of `data`.
    bool verify(std::string_view data, std::string_view signature) const;

private:
    explicit Es256Key(std::shared_ptr<EVP_PKEY> key, std::string keyId) : key_(std::move(key)), keyId_(std::move(keyId)) {}
    static std::optional<Es256Key> adopt(EVP_PKEY* key, std::string& error);

    std::shared_ptr<EVP_PKEY> key_;  // immutable once made: shared by threads for sign and verify
    std::string keyId_;
};

}  // namespace trainer::core::auth
