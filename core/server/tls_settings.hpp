// How every TLS server of the operator negotiates (webhooks, metrics, the embedded API, the status
// server): upstream's Configuration `tls` block (minVersion, cipherSuites, nextProtos), applied the
// way upstream's pkg/util/tlsconfig/tlsconfig.go applies it to Go's tls.Config
// (https://github.com/kubeflow/trainer/blob/master/pkg/util/tlsconfig/tlsconfig.go).
#pragma once

#include "core/api/errors.hpp"

#include <boost/asio/ssl/context.hpp>

#include <string>
#include <vector>

namespace trainer::core::server {

struct TlsSettings {
    int minVersion = 0x0303;              // TLS1_2_VERSION: Go's server default
    std::string cipherList;               // OpenSSL names for TLS 1.0-1.2, ':'-joined; empty = defaults
    std::vector<std::string> nextProtos;  // ALPN protocols we may select; empty = {"http/1.1"}
};

// Parses the Configuration's tls block. Versions are "1.0".."1.3"; cipher suites are the IANA
// names Go's crypto/tls uses (TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256 ...). TLS 1.3 suites are
// accepted and, as in Go, not configurable. Unknown versions and suites are errors at
// `tls.minVersion` / `tls.cipherSuites[i]` (upstream logs a warning and ignores them).
TlsSettings parseTlsSettings(const std::string& minVersion, const std::vector<std::string>& cipherSuites,
                             const std::vector<std::string>& nextProtos, Diagnostics& diag);

// Applies `settings` to a server context before its first handshake: minimum version, TLS 1.2
// cipher list, and ALPN selection (we speak HTTP/1.1 only, so "http/1.1" is selected when both
// the client and `nextProtos` offer it; otherwise no protocol is negotiated). Returns an error
// message, empty on success.
std::string applyTlsSettings(boost::asio::ssl::context& ctx, const TlsSettings& settings);

}  // namespace trainer::core::server
