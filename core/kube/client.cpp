// The API client: one logical request = rate limiter, then attempts (a pooled or new connection,
// write, read) with retries and backoff; watches stream on a connection of their own.
#include "core/kube/client.hpp"

#include "core/kube/connection.hpp"
#include "core/kube/rate_limiter.hpp"
#include "core/kube/token_source.hpp"
#include "core/kube/waits.hpp"

#include <boost/asio/ssl/context.hpp>

#include <openssl/ssl.h>

#include <algorithm>
#include <cctype>
#include <mutex>

namespace trainer::core::kube {

namespace asio = boost::asio;

namespace {

constexpr std::size_t kMaxIdle = 4;
constexpr auto kIdleTimeout = std::chrono::seconds(60);
constexpr auto kFirstBackoff = std::chrono::milliseconds(100);
constexpr auto kMaxBackoff = std::chrono::milliseconds(5000);
constexpr auto kMaxRetryAfter = std::chrono::seconds(10);
constexpr std::uint64_t kBodyLimit = 512ull << 20;
constexpr std::uint32_t kHeaderLimit = 1u << 20;
constexpr std::size_t kStreamChunk = 64 * 1024;
constexpr std::size_t kErrorBodyLimit = 4u << 20;  // of a watch's non-2xx answer

std::string lower(std::string_view s) {
    std::string out(s);
    std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return std::tolower(c); });
    return out;
}

bool idempotent(std::string_view method) {
    return method == "GET" || method == "HEAD" || method == "PUT" || method == "DELETE" || method == "PATCH" ||
           method == "OPTIONS";
}

// 429 and server errors are retried; 501 Not Implemented will not change by asking again.
bool retryableStatus(unsigned status) { return status == 429 || (status >= 500 && status <= 599 && status != 501); }

template <class Fields>
std::vector<std::pair<std::string, std::string>> lowerCaseHeaders(const Fields& fields) {
    std::vector<std::pair<std::string, std::string>> out;
    for (auto const& f : fields) out.emplace_back(lower(f.name_string()), std::string(f.value()));
    return out;
}

// Retry-After in seconds (an HTTP date is not honoured), capped; nullopt when absent or not a number.
std::optional<std::chrono::milliseconds> retryAfter(const HttpResult& r) {
    std::string v = r.header("retry-after");
    if (v.empty() || v.size() > 9 || !std::all_of(v.begin(), v.end(), [](unsigned char c) { return std::isdigit(c); }))
        return std::nullopt;
    return std::min<std::chrono::milliseconds>(std::chrono::seconds(std::stol(v)), kMaxRetryAfter);
}

std::chrono::milliseconds backoff(int attempt, const HttpResult& r) {
    if (auto after = retryAfter(r)) return *after;
    auto d = kFirstBackoff * (1LL << std::min(attempt, 16));
    return std::min<std::chrono::milliseconds>(d, kMaxBackoff);
}

// Hands complete lines (without "\n" or "\r\n") to the callback; false once it said stop.
class LineSplitter {
public:
    explicit LineSplitter(const std::function<bool(std::string_view)>& onLine) : onLine_(onLine) {}
    bool feed(std::string_view data) {
        pending_.append(data);
        std::size_t start = 0;
        for (auto nl = pending_.find('\n'); nl != std::string::npos; nl = pending_.find('\n', start)) {
            bool more = deliver(std::string_view(pending_).substr(start, nl - start));
            start = nl + 1;
            if (!more) return false;
        }
        pending_.erase(0, start);
        return true;
    }
    // The unterminated rest at a clean end of the stream.
    void finish() {
        if (!pending_.empty()) deliver(pending_);
        pending_.clear();
    }

private:
    bool deliver(std::string_view line) {
        if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
        return onLine_(line);
    }
    const std::function<bool(std::string_view)>& onLine_;
    std::string pending_;
};

struct Attempt {
    HttpResult result;
    bool sent = false;  // the request may have reached the server
};

}  // namespace

std::string HttpResult::header(std::string_view name) const {
    std::string n = lower(name);
    for (auto const& [k, v] : headers)
        if (k == n) return v;
    return {};
}

struct Client::Impl {
    RestConfig config;
    Waits& waits;
    ServerUrl url;
    std::string initError;
    std::unique_ptr<asio::ssl::context> tls;
    TokenBucket limiter;
    TokenSource tokens;
    std::mutex mu;  // idle, observer
    std::vector<std::unique_ptr<Connection>> idle;
    std::function<void(std::string_view, std::string_view)> observer;

    Impl(RestConfig c, Waits& w)
        : config(std::move(c)), waits(w), limiter(config.qps, config.burst, waits.now()),
          tokens(config.token, config.tokenFile) {
        auto u = parseServerUrl(config.server, initError);
        if (!u) return;
        url = *u;
        if (!url.tls) return;
        try {
            initError = makeTlsContext();
        } catch (const std::exception& e) {
            initError = std::string("creating the TLS context: ") + e.what();
        }
    }

    std::string makeTlsContext();
    Limits limits(const std::atomic<bool>* stop = nullptr) const;
    std::string target(std::string_view pathAndQuery) const;
    HttpResult failure(std::string_view method, std::string_view pathAndQuery, const std::string& why) const;
    bool buildRequest(http::request<http::string_body>& req, std::string_view method, std::string_view pathAndQuery,
                      std::string_view body, const std::string& contentType, std::string& error);
    std::unique_ptr<Connection> takeIdle();
    void putIdle(std::unique_ptr<Connection> c);
    std::unique_ptr<Connection> connect(const Limits& l, std::string& error);
    Attempt attempt(http::request<http::string_body>& req, std::string_view pathAndQuery, bool mayReplay);
    void observe(std::string_view method, std::string_view pathAndQuery);
};

// TLS 1.2 or later; the server's certificate checked against caPem (else the system's trust
// store) and, in Connection::open, against the host; the client certificate when given.
std::string Client::Impl::makeTlsContext() {
    tls = std::make_unique<asio::ssl::context>(asio::ssl::context::tls_client);
    SSL_CTX_set_min_proto_version(tls->native_handle(), TLS1_2_VERSION);
    boost::system::error_code ec;
    if (config.insecureSkipTlsVerify) {
        tls->set_verify_mode(asio::ssl::verify_none, ec);
    } else {
        tls->set_verify_mode(asio::ssl::verify_peer, ec);
        if (!config.caPem.empty())
            tls->add_certificate_authority(asio::buffer(config.caPem), ec);
        else
            tls->set_default_verify_paths(ec);
        if (ec) return "loading the certificate authority: " + ec.message();
    }
    if (!config.clientCertPem.empty()) {
        tls->use_certificate_chain(asio::buffer(config.clientCertPem), ec);
        if (ec) return "loading the client certificate: " + ec.message();
        tls->use_private_key(asio::buffer(config.clientKeyPem), asio::ssl::context::pem, ec);
        if (ec) return "loading the client key: " + ec.message();
    }
    return {};
}

Limits Client::Impl::limits(const std::atomic<bool>* stop) const {
    Limits l;
    l.stop = stop;
    if (config.timeout.count() > 0) l.deadline = SteadyClock::now() + config.timeout;
    return l;
}

std::string Client::Impl::target(std::string_view pathAndQuery) const {
    std::string t = url.pathPrefix + std::string(pathAndQuery);
    return t.empty() ? "/" : t;
}

HttpResult Client::Impl::failure(std::string_view method, std::string_view pathAndQuery, const std::string& why) const {
    HttpResult r;
    r.error = std::string(method) + " " + (url.host.empty() ? config.server : url.text()) + std::string(pathAndQuery) + ": " + why;
    return r;
}

bool Client::Impl::buildRequest(http::request<http::string_body>& req, std::string_view method,
                                std::string_view pathAndQuery, std::string_view body, const std::string& contentType,
                                std::string& error) {
    std::string token;
    if (!tokens.get(token, error)) return false;
    req = {};
    req.version(11);
    auto verb = http::string_to_verb(method);
    if (verb == http::verb::unknown)
        req.method_string(method);
    else
        req.method(verb);
    req.target(target(pathAndQuery));
    req.set(http::field::host, url.hostHeader);
    req.set(http::field::user_agent, config.userAgent);
    req.set(http::field::accept, "application/json");
    if (!token.empty()) req.set(http::field::authorization, "Bearer " + token);
    if (!body.empty() || method == "POST" || method == "PUT" || method == "PATCH")
        req.set(http::field::content_type, contentType);
    req.body() = std::string(body);
    req.prepare_payload();
    return true;
}

std::unique_ptr<Connection> Client::Impl::takeIdle() {
    std::lock_guard lock(mu);
    while (!idle.empty()) {
        auto c = std::move(idle.back());
        idle.pop_back();
        if (SteadyClock::now() - c->lastUsed < kIdleTimeout && c->reusable()) return c;
    }
    return nullptr;
}

void Client::Impl::putIdle(std::unique_ptr<Connection> c) {
    c->lastUsed = SteadyClock::now();
    std::lock_guard lock(mu);
    if (idle.size() < kMaxIdle) idle.push_back(std::move(c));
}

std::unique_ptr<Connection> Client::Impl::connect(const Limits& l, std::string& error) {
    auto c = std::make_unique<Connection>(tls.get());
    std::string name = config.tlsServerName.empty() ? url.host : config.tlsServerName;
    error = c->open(url, name, !config.insecureSkipTlsVerify, l);
    return error.empty() ? std::move(c) : nullptr;
}

// One try: an idle connection if there is one (and, when it turns out closed before any answer
// and `mayReplay`, once more on a new one), else a new connection.
Attempt Client::Impl::attempt(http::request<http::string_body>& req, std::string_view path, bool mayReplay) {
    auto method = std::string(req.method_string());
    Attempt a;
    auto lim = limits();
    for (bool first = true;; first = false) {
        auto conn = first ? takeIdle() : nullptr;
        bool reused = conn != nullptr;
        if (!conn) {
            std::string why;
            conn = connect(lim, why);
            if (!conn) return a.result = failure(method, path, why), a;
        }
        a.sent = true;
        auto w = conn->write(req, lim);
        StringParser parser;
        parser.header_limit(kHeaderLimit);
        parser.body_limit(kBodyLimit);
        if (req.method() == http::verb::head) parser.skip(true);
        OpResult r = w.ok() ? conn->read(parser, lim) : w;
        if (r.ok()) {
            auto& msg = parser.get();
            a.result.status = msg.result_int();
            a.result.headers = lowerCaseHeaders(msg);
            a.result.body = std::move(msg.body());
            if (msg.keep_alive()) putIdle(std::move(conn));
            return a;
        }
        bool stale = reused && r.ended == Ended::Done && !parser.got_some();
        if (stale && (mayReplay || !w.ok())) continue;
        return a.result = failure(method, path, r.describe(w.ok() ? "read response" : "write request")), a;
    }
}

void Client::Impl::observe(std::string_view method, std::string_view pathAndQuery) {
    std::function<void(std::string_view, std::string_view)> f;
    {
        std::lock_guard lock(mu);
        f = observer;
    }
    if (f) f(method, pathAndQuery);
}

namespace {

// Runs `f`, turning anything it throws (an allocation, a callback) into an error value.
template <class F>
HttpResult guarded(const Client::Impl& d, std::string_view method, std::string_view pathAndQuery, F&& f) {
    try {
        return f();
    } catch (const std::exception& e) {
        return d.failure(method, pathAndQuery, e.what());
    } catch (...) {
        return d.failure(method, pathAndQuery, "unknown exception");
    }
}

// One request with its retries: 429/5xx (not 501) for any method; transport errors when the
// method is idempotent or nothing was sent (connect, TLS handshake, token file).
HttpResult sendRequest(Client::Impl& d, std::string_view method, std::string_view pathAndQuery, std::string_view body,
                       const RequestOptions& options) {
    if (!d.initError.empty()) return d.failure(method, pathAndQuery, d.initError);
    d.observe(method, pathAndQuery);
    bool safe = idempotent(method);
    for (int attempt = 0;; ++attempt) {
        d.limiter.wait(d.waits);
        http::request<http::string_body> req;
        std::string why;
        if (!d.buildRequest(req, method, pathAndQuery, body, options.contentType, why)) return d.failure(method, pathAndQuery, why);
        Attempt a = d.attempt(req, pathAndQuery, safe);
        bool again = a.result.status == 0 ? (safe || !a.sent) : retryableStatus(a.result.status);
        if (!again || attempt >= options.maxRetries) return a.result;
        d.waits.sleepFor(backoff(attempt, a.result));
    }
}

// Reads the rest of a streamed body, handing each piece to `sink`, until the message ends,
// `sink` returns false, or the read fails, times out or is stopped.
OpResult readBody(Connection& c, BufferParser& parser, const Limits& limits, const std::function<bool(std::string_view)>& sink) {
    std::vector<char> chunk(kStreamChunk);
    while (!parser.is_done()) {
        parser.get().body().data = chunk.data();
        parser.get().body().size = chunk.size();
        OpResult r = c.readSome(parser, limits);
        if (r.ec == http::error::need_buffer) r.ec = {};
        if (!r.ok()) return r;
        if (!sink(std::string_view(chunk.data(), chunk.size() - parser.get().body().size))) break;
    }
    return {};
}

// A watch: connect, send and read the headers within the timeout (or until stop); then a 2xx
// body streams as lines with no deadline until stop, and another body is read whole (bounded).
HttpResult streamLines(Client::Impl& d, std::string_view pathAndQuery, const std::function<bool(std::string_view line)>& onLine,
                       const std::atomic<bool>& stop) {
    if (!d.initError.empty()) return d.failure("GET", pathAndQuery, d.initError);
    d.observe("GET", pathAndQuery);
    d.limiter.wait(d.waits);
    http::request<http::string_body> req;
    std::string why;
    if (!d.buildRequest(req, "GET", pathAndQuery, {}, {}, why)) return d.failure("GET", pathAndQuery, why);
    auto lim = d.limits(&stop);
    auto conn = d.connect(lim, why);
    if (!conn) return d.failure("GET", pathAndQuery, why);
    BufferParser parser;
    parser.header_limit(kHeaderLimit);
    parser.body_limit(boost::none);
    OpResult r = conn->write(req, lim);
    std::string stage = "write request";
    if (r.ok()) r = conn->readHeader(parser, lim), stage = "read response";
    if (!r.ok()) return d.failure("GET", pathAndQuery, r.describe(stage));
    HttpResult result;
    result.status = parser.get().result_int();
    result.headers = lowerCaseHeaders(parser.get());
    if (!result.ok()) {
        r = readBody(*conn, parser, lim, [&](std::string_view data) {
            result.body.append(data);
            return result.body.size() < kErrorBodyLimit;
        });
    } else {
        LineSplitter lines(onLine);
        bool more = true;
        r = readBody(*conn, parser, Limits{std::nullopt, &stop}, [&](std::string_view data) { return more = lines.feed(data); });
        if (r.ok() && more) lines.finish();
    }
    if (!r.ok() && r.ended != Ended::Stopped) result.error = d.failure("GET", pathAndQuery, r.describe("read response body")).error;
    return result;
}

}  // namespace

Client::Client(RestConfig config, Waits* waits)
    : impl_(std::make_unique<Impl>(std::move(config), waits ? *waits : realWaits())) {}

Client::~Client() = default;

const RestConfig& Client::config() const { return impl_->config; }

void Client::setObserver(std::function<void(std::string_view, std::string_view)> observer) {
    std::lock_guard lock(impl_->mu);
    impl_->observer = std::move(observer);
}

HttpResult Client::request(std::string_view method, std::string_view pathAndQuery, std::string_view body,
                           const RequestOptions& options) {
    return guarded(*impl_, method, pathAndQuery, [&] { return sendRequest(*impl_, method, pathAndQuery, body, options); });
}

HttpResult Client::stream(std::string_view pathAndQuery, const std::function<bool(std::string_view line)>& onLine,
                          const std::atomic<bool>& stop) {
    return guarded(*impl_, "GET", pathAndQuery, [&] { return streamLines(*impl_, pathAndQuery, onLine, stop); });
}

}  // namespace trainer::core::kube
