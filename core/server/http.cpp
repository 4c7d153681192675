#include "core/server/http.hpp"

#include "core/log/log.hpp"
#include "core/server/io_pool.hpp"

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ip/v6_only.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/ssl/stream.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>
#include <boost/asio/thread_pool.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>

#include <algorithm>
#include <array>
#include <atomic>
#include <cctype>
#include <charconv>
#include <map>
#include <mutex>

namespace trainer::core::server {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;

namespace {

constexpr auto kTuple = asio::as_tuple(asio::use_awaitable);
constexpr std::size_t kHeaderLimit = 16 * 1024;
// What a connection reads into from its first request on: a request of this size (an
// AdmissionReview, an API request) is read in one go, not in a run of growing reads.
constexpr std::size_t kReadBuffer = 8 * 1024;
constexpr std::size_t kDrainLimit = 8u << 20;
constexpr std::chrono::milliseconds kDrainTime{1000};

std::string lower(std::string_view s) {
    std::string out(s);
    std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return std::tolower(c); });
    return out;
}

// Parser errors that deserve an answer (the rest: the client went away or timed out).
struct ParseErrorStatus {
    http::error error;
    unsigned status;
    std::string_view message;
};
constexpr std::array<ParseErrorStatus, 3> kParseErrorStatus{{
    {http::error::body_limit, 413, "request body too large"},
    {http::error::header_limit, 431, "request header fields too large"},
    {http::error::buffer_overflow, 431, "request header fields too large"},
}};
// Errors that mean the peer closed or stalled: no answer, just close.
constexpr std::array<http::error, 3> kSilentHttpErrors{
    http::error::end_of_stream, http::error::partial_message, http::error::need_more};

// The status for a failed read, or 0 to close without answering.
unsigned statusForReadError(const beast::error_code& ec, std::string& message) {
    for (const auto& e : kParseErrorStatus)
        if (ec == e.error) {
            message = e.message;
            return e.status;
        }
    for (auto e : kSilentHttpErrors)
        if (ec == e) return 0;
    if (ec.category() == http::make_error_code(http::error::bad_target).category()) {
        message = "malformed HTTP request: " + ec.message();
        return 400;
    }
    return 0;
}

Response plainError(unsigned status, std::string message) {
    Response r;
    r.status = status;
    r.body = std::move(message) + "\n";
    return r;
}

}  // namespace

std::string Request::header(std::string_view name) const {
    auto want = lower(name);
    for (const auto& [k, v] : headers)
        if (k == want) return v;
    return {};
}

std::optional<BindAddress> parseBindAddress(std::string_view text, std::string& error) {
    BindAddress out;
    if (text == "0") {
        out.disabled = true;
        return out;
    }
    auto colon = text.rfind(':');
    if (colon == std::string_view::npos) {
        error = "bind address \"" + std::string(text) + "\" must be [host]:port or 0";
        return std::nullopt;
    }
    std::string_view host = text.substr(0, colon);
    std::string_view port = text.substr(colon + 1);
    if (host.size() >= 2 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
    unsigned value = 0;
    auto [end, ec] = std::from_chars(port.data(), port.data() + port.size(), value);
    if (port.empty() || ec != std::errc() || end != port.data() + port.size() || value > 65535) {
        error = "bind address \"" + std::string(text) + "\": invalid port \"" + std::string(port) + "\"";
        return std::nullopt;
    }
    out.host = std::string(host);
    out.port = static_cast<unsigned short>(value);
    return out;
}

// One accepted connection; the registry holds it weakly so stop() can close it.
struct Connection {
    explicit Connection(tcp::socket s) : stream(std::move(s)) {}
    beast::tcp_stream stream;
    void close() {
        beast::error_code ec;
        stream.socket().shutdown(tcp::socket::shutdown_both, ec);
        stream.socket().close(ec);
    }
};

struct HttpServer::Impl : std::enable_shared_from_this<HttpServer::Impl> {
    Impl(asio::io_context& io, ServerOptions o, std::vector<Route> r)
        : io(io), opts(std::move(o)), routes(std::move(r)), acceptor(asio::make_strand(io)),
          logger("http", {{"server", opts.name}}) {
        if (!opts.connections && std::any_of(routes.begin(), routes.end(), [](const Route& r) { return r.offload; }))
            workers = std::make_unique<asio::thread_pool>(std::max<std::size_t>(1, opts.workerThreads));
    }

    asio::io_context& io;
    ServerOptions opts;
    std::vector<Route> routes;
    tcp::acceptor acceptor;
    log::Logger logger;
    std::atomic<bool> stopped{false};
    std::atomic<bool> isListening{false};
    std::atomic<unsigned short> boundPort{0};
    std::mutex mu;
    uint64_t nextId = 0;
    std::map<uint64_t, std::weak_ptr<Connection>> connections;
    std::atomic<std::size_t> offloaded{0};  // requests running or waiting on `workers`
    // The pool of offload routes; the last member, so it is joined while the routes still live.
    std::unique_ptr<asio::thread_pool> workers;

    Response error(unsigned status, std::string message) const {
        return opts.errors ? opts.errors(status, message) : plainError(status, std::move(message));
    }

    static bool matches(const Route& r, const std::string& path) {
        return r.prefix ? path.compare(0, r.path.size(), r.path) == 0 : r.path == path;
    }

    Response dispatch(const Request& req) const {
        std::string allowed;
        for (const auto& r : routes) {
            if (!matches(r, req.path)) continue;
            if (r.method == req.method) {
                try {
                    return r.handler(req);
                } catch (const std::exception& e) {
                    logger.error("handler failed", {{"path", req.path}, {"error", e.what()}});
                } catch (...) {
                    logger.error("handler failed", {{"path", req.path}});
                }
                return error(500, "internal error");
            }
            allowed += (allowed.empty() ? "" : ", ") + r.method;
        }
        if (allowed.empty()) return error(404, "404 page not found");
        auto res = error(405, "method " + req.method + " not allowed");
        res.headers.emplace_back("Allow", allowed);
        return res;
    }

    bool offloads(const Request& req) const {
        return std::any_of(routes.begin(), routes.end(),
                           [&](const Route& r) { return r.offload && r.method == req.method && matches(r, req.path); });
    }

    // The request's answer: for an offload route, a guarded call here when the server has a
    // connection pool, else computed on the worker pool (503 when the pool and its queue are
    // full); any other here, on the connection's strand. `req` may be moved from.
    asio::awaitable<Response> answer(Request& req) {
        if (!offloads(req)) co_return dispatch(req);
        if (opts.connections) co_return co_await guarded(req);
        const std::size_t limit = std::max<std::size_t>(1, opts.workerThreads) + opts.workerQueue;
        if (offloaded.fetch_add(1) >= limit) {
            offloaded.fetch_sub(1);
            logger.warn("worker pool full; refusing the request", {{"path", req.path}, {"limit", limit}});
            co_return error(503, "the server is busy: " + std::to_string(limit) +
                                     " requests that run plugin code are running or waiting; retry later");
        }
        auto shared = std::make_shared<const Request>(std::move(req));
        co_return co_await asio::co_spawn(workers->get_executor(), offloadedCall(shared), asio::use_awaitable);
    }

    // One offload route's call on the connection's own thread, guarded by its pool
    // (core/server/io_pool.hpp): when a stand-in took over meanwhile, the connection goes on on
    // the stand-in's thread, and this one leaves the pool.
    asio::awaitable<Response> guarded(const Request& req) {
        const auto call = opts.connections->begin();
        Response r = dispatch(req);
        if (opts.connections->end(call) == IoPool::Ended::Replaced)
            co_await asio::post(co_await asio::this_coro::executor, asio::use_awaitable);
        co_return r;
    }

    // One offload route's call, on a worker (a shared_ptr parameter, no lambda captures: the
    // request outlives the call whatever happens to the connection).
    asio::awaitable<Response> offloadedCall(std::shared_ptr<const Request> req) {
        Response r = dispatch(*req);
        offloaded.fetch_sub(1);
        co_return r;
    }

    template <class Stream>
    asio::awaitable<beast::error_code> write(Stream& s, Connection& c, Response r, unsigned version, bool keepAlive) {
        http::response<http::string_body> res{static_cast<http::status>(r.status), version};
        res.set(http::field::server, "trainer-operator");
        res.set(http::field::content_type, r.contentType);
        for (const auto& [k, v] : r.headers) res.set(k, v);
        res.body() = std::move(r.body);
        res.keep_alive(keepAlive);
        res.prepare_payload();
        c.stream.expires_after(opts.bodyTimeout);
        auto [ec, n] = co_await http::async_write(s, res, kTuple);
        co_return ec;
    }

    // Sends a streamed body as chunks until the stream is done, the peer fails or the server stops.
    template <class Stream>
    asio::awaitable<beast::error_code> writeStream(Stream& s, Connection& c, const Response& r, unsigned version) {
        http::response<http::empty_body> res{static_cast<http::status>(r.status), version};
        res.set(http::field::server, "trainer-operator");
        res.set(http::field::content_type, r.contentType);
        for (const auto& [k, v] : r.headers) res.set(k, v);
        res.chunked(true);
        res.keep_alive(false);
        http::response_serializer<http::empty_body> sr{res};
        c.stream.expires_after(opts.bodyTimeout);
        auto [hec, hn] = co_await http::async_write_header(s, sr, kTuple);
        if (hec) co_return hec;
        asio::steady_timer timer(c.stream.get_executor());
        // The stream's waker: sets `woken` and cancels the idle wait on the connection's strand;
        // `timer` is cleared (on the strand) before it goes, so a late wake touches nothing.
        struct Wake {
            std::atomic<bool> woken{false};
            asio::steady_timer* timer = nullptr;
        };
        auto wake = std::make_shared<Wake>();
        wake->timer = &timer;
        r.stream->setWaker([wake, ex = c.stream.get_executor()] {
            wake->woken = true;
            asio::post(ex, [wake] {
                if (wake->timer) wake->timer->cancel();
            });
        });
        struct Forget {
            Wake& w;
            ~Forget() { w.timer = nullptr; }
        } forget{*wake};
        while (!stopped) {
            StreamChunk chunk = r.stream->poll();
            if (!chunk.data.empty()) {
                c.stream.expires_after(opts.bodyTimeout);
                auto [wec, wn] = co_await asio::async_write(s, http::make_chunk(asio::buffer(chunk.data)), kTuple);
                if (wec) co_return wec;
            }
            if (chunk.done) break;
            if (chunk.data.empty() && !wake->woken.exchange(false)) {
                timer.expires_after(r.stream->idle());
                co_await timer.async_wait(kTuple);
                wake->woken = false;  // the poll that follows sees what woke it
            }
        }
        c.stream.expires_after(opts.bodyTimeout);
        auto [lec, ln] = co_await asio::async_write(s, http::make_chunk_last(), kTuple);
        co_return lec;
    }

    // Answers an unreadable request, then reads and discards what the client still sends so it
    // sees the answer instead of a reset.
    template <class Stream>
    asio::awaitable<void> refuse(Stream& s, Connection& c, unsigned status, std::string message, bool plain) {
        co_await write(s, c, error(status, std::move(message)), 11, false);
        beast::error_code ec;
        if (plain) c.stream.socket().shutdown(tcp::socket::shutdown_send, ec);
        c.stream.expires_after(kDrainTime);
        std::array<char, 16384> sink{};
        for (std::size_t total = 0; total < kDrainLimit;) {
            auto [rec, n] = co_await s.async_read_some(asio::buffer(sink), kTuple);
            if (rec) break;
            total += n;
        }
    }

    // "ip:port" of the connection's peer, or empty when the socket cannot say (read once: it
    // does not change while the connection lives).
    static std::string peerOf(Connection& c) {
        beast::error_code ec;
        auto ep = c.stream.socket().remote_endpoint(ec);
        return ec ? std::string() : ep.address().to_string() + ":" + std::to_string(ep.port());
    }

    template <class Stream>
    asio::awaitable<void> serve(Stream& s, Connection& c, bool plain) {
        beast::flat_buffer buffer;
        buffer.reserve(kReadBuffer);
        const std::string remote = peerOf(c);
        for (;;) {
            http::request_parser<http::string_body> parser;
            parser.body_limit(opts.bodyLimit);
            parser.header_limit(kHeaderLimit);
            c.stream.expires_after(opts.headerTimeout);
            auto [hec, hn] = co_await http::async_read_header(s, buffer, parser, kTuple);
            std::string message;
            if (hec) {
                if (unsigned status = statusForReadError(hec, message)) {
                    logger.debug("refused request", {{"status", status}, {"reason", message}});
                    co_await refuse(s, c, status, message, plain);
                }
                co_return;
            }
            if (lower(parser.get()[http::field::expect]) == "100-continue" && !parser.is_done()) {
                http::response<http::empty_body> cont{http::status::continue_, 11};
                c.stream.expires_after(opts.bodyTimeout);
                auto [cec, cn] = co_await http::async_write(s, cont, kTuple);
                if (cec) co_return;
            }
            c.stream.expires_after(opts.bodyTimeout);
            auto [bec, bn] = co_await http::async_read(s, buffer, parser, kTuple);
            if (bec) {
                if (unsigned status = statusForReadError(bec, message)) {
                    logger.debug("refused request", {{"status", status}, {"reason", message}});
                    co_await refuse(s, c, status, message, plain);
                }
                co_return;
            }
            auto msg = parser.release();
            Request req;
            req.method = std::string(msg.method_string());
            std::string_view target = msg.target();
            auto q = target.find('?');
            req.path = std::string(target.substr(0, q));
            if (q != std::string_view::npos) req.query = std::string(target.substr(q + 1));
            for (const auto& f : msg) req.headers.emplace_back(lower(f.name_string()), std::string(f.value()));
            req.body = std::move(msg.body());
            req.remote = remote;
            if (stopped) co_return;
            Response res = co_await answer(req);
            if (res.stream) {
                co_await writeStream(s, c, res, msg.version());
                co_return;
            }
            bool keepAlive = msg.keep_alive() && !stopped;
            auto wec = co_await write(s, c, std::move(res), msg.version(), keepAlive);
            if (wec || !keepAlive) co_return;
        }
    }

    asio::awaitable<void> session(std::shared_ptr<Connection> c) {
        auto self = shared_from_this();
        try {
            if (opts.tls) {
                auto ctx = opts.tls();
                if (!ctx) {
                    logger.error("no TLS certificate available; closing connection");
                } else {
                    asio::ssl::stream<beast::tcp_stream&> tls(c->stream, *ctx);
                    c->stream.expires_after(opts.headerTimeout);
                    auto [ec] = co_await tls.async_handshake(asio::ssl::stream_base::server, kTuple);
                    if (ec) {
                        logger.debug("TLS handshake failed", {{"error", ec.message()}});
                    } else {
                        co_await serve(tls, *c, false);
                        c->stream.expires_after(kDrainTime);
                        co_await tls.async_shutdown(kTuple);
                    }
                }
            } else {
                co_await serve(c->stream, *c, true);
            }
        } catch (const std::exception& e) {
            logger.error("connection failed", {{"error", e.what()}});
        } catch (...) {
            logger.error("connection failed");
        }
        c->close();
    }

    // The executor a new connection is accepted on: a strand of its own, unless the server has a
    // connection pool, whose context it then moves to (onItsContext).
    asio::any_io_executor acceptExecutor() {
        if (opts.connections) return io.get_executor();
        return asio::make_strand(io);
    }

    // An accepted socket on the next context of the connection pool (its one thread orders the
    // connection's handlers). Accepted on `io` and moved after: the accept that is pending when
    // `io` stops holds no socket of a pool's context, which may be gone before `io` is.
    std::optional<tcp::socket> onItsContext(tcp::socket s) {
        if (!opts.connections) return s;
        beast::error_code ec;
        const auto protocol = s.local_endpoint(ec).protocol();
        if (!ec) {
            auto fd = s.release(ec);
            if (!ec) return tcp::socket(opts.connections->next(), protocol, fd);
        }
        logger.error("accepted connection dropped", {{"error", ec.message()}});
        return std::nullopt;
    }

    asio::awaitable<void> acceptLoop() {
        auto self = shared_from_this();
        asio::steady_timer backoff(acceptor.get_executor());
        while (!stopped) {
            auto [ec, accepted] = co_await acceptor.async_accept(acceptExecutor(), kTuple);
            if (stopped || ec == asio::error::operation_aborted) break;
            if (ec) {  // e.g. out of file descriptors: wait a little and keep serving
                logger.error("accept failed", {{"error", ec.message()}});
                backoff.expires_after(std::chrono::milliseconds(50));
                co_await backoff.async_wait(kTuple);
                continue;
            }
            auto socket = onItsContext(std::move(accepted));
            if (!socket) continue;
            auto c = std::make_shared<Connection>(std::move(*socket));
            {
                std::lock_guard lock(mu);
                std::erase_if(connections, [](const auto& kv) { return kv.second.expired(); });
                connections.emplace(nextId++, c);
            }
            asio::co_spawn(c->stream.get_executor(), session(c), asio::detached);
        }
        isListening = false;
    }

    std::string start() {
        std::string error;
        auto bind = parseBindAddress(opts.bindAddress, error);
        if (!bind) return error;
        if (bind->disabled) return {};
        try {
            tcp::endpoint ep;
            if (bind->host.empty()) {
                ep = tcp::endpoint(tcp::v6(), bind->port);
            } else {
                tcp::resolver resolver(io);
                auto results = resolver.resolve(bind->host, std::to_string(bind->port),
                                                tcp::resolver::passive | tcp::resolver::numeric_service);
                if (results.empty()) return "cannot resolve \"" + bind->host + "\"";
                ep = results.begin()->endpoint();
            }
            beast::error_code ec;
            acceptor.open(ep.protocol(), ec);
            if (ec && bind->host.empty()) {  // no IPv6: all IPv4 interfaces
                ep = tcp::endpoint(tcp::v4(), bind->port);
                ec = {};
                acceptor.open(ep.protocol(), ec);
            }
            if (ec) return "listen on " + opts.bindAddress + ": " + ec.message();
            if (ep.protocol() == tcp::v6() && bind->host.empty()) acceptor.set_option(asio::ip::v6_only(false), ec);
            acceptor.set_option(asio::socket_base::reuse_address(true));
            acceptor.bind(ep);
            acceptor.listen(asio::socket_base::max_listen_connections);
            boundPort = acceptor.local_endpoint().port();
        } catch (const std::exception& e) {
            beast::error_code ignored;
            acceptor.close(ignored);
            return "listen on " + opts.bindAddress + ": " + e.what();
        }
        isListening = true;
        asio::co_spawn(acceptor.get_executor(), acceptLoop(), asio::detached);
        logger.info("serving", {{"address", opts.bindAddress}, {"port", boundPort.load()},
                                {"tls", static_cast<bool>(opts.tls)}});
        return {};
    }

    void stop() {
        if (stopped.exchange(true)) return;
        auto self = shared_from_this();
        asio::post(acceptor.get_executor(), [self] {
            beast::error_code ec;
            self->acceptor.close(ec);
            self->isListening = false;
        });
        std::lock_guard lock(mu);
        for (auto& [id, weak] : connections)
            if (auto c = weak.lock()) asio::post(c->stream.get_executor(), [c] { c->close(); });
        connections.clear();
    }
};

HttpServer::HttpServer(asio::io_context& io, ServerOptions options, std::vector<Route> routes)
    : impl_(std::make_shared<Impl>(io, std::move(options), std::move(routes))) {}

HttpServer::~HttpServer() { impl_->stop(); }

std::string HttpServer::start() { return impl_->start(); }
void HttpServer::stop() { impl_->stop(); }
bool HttpServer::listening() const { return impl_->isListening; }
unsigned short HttpServer::port() const { return impl_->isListening ? impl_->boundPort.load() : 0; }

}  // namespace trainer::core::server
