// SSH key material for the MPI launcher/worker pods, made with OpenSSL 3 EVP APIs.
#pragma once

#include <openssl/types.h>

#include <optional>
#include <string>
#include <string_view>

namespace trainer::plugins::mpi {

// A fresh key pair. The private key is wiped from memory when the object is destroyed.
struct SshKeyPair {
    std::string privateKeyPem;  // "-----BEGIN EC PRIVATE KEY-----" (SEC1 DER, PEM-wrapped)
    std::string authorizedKey;  // "ecdsa-sha2-nistp521 <base64 wire blob>\n"
    SshKeyPair() = default;
    SshKeyPair(const SshKeyPair&) = delete;
    SshKeyPair& operator=(const SshKeyPair&) = delete;
    SshKeyPair(SshKeyPair&&) noexcept;
    SshKeyPair& operator=(SshKeyPair&&) noexcept;
    ~SshKeyPair();
};

// Generates a new ECDSA P-521 key. On failure returns nullopt and sets `error` to a
// message that never contains key material.
std::optional<SshKeyPair> generateSshKeyPair(std::string& error);

// The SEC1 PEM ("EC PRIVATE KEY") of a P-521 key pair, the bytes OpenSSL's encoder writes, with
// every intermediate copy of the private scalar wiped. On failure nullopt and `error` is set.
std::optional<std::string> encodeSec1Pem(const EVP_PKEY* key, std::string& error);

// Standard base64 (RFC 4648, padded, no line breaks).
std::string base64Encode(std::string_view bytes);

// Overwrites a string's bytes with zeros (not optimised away), then clears it.
void wipe(std::string& secret);

}  // namespace trainer::plugins::mpi
