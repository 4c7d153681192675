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
    std::string tokenFile;            // a file holding it, re-read when it changes (rotation)
    std::string clientCertPem;        // client certificate and key (PEM)
    std::string clientKeyPem;
    std::string ns = "default";       // the context's (or service account's) namespace
    double qps = 50;                  // client-side rate limit (upstream clientConnection defaults)
    int burst = 100;
    std::chrono::milliseconds timeout{30000};  // per request (not for watches)
    std::string userAgent = "trainer-operator";
    std::string origin;               // where it came from, for messages ("kubeconfig ~/.kube/config, context x")
};

// A config, or why there is none: the file and the field named ("/p/kc: users[0].user.token-file: ...").
struct RestConfigResult {
    std::optional<RestConfig> config;
    std::string error;
};

struct KubeconfigOptions {
    std::string path;          // --kubeconfig; empty: $KUBECONFIG (first existing of its list), then ~/.kube/config
    std::string context;       // --context; empty: current-context
    bool allowInsecure = false;  // insecure-skip-tls-verify is refused unless this is set
};

// Loads a kubeconfig (clusters, users, contexts; certificate-authority(-data),
// client-certificate(-data)/client-key(-data), token, tokenFile; relative paths against the
// file's directory).
RestConfigResult loadKubeconfig(const KubeconfigOptions& options);

// The in-cluster config: KUBERNETES_SERVICE_HOST/PORT and the service account's token, ca.crt
// and namespace files under `root`.
RestConfigResult inClusterConfig(const std::string& root = "/var/run/secrets/kubernetes.io/serviceaccount");

}  // namespace trainer::core::kube
