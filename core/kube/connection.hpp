// One HTTP/1.1 connection to the API server, plain TCP or TLS, with its own io_context so every
// operation runs on the caller's thread. Each operation is bounded by a deadline and, for
// watches, a stop flag polled every 200 ms; either one ending an operation closes the socket,
// after which the connection must be dropped. Internal to the client (client.cpp).
#pragma once

#include "core/kube/server_url.hpp"

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl/context.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl/ssl_stream.hpp>

#include <atomic>
#include <chrono>
#include <memory>
#include <optional>
#include <string>

namespace trainer::core::kube {

namespace http = boost::beast::http;

using SteadyClock = std::chrono::steady_clock;

// What bounds one operation: no deadline and no stop flag means it runs until it completes.
struct Limits {
    std::optional<SteadyClock::time_point> deadline;
    const std::atomic<bool>* stop = nullptr;
};

enum class Ended { Done, TimedOut, Stopped };

struct OpResult {
    boost::system::error_code ec;
    Ended ended = Ended::Done;
    bool ok() const { return ended == Ended::Done && !ec; }
    // "<stage>: timed out" / "<stage>: stopped" / "<stage>: <error message>".
    std::string describe(const std::string& stage) const;
};

using StringParser = http::response_parser<http::string_body>;
using BufferParser = http::response_parser<http::buffer_body>;

class Connection {
public:
    // `tls` null: plain HTTP. The context must outlive the connection.
    explicit Connection(boost::asio::ssl::context* tls);
    ~Connection();
    Connection(const Connection&) = delete;
    Connection& operator=(const Connection&) = delete;

    // Resolves, connects and (TLS) handshakes, sending `tlsName` as SNI (unless an IP address)
    // and checking the certificate names it (DNS name or IP) when `verify`. Empty on success,
    // else why: "dial tcp 127.0.0.1:1: Connection refused", "tls: failed to verify certificate: ...".
    std::string open(const ServerUrl& url, const std::string& tlsName, bool verify, const Limits& limits);

    OpResult write(http::request<http::string_body>& request, const Limits& limits);
    OpResult readHeader(BufferParser& parser, const Limits& limits);
    OpResult readSome(BufferParser& parser, const Limits& limits);
    OpResult read(StringParser& parser, const Limits& limits);

    // An idle connection may be reused: open, nothing buffered, nothing (data or EOF) waiting.
    bool reusable() const;
    SteadyClock::time_point lastUsed = SteadyClock::now();

private:
    template <class Start>
    OpResult run(Start&& start, const Limits& limits);
    template <class F>
    void withStream(F&& f);
    Ended waitFor(const bool& done, const Limits& limits);
    void abort();
    boost::asio::ip::tcp::socket& socket();
    const boost::asio::ip::tcp::socket& socket() const;

    boost::asio::io_context ioc_;
    boost::asio::ip::tcp::resolver resolver_{ioc_};
    std::unique_ptr<boost::beast::tcp_stream> plain_;
    std::unique_ptr<boost::beast::ssl_stream<boost::beast::tcp_stream>> tls_;
    boost::beast::flat_buffer buffer_;
    bool broken_ = false;
};

}  // namespace trainer::core::kube
