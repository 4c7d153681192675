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
    std::string contentType = "application/json";  // sent with a body, and on every POST/PUT/PATCH
    // Retries after 429 and 5xx except 501 (any method), and after transport errors when the
    // method is idempotent (GET, HEAD, PUT, DELETE, PATCH, OPTIONS) or nothing was sent (connect,
    // TLS handshake). Waits Retry-After seconds when given (at most 10 s), else 100 ms doubling
    // up to 5 s. Every attempt takes a rate-limiter token and gets the whole timeout.
    int maxRetries = 5;
};

class Waits;

class Client {
public:
    // `waits` (kept, must outlive the client): the clock and sleeps of the rate limiter and the
    // retry backoff; null = the real ones (core/kube/waits.hpp).
    explicit Client(RestConfig config, Waits* waits = nullptr);
    ~Client();
    Client(const Client&) = delete;
    Client& operator=(const Client&) = delete;

    // METHOD pathAndQuery ("/api/v1/namespaces/default/configmaps?limit=500"), after the
    // server URL's path prefix. Sends Accept: application/json, User-Agent and the bearer token;
    // reuses an idle keep-alive connection (at most 4 are kept, each for up to 60 s). Bodies up
    // to 512 MiB. A transport error reads "METHOD URL: <stage>: <why>" with status 0.
    HttpResult request(std::string_view method, std::string_view pathAndQuery, std::string_view body = {},
                       const RequestOptions& options = {});

    // A streamed GET (a watch): `onLine` gets each newline-terminated line of the body until it
    // returns false, the server ends the stream, `stop` becomes true (checked at least every
    // 200 ms), or the connection fails. The result carries the status (and the body of a
    // non-2xx answer); no retries. The timeout bounds connecting and the response headers (and a
    // non-2xx body), not a 2xx body. Lines come without "\n" / "\r\n"; an unterminated last line
    // is delivered when the stream ends cleanly. Stopped (after the headers; before them: status
    // 0, "...: stopped") or ended by `onLine`: no error; a
    // connection lost mid-stream: the status and an error. A close-delimited body over TLS must
    // end with close_notify (a bare TCP close is a truncation error).
    HttpResult stream(std::string_view pathAndQuery, const std::function<bool(std::string_view line)>& onLine,
                      const std::atomic<bool>& stop);

    // Called with (method, pathAndQuery) before every request is sent (the RBAC proof records
    // them): once per request() or stream() call, not again for its retries.
    void setObserver(std::function<void(std::string_view method, std::string_view pathAndQuery)> observer);

    const RestConfig& config() const;

    struct Impl;

private:
    std::unique_ptr<Impl> impl_;
};

}  // namespace trainer::core::kube
