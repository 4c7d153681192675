// How to reach a Kubernetes API server: what a kubeconfig context or the in-cluster service
// account resolves to (client-go's rest.Config, the parts this operator uses).
#pragma once

#include <chrono>
#include <optional>
#include <string>

namespace trainer::core::kube {

struct RestConfig {
    std::string server;               // "https://127.0.0.1:6443" (a path prefix is kept)
    std::string caPem;                // CA bundle to trust; empty: the system's trust store
    bool insecureSkipTlsVerify = false;
    std::string tlsServerName;        // the name to send (SNI) and verify instead of the server's host
    std::string token;                // bearer token, or
    std::string tokenFile;            // a file holding it, re-read when it changes (rotation); wins over token
    std::string clientCertPem;        // client certificate and key (PEM)
    std::string clientKeyPem;
    std::string ns = "default";       // the context's (or service account's) namespace
    double qps = 50;                  // client-side rate limit (upstream clientConnection defaults)
    int burst = 100;
    std::chrono::milliseconds timeout{30000};  // per request (not for watches)
    std::string userAgent = "trainer-operator";
    std::string origin;               // where it came from, for messages ("kubeconfig ~/.kube/config, context x")
};

// A config, or why there is none: the file and the field named ("/p/kc: users[0].user.tokenFile: ...").
struct RestConfigResult {
    std::optional<RestConfig> config;
    std::string error;
};

struct KubeconfigOptions {
    // --kubeconfig; empty: $KUBECONFIG, then ~/.kube/config. Of a $KUBECONFIG list only the first
    // existing file is read (client-go merges them all); a set $KUBECONFIG with no existing file
    // is an error.
    std::string path;
    std::string context;       // --context; empty: current-context
    bool allowInsecure = false;  // insecure-skip-tls-verify is refused unless this is set
};

// Loads a kubeconfig (clusters, users, contexts; certificate-authority(-data),
// client-certificate(-data)/client-key(-data), token, tokenFile; relative paths against the
// file's directory). PEM material is checked when loaded. Refused with an error naming the
// field: exec/auth-provider/basic auth/impersonation, proxy-url, insecure-skip-tls-verify
// (unless allowed, and never with a CA). tls-server-name is honoured.
RestConfigResult loadKubeconfig(const KubeconfigOptions& options);

// The in-cluster config: KUBERNETES_SERVICE_HOST/PORT and the service account's token, ca.crt
// and namespace files under `root`. The token must exist (it is set as tokenFile, so rotation is
// picked up); without ca.crt the system's trust store is used (client-go only logs it); without
// a namespace file the namespace is "default".
RestConfigResult inClusterConfig(const std::string& root = "/var/run/secrets/kubernetes.io/serviceaccount");

}  // namespace trainer::core::kube
