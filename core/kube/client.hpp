// An HTTPS client for a Kubernetes API server (Boost.Beast over OpenSSL): keep-alive connections
// from a small pool, client-side rate limiting (token bucket: qps, burst), retries with backoff
// on 429 and 5xx honouring Retry-After, per-request timeouts, bearer tokens re-read from their
// file, client certificates, a user agent. Thread-safe; nothing throws out of it.
#pragma once

#include "core/kube/rest_config.hpp"

#include <atomic>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace trainer::core::kube {

// One answer. `status` 0 means the request never got one: `error` says why (connect, TLS, timeout).
struct HttpResult {
    unsigned status = 0;
    std::string body;
    std::vector<std::pair<std::string, std::string>> headers;  // names lower-case
    std::string error;
    bool ok() const { return status >= 200 && status < 300; }
    std::string header(std::string_view name) const;
};

struct RequestOptions {
    std::string contentType = "application/json";
    int maxRetries = 5;  // on 429/5xx and transport errors of idempotent requests
};

class Client {
public:
    explicit Client(RestConfig config);
    ~Client();
    Client(const Client&) = delete;
    Client& operator=(const Client&) = delete;

    // METHOD pathAndQuery ("/api/v1/namespaces/default/configmaps?limit=500").
    HttpResult request(std::string_view method, std::string_view pathAndQuery, std::string_view body = {},
                       const RequestOptions& options = {});

    // A streamed GET (a watch): `onLine` gets each newline-terminated line of the body until it
    // returns false, the server ends the stream, `stop` becomes true (checked at least every
    // 200 ms), or the connection fails. The result carries the status (and the body of a
    // non-2xx answer); no retries.
    HttpResult stream(std::string_view pathAndQuery, const std::function<bool(std::string_view line)>& onLine,
                      const std::atomic<bool>& stop);

    // Called with (method, pathAndQuery) before every request is sent (the RBAC proof records them).
    void setObserver(std::function<void(std::string_view method, std::string_view pathAndQuery)> observer);

    const RestConfig& config() const;

    struct Impl;

private:
    std::unique_ptr<Impl> impl_;
};

}  // namespace trainer::core::kube
