// A tiny scripted HTTP/1.1 server for the client tests (Boost.Beast, blocking, a thread per
// connection) on 127.0.0.x:0, plain TCP or TLS with a test certificate. Each request is handed
// to a script that writes raw response bytes (so it can answer garbage, close mid-body or
// stream slowly) and says whether to keep the connection.
#pragma once

#include "kube_test_util.hpp"

#include <boost/asio.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>

#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <sys/socket.h>

#include <atomic>
#include <functional>
#include <list>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace trainer::test::kube {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace bhttp = boost::beast::http;

// One request as the server saw it.
struct Seen {
    std::string method, target, host, authorization, userAgent, accept, contentType, body;
};

// Writes `bytes` to the client (errors ignored: the client may be gone).
using Send = std::function<void(std::string_view bytes)>;
// Answers request number `index` (0-based over the server's life); true keeps the connection open.
using Script = std::function<bool(const Seen& request, int index, const Send& send)>;

struct TestServerOptions {
    bool tls = true;
    std::string address = "127.0.0.1";
    bool requestClientCert = false;
};

// A complete response with a Content-Length body.
inline std::string response(unsigned status, const std::string& reason, const std::string& body,
                            const std::string& extraHeaders = "") {
    return "HTTP/1.1 " + std::to_string(status) + " " + reason + "\r\nContent-Type: application/json\r\n" + extraHeaders +
           "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body;
}

class TestServer {
public:
    TestServer(const Pki& pki, Script script, TestServerOptions options = {})
        : script_(std::move(script)), options_(std::move(options)), tls_(asio::ssl::context::tls_server) {
        if (options_.tls) {
            tls_.use_certificate_chain(asio::buffer(pki.cert));
            tls_.use_private_key(asio::buffer(pki.key), asio::ssl::context::pem);
            if (options_.requestClientCert) {
                // Any client certificate is accepted; the test compares it with the one configured.
                tls_.set_verify_mode(asio::ssl::verify_peer);
                tls_.set_verify_callback([](bool, asio::ssl::verify_context&) { return true; });
            }
        }
        acceptor_.open(asio::ip::tcp::v4());
        acceptor_.set_option(asio::socket_base::reuse_address(true));
        acceptor_.bind({asio::ip::make_address(options_.address), 0});
        acceptor_.listen();
        port_ = acceptor_.local_endpoint().port();
        acceptThread_ = std::thread([this] { acceptLoop(); });
    }

    ~TestServer() {
        stopping_ = true;
        {
            asio::io_context wake;
            asio::ip::tcp::socket s(wake);
            boost::system::error_code ec;
            s.connect({asio::ip::make_address(options_.address), port_}, ec);
        }
        acceptThread_.join();
        {
            std::lock_guard lock(mu_);
            for (auto& s : open_) ::shutdown(s->native_handle(), SHUT_RDWR);
        }
        for (auto& t : workers_) t.join();
    }

    TestServer(const TestServer&) = delete;
    TestServer& operator=(const TestServer&) = delete;

    std::string url() const { return std::string(options_.tls ? "https://" : "http://") + options_.address + ":" + std::to_string(port_); }
    unsigned short port() const { return port_; }
    int connections() const { return connections_; }
    // Connections the server has shut down (its close is on the wire).
    int closed() const { return closed_; }
    std::vector<Seen> seen() const {
        std::lock_guard lock(mu_);
        return seen_;
    }
    int requests() const { return static_cast<int>(seen().size()); }
    // The DER of the last client certificate presented, empty when none.
    std::string clientCertDer() const {
        std::lock_guard lock(mu_);
        return clientCert_;
    }

private:
    void acceptLoop() {
        while (true) {
            auto sock = std::make_shared<asio::ip::tcp::socket>(io_);
            boost::system::error_code ec;
            acceptor_.accept(*sock, ec);
            if (stopping_) return;
            if (ec) continue;
            ++connections_;
            std::lock_guard lock(mu_);
            open_.push_back(sock);
            workers_.emplace_back([this, sock] { serveConnection(*sock); });
        }
    }

    void serveConnection(asio::ip::tcp::socket& sock) {
        boost::system::error_code ec;
        if (!options_.tls) {
            serve(sock);
        } else {
            asio::ssl::stream<asio::ip::tcp::socket&> s(sock, tls_);
            s.handshake(asio::ssl::stream_base::server, ec);
            if (!ec) {
                recordClientCert(s.native_handle());
                serve(s);
            }
        }
        ::shutdown(sock.native_handle(), SHUT_RDWR);
        ++closed_;
    }

    void recordClientCert(SSL* ssl) {
        X509* cert = SSL_get1_peer_certificate(ssl);
        if (!cert) return;
        unsigned char* der = nullptr;
        int n = i2d_X509(cert, &der);
        std::lock_guard lock(mu_);
        clientCert_.assign(reinterpret_cast<char*>(der), static_cast<std::size_t>(n > 0 ? n : 0));
        OPENSSL_free(der);
        X509_free(cert);
    }

    template <class Stream>
    void serve(Stream& s) {
        beast::flat_buffer buffer;
        while (!stopping_) {
            bhttp::request<bhttp::string_body> req;
            boost::system::error_code ec;
            bhttp::read(s, buffer, req, ec);
            if (ec) return;
            auto field = [&](bhttp::field f) { return std::string(req[f]); };
            Seen seen{std::string(req.method_string()), std::string(req.target()), field(bhttp::field::host),
                      field(bhttp::field::authorization), field(bhttp::field::user_agent), field(bhttp::field::accept),
                      field(bhttp::field::content_type), req.body()};
            int index;
            {
                std::lock_guard lock(mu_);
                index = static_cast<int>(seen_.size());
                seen_.push_back(seen);
            }
            Send send = [&](std::string_view bytes) {
                boost::system::error_code ignored;
                asio::write(s, asio::buffer(bytes.data(), bytes.size()), ignored);
            };
            if (!script_(seen, index, send)) return;
        }
    }

    Script script_;
    TestServerOptions options_;
    asio::ssl::context tls_;
    asio::io_context io_;
    asio::ip::tcp::acceptor acceptor_{io_};
    unsigned short port_ = 0;
    std::atomic<bool> stopping_{false};
    std::atomic<int> connections_{0};
    std::atomic<int> closed_{0};
    mutable std::mutex mu_;
    std::vector<Seen> seen_;
    std::string clientCert_;
    std::vector<std::shared_ptr<asio::ip::tcp::socket>> open_;  // kept open until the server goes
    std::list<std::thread> workers_;
    std::thread acceptThread_;
};

}  // namespace trainer::test::kube
