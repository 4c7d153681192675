// A small HTTP/1.1 server (Boost.Beast) on a caller's io_context: a route table, plain or TLS,
// request limits, and an error response for every bad request without ever stopping serving.
#pragma once

#include <boost/asio/io_context.hpp>
#include <boost/asio/ssl/context.hpp>

#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace trainer::core::server {

class IoPool;

// One parsed request as handlers see it. Header names are lower-case.
struct Request {
    std::string method;  // "GET", "POST", ...
    std::string path;    // target without the query
    std::string query;   // after '?', without it
    std::vector<std::pair<std::string, std::string>> headers;
    std::string body;
    std::string remote;  // "ip:port"
    // First value of a header (name matched case-insensitively), or empty.
    std::string header(std::string_view name) const;
};

// A response body produced over time (a watch): the server sends the headers with chunked
// transfer encoding, then calls poll() from the connection's strand until it reports `done`,
// writing each non-empty `data` as one chunk and waiting `idle` between empty polls. poll() must
// not block. The stream is dropped (without another poll) when the client goes away or the server stops.
struct StreamChunk {
    std::string data;
    bool done = false;
};
class ResponseStream {
public:
    virtual ~ResponseStream() = default;
    virtual StreamChunk poll() = 0;
    virtual std::chrono::milliseconds idle() const { return std::chrono::milliseconds(50); }
    // Called once before the first poll with `wake`, which any thread may call when the stream
    // may have data: an idle wait in progress ends at once, and the next one is skipped (a watch
    // calls it on the store's commits, so an event does not wait out `idle`). The default ignores
    // it: the stream is polled every `idle`.
    virtual void setWaker(std::function<void()> wake) { (void)wake; }
};

// What a handler answers.
struct Response {
    unsigned status = 200;
    std::string contentType = "text/plain; charset=utf-8";
    std::string body;
    std::vector<std::pair<std::string, std::string>> headers;  // extra headers
    std::shared_ptr<ResponseStream> stream;                     // set: body is streamed, `body` unused
};

// Handlers run on the connection's strand and must not throw (a throw becomes a 500).
using Handler = std::function<Response(const Request&)>;

struct Route {
    std::string method;
    std::string path;  // exact match, or a prefix when `prefix`
    Handler handler;
    bool prefix = false;
    // For handlers that call plugin code (admission), which may hang; the connection waits,
    // every other request is served. With a connection pool (ServerOptions::connections): a
    // guarded call on the connection's thread, whose context a stand-in thread takes over if the
    // call runs long (core/server/io_pool.hpp). Without one: on the server's worker pool.
    bool offload = false;
};

// Answers a request the server itself refuses (404, 405, 413, 400, 500) in the caller's format.
using ErrorResponder = std::function<Response(unsigned status, const std::string& message)>;

// Parsed bind address: ":8081" (all interfaces), "127.0.0.1:8081", "[::1]:8081", "0" (disabled).
struct BindAddress {
    bool disabled = false;
    std::string host;  // empty = all interfaces
    unsigned short port = 0;
};
// Parses a bind address; returns an error message in `error` and nullopt when malformed.
std::optional<BindAddress> parseBindAddress(std::string_view text, std::string& error);

// Gives the TLS context for each new connection (may reload certificates); null = refuse.
using TlsProvider = std::function<std::shared_ptr<boost::asio::ssl::context>()>;

struct ServerOptions {
    std::string name = "http";       // for logs
    std::string bindAddress;          // see BindAddress
    std::size_t bodyLimit = 3 << 20;  // larger bodies get 413 (the API server's webhook limit)
    // TLS handshake, and each request header (also the wait for the next keep-alive request).
    std::chrono::milliseconds headerTimeout{10000};
    std::chrono::milliseconds bodyTimeout{30000};    // request body
    TlsProvider tls;                                  // empty = plain HTTP
    ErrorResponder errors;                            // empty = plain-text errors
    // The pool of `offload` routes of a server without a connection pool: this many threads,
    // and at most `workerQueue` requests waiting for one; a request beyond both gets 503 with a
    // message saying so.
    std::size_t workerThreads = 4;
    std::size_t workerQueue = 16;
    // Accepted connections run on this pool's contexts (core/server/io_pool.hpp), which must
    // outlive the server's connections, and so do `offload` routes' calls (guarded by the pool);
    // null: on strands of the server's io_context.
    IoPool* connections = nullptr;
};

// Serves `routes`: unknown path → 404, wrong method → 405, unparsable request → 400, body over the
// limit → 413, slow header → connection closed. start() binds synchronously; stop() closes the
// listener and every open connection. Handlers and the io_context may run on several threads;
// `offload` routes run as Route::offload says.
class HttpServer {
public:
    HttpServer(boost::asio::io_context& io, ServerOptions options, std::vector<Route> routes);
    ~HttpServer();
    HttpServer(const HttpServer&) = delete;
    HttpServer& operator=(const HttpServer&) = delete;

    // Binds and starts accepting; returns an error message, empty on success. A disabled bind
    // address ("0") succeeds without listening.
    std::string start();
    void stop();
    bool listening() const;
    // The bound port (useful with port 0); 0 when not listening.
    unsigned short port() const;

    struct Impl;

private:
    std::shared_ptr<Impl> impl_;
};

}  // namespace trainer::core::server
