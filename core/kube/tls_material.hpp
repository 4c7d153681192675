// Checks of PEM material from a kubeconfig, so a bad file is reported when it is loaded and not
// at the first request. Messages follow Go's crypto/tls and client-go's where those exist.
#pragma once

#include <string>
#include <string_view>

namespace trainer::core::kube {

// Empty when `pem` holds at least one X.509 certificate (and nothing unparsable between them); else why not.
std::string checkCertificates(std::string_view pem);

// Empty when `certPem` starts with a certificate whose public key matches the private key in `keyPem`.
std::string checkKeyPair(std::string_view certPem, std::string_view keyPem);

}  // namespace trainer::core::kube
