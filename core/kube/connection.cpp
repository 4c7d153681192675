#include "core/kube/connection.hpp"

#include <boost/asio/ip/address.hpp>
#include <boost/beast/ssl.hpp>

#include <openssl/ssl.h>
#include <openssl/x509v3.h>
#include <poll.h>

#include <algorithm>

namespace trainer::core::kube {

namespace asio = boost::asio;
namespace beast = boost::beast;
using tcp = asio::ip::tcp;

namespace {

constexpr std::chrono::milliseconds kStopPoll{200};
constexpr std::chrono::milliseconds kUnboundedSlice{60000};

bool isIpAddress(const std::string& host) {
    boost::system::error_code ec;
    asio::ip::make_address(host, ec);
    return !ec;
}

}  // namespace

std::string OpResult::describe(const std::string& stage) const {
    if (ended == Ended::TimedOut) return stage + ": timed out";
    if (ended == Ended::Stopped) return stage + ": stopped";
    return stage + ": " + ec.message();
}

Connection::Connection(asio::ssl::context* tls) {
    if (tls)
        tls_ = std::make_unique<beast::ssl_stream<beast::tcp_stream>>(ioc_, *tls);
    else
        plain_ = std::make_unique<beast::tcp_stream>(ioc_);
}

Connection::~Connection() {
    boost::system::error_code ec;
    socket().close(ec);
}

tcp::socket& Connection::socket() { return tls_ ? beast::get_lowest_layer(*tls_).socket() : plain_->socket(); }

const tcp::socket& Connection::socket() const {
    return tls_ ? beast::get_lowest_layer(*tls_).socket() : plain_->socket();
}

template <class F>
void Connection::withStream(F&& f) {
    if (tls_)
        f(*tls_);
    else
        f(*plain_);
}

// Runs the io_context in slices until the operation completes, the deadline passes or `stop`
// is set; in the latter two cases the socket is closed and the aborted operation drained.
Ended Connection::waitFor(const bool& done, const Limits& limits) {
    while (!done) {
        std::chrono::steady_clock::duration slice = limits.stop ? kStopPoll : kUnboundedSlice;
        if (limits.deadline) {
            auto left = *limits.deadline - SteadyClock::now();
            if (left <= SteadyClock::duration::zero()) {
                abort();
                return Ended::TimedOut;
            }
            slice = std::min(slice, left);
        }
        ioc_.restart();
        ioc_.run_for(slice);
        if (!done && limits.stop && limits.stop->load()) {
            abort();
            return Ended::Stopped;
        }
    }
    return Ended::Done;
}

void Connection::abort() {
    boost::system::error_code ec;
    resolver_.cancel();
    socket().cancel(ec);
    socket().close(ec);
    ioc_.restart();
    ioc_.run();
    broken_ = true;
}

template <class Start>
OpResult Connection::run(Start&& start, const Limits& limits) {
    OpResult r;
    if (broken_) {
        r.ec = asio::error::not_connected;
        return r;
    }
    bool done = false;
    start([&r, &done](boost::system::error_code ec, auto&&...) {
        r.ec = ec;
        done = true;
    });
    r.ended = waitFor(done, limits);
    if (r.ec && r.ended == Ended::Done) broken_ = true;
    return r;
}

std::string Connection::open(const ServerUrl& url, const std::string& tlsName, bool verify, const Limits& limits) {
    std::string hostPort = url.host + ":" + url.port;
    tcp::resolver::results_type endpoints;
    auto r = run(
        [&](auto handler) {
            resolver_.async_resolve(url.host, url.port, [&endpoints, handler](boost::system::error_code ec, auto results) mutable {
                endpoints = results;
                handler(ec);
            });
        },
        limits);
    if (!r.ok()) return r.describe("dial tcp: lookup " + url.host);
    r = run([&](auto handler) { withStream([&](auto& s) { beast::get_lowest_layer(s).async_connect(endpoints, handler); }); },
            limits);
    if (!r.ok()) return r.describe("dial tcp " + hostPort);
    boost::system::error_code ignored;
    socket().set_option(tcp::no_delay(true), ignored);
    if (!tls_) return {};
    SSL* ssl = tls_->native_handle();
    bool ip = isIpAddress(tlsName);
    if (!ip) SSL_set_tlsext_host_name(ssl, tlsName.c_str());
    if (verify) {
        X509_VERIFY_PARAM* param = SSL_get0_param(ssl);
        if (ip) {
            X509_VERIFY_PARAM_set1_ip_asc(param, tlsName.c_str());
        } else {
            X509_VERIFY_PARAM_set_hostflags(param, X509_CHECK_FLAG_NO_PARTIAL_WILDCARDS);
            X509_VERIFY_PARAM_set1_host(param, tlsName.c_str(), 0);
        }
    }
    r = run([&](auto handler) { tls_->async_handshake(asio::ssl::stream_base::client, handler); }, limits);
    if (r.ok()) return {};
    long verdict = SSL_get_verify_result(ssl);
    if (verify && r.ended == Ended::Done && verdict != X509_V_OK)
        return std::string("tls: failed to verify certificate: ") + X509_verify_cert_error_string(verdict);
    return r.describe("tls handshake with " + hostPort);
}

OpResult Connection::write(http::request<http::string_body>& request, const Limits& limits) {
    return run([&](auto handler) { withStream([&](auto& s) { http::async_write(s, request, handler); }); }, limits);
}

OpResult Connection::readHeader(BufferParser& parser, const Limits& limits) {
    return run([&](auto handler) { withStream([&](auto& s) { http::async_read_header(s, buffer_, parser, handler); }); },
               limits);
}

OpResult Connection::readSome(BufferParser& parser, const Limits& limits) {
    return run([&](auto handler) { withStream([&](auto& s) { http::async_read_some(s, buffer_, parser, handler); }); },
               limits);
}

OpResult Connection::read(StringParser& parser, const Limits& limits) {
    return run([&](auto handler) { withStream([&](auto& s) { http::async_read(s, buffer_, parser, handler); }); }, limits);
}

bool Connection::reusable() const {
    if (broken_ || !socket().is_open() || buffer_.size() != 0) return false;
    pollfd p{};
    p.fd = const_cast<Connection*>(this)->socket().native_handle();
    p.events = POLLIN;
    return ::poll(&p, 1, 0) == 0;
}

}  // namespace trainer::core::kube
