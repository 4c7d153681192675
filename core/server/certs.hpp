// Self-signed CA and webhook serving certificate generation (OpenSSL).
#pragma once

#include <string>
#include <vector>

namespace trainer::core::server {

enum class KeyType { EcdsaP256, Rsa2048 };

struct CertOptions {
    std::string service = "trainer-controller-manager";
    std::string ns = "kubeflow-system";
    int validDays = 3650;
    KeyType keyType = KeyType::EcdsaP256;
};

// The serving certificate's DNS names: <svc>, <svc>.<ns>, <svc>.<ns>.svc,
// <svc>.<ns>.svc.cluster.local, localhost (plus IP 127.0.0.1, not listed here).
std::vector<std::string> servingDnsNames(const CertOptions& opts);

// Generates a CA and a serving certificate signed by it and writes `ca.crt`, `tls.crt` and
// `tls.key` (mode 0600) into `dir` (created if absent), each file replaced atomically.
// Returns an error message, empty on success.
std::string generateCertificates(const std::string& dir, const CertOptions& opts);

}  // namespace trainer::core::server
