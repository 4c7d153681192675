// The TrainJob status server (upstream's TrainJobStatus feature, alpha): training processes POST
// their progress to
//   /apis/trainer.kubeflow.org/v1alpha1/namespaces/<ns>/trainjobs/<name>/status
// over HTTPS with a bearer token, and the server writes status.trainerStatus of that TrainJob.
// Upstream: https://github.com/kubeflow/trainer/blob/master/pkg/statusserver/ (server.go,
// middleware.go, setup.go, auth.go); what each request gets is listed in core/statusserver/README.md.
#pragma once

#include "core/auth/token_authorizer.hpp"
#include "core/controller/clock.hpp"
#include "core/server/http.hpp"
#include "core/store/store.hpp"

#include <boost/asio/io_context.hpp>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

namespace trainer::core::statusserver {

struct StatusServerOptions {
    // Where to listen (core/server/http.hpp BindAddress): upstream's `statusServer.port` on all
    // interfaces; "0" disables the server.
    std::string bindAddress = ":10443";
    // The write budget (Configuration statusServer.qps / burst; client-go's rules: qps 0 → 5,
    // burst 0 → 10, qps < 0 → unlimited). A write over it is answered 429 with Retry-After.
    double qps = 5;
    int64_t burst = 10;
    // Request body limit (upstream's maxBodySize, 64 KiB): larger bodies get 413.
    std::size_t bodyLimit = std::size_t{1} << 16;
    // A slow client is dropped: TLS handshake and each request header within headerTimeout (also
    // the wait for the next keep-alive request), the body within bodyTimeout (upstream: 10 s
    // ReadTimeout).
    std::chrono::milliseconds headerTimeout{10000};
    std::chrono::milliseconds bodyTimeout{10000};
    // The serving certificate (upstream reuses the webhook's); required.
    server::TlsProvider tls;
    // The rate limiter's time; null = the real clock. Must outlive the server.
    const controller::Clock* clock = nullptr;
    // Store writes tried per request when the TrainJob changes underneath (Conflict).
    int maxWriteAttempts = 5;
};

class StatusServer {
public:
    // `store` and `authorizer` must outlive the server and every request it is serving (stop()
    // it and let the io_context finish before destroying them).
    StatusServer(boost::asio::io_context& io, Store& store, auth::TokenAuthorizer& authorizer,
                 StatusServerOptions options = {});
    ~StatusServer();
    StatusServer(const StatusServer&) = delete;
    StatusServer& operator=(const StatusServer&) = delete;

    // Binds and serves; an error message (no TLS provider, bad bind address, port in use), empty
    // on success. Serves on every replica (upstream: NeedLeaderElection false).
    std::string start();
    void stop();
    bool listening() const;
    unsigned short port() const;  // the bound port (0 when not listening)

    // Answers one request as the server does (what the route calls; for tests without sockets).
    server::Response handle(const server::Request& request) const;

    struct State;

private:
    std::shared_ptr<State> state_;
    std::unique_ptr<server::HttpServer> http_;
};

}  // namespace trainer::core::statusserver
