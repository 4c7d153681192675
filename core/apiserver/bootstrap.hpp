// What a client needs to reach the embedded API server, made on first start and kept: a CA and a
// serving certificate (for 127.0.0.1 and localhost), an admin bearer token, and an ordinary admin
// kubeconfig naming them.
#pragma once

#include <string>

namespace trainer::core::apiserver {

struct Credentials {
    std::string certDir;  // ca.crt, tls.crt, tls.key, token
    std::string token;
    std::string caPem;
};

// Reuses the files in `certDir` when present (creating the directory 0700 and whatever is
// missing otherwise). Returns an error message, empty on success.
std::string ensureCredentials(const std::string& certDir, Credentials& out);

// An admin kubeconfig (cluster and context `trainer-operator`, user `admin`, namespace default),
// written atomically with mode 0600. Returns an error message, empty on success.
std::string writeKubeconfig(const std::string& path, const std::string& serverUrl, const Credentials& creds);

// "https://127.0.0.1:6443" for a bound address (an unspecified host becomes 127.0.0.1).
std::string serverUrl(const std::string& bindHost, unsigned short port);

}  // namespace trainer::core::apiserver
