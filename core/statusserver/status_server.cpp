#include "core/statusserver/status_server.hpp"

#include "core/log/log.hpp"
#include "core/statusserver/bearer_token.hpp"
#include "core/statusserver/status_path.hpp"
#include "core/statusserver/status_response.hpp"
#include "core/statusserver/token_bucket.hpp"
#include "core/statusserver/trainer_status_writer.hpp"
#include "core/statusserver/update_request.hpp"

namespace trainer::core::statusserver {

struct StatusServer::State {
    State(Store& s, auth::TokenAuthorizer& a, StatusServerOptions o)
        : store(s), authorizer(a), options(std::move(o)),
          bucket(options.qps, options.burst, options.clock ? *options.clock : realClock) {}

    Store& store;
    auth::TokenAuthorizer& authorizer;
    StatusServerOptions options;
    controller::RealClock realClock;
    TokenBucket bucket;
    log::Logger logger{"runtime-status"};

    server::Response handle(const server::Request& req);
    // Authentication: nullopt when allowed, else the answer (403, or 500 when undecided).
    std::optional<server::Response> authorize(const server::Request& req, const StatusTarget& t);
    server::Response write(const StatusTarget& t, const UpdateRequest& update);
};

std::optional<server::Response> StatusServer::State::authorize(const server::Request& req, const StatusTarget& t) {
    std::string token = extractRawToken(req.header("authorization"));
    if (token.empty()) {
        logger.debug("refused status update: no bearer token", {{"namespace", t.ns}, {"name", t.name}});
        return statusFailure(403, "Forbidden", "Forbidden");
    }
    auto r = authorizer.authorize(token, t.ns, t.name);
    if (r.outcome == auth::AuthorizeOutcome::Allowed) return std::nullopt;
    if (r.outcome == auth::AuthorizeOutcome::Denied) {
        logger.debug("refused status update: token denied",
                     {{"namespace", t.ns}, {"name", t.name}, {"reason", r.reason}, {"remote", req.remote}});
        return statusFailure(403, "Forbidden", "Forbidden");
    }
    logger.error("could not authorize status update", {{"namespace", t.ns}, {"name", t.name}, {"error", r.reason}});
    return statusFailure(500, "InternalError", "Internal error");
}

server::Response StatusServer::State::write(const StatusTarget& t, const UpdateRequest& update) {
    if (auto d = bucket.take(); !d.allowed) {
        logger.debug("status update rate-limited", {{"namespace", t.ns}, {"name", t.name}});
        return tooManyRequests(d.retryAfter);
    }
    auto r = writeTrainerStatus(store, t.ns, t.name, trainerStatusObject(*update.trainerStatus), options.maxWriteAttempts);
    switch (r.outcome) {
        case WriteOutcome::Written: return okJson(encodeUpdateRequest(update));
        case WriteOutcome::NotFound: return statusFailure(404, "NotFound", "Train job not found");
        case WriteOutcome::Invalid: return statusFailure(422, "Invalid", r.message);
        case WriteOutcome::Error: break;
    }
    logger.error("Failed to update TrainJob", {{"namespace", t.ns}, {"name", t.name}, {"error", r.message}});
    return statusFailure(500, "InternalError", "Internal error");
}

server::Response StatusServer::State::handle(const server::Request& req) {
    auto path = matchStatusPath(req.path);
    if (path.match == PathMatch::BadEscape) return serverRefusal(400, "invalid URL escape");
    if (path.match == PathMatch::NoMatch || req.method != "POST") return serverRefusal(404, "not found");
    const StatusTarget& t = path.target;
    if (auto refused = authorize(req, t)) return *refused;
    auto decoded = decodeUpdateRequest(req.body);
    if (!decoded.request) {
        logger.debug("Failed to parse runtime status", {{"namespace", t.ns}, {"name", t.name}, {"error", decoded.error}});
        return statusFailure(422, "Invalid", "Invalid payload");
    }
    // No trainerStatus: nothing to write, the (empty) request is echoed.
    if (!decoded.request->trainerStatus) return okJson(encodeUpdateRequest(*decoded.request));
    return write(t, *decoded.request);
}

StatusServer::StatusServer(boost::asio::io_context& io, Store& store, auth::TokenAuthorizer& authorizer,
                           StatusServerOptions options)
    : state_(std::make_shared<State>(store, authorizer, std::move(options))) {
    server::ServerOptions so;
    so.name = "status-server";
    so.bindAddress = state_->options.bindAddress;
    so.bodyLimit = state_->options.bodyLimit;
    so.headerTimeout = state_->options.headerTimeout;
    so.bodyTimeout = state_->options.bodyTimeout;
    so.tls = state_->options.tls;
    so.errors = serverRefusal;
    // One catch-all route per usual method (upstream's ServeMux "/" pattern answers any path and
    // method 404); the handler picks out POST on the status path.
    std::vector<server::Route> routes;
    auto state = state_;
    for (const char* method : {"GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"})
        routes.push_back({method, "/", [state](const server::Request& r) { return state->handle(r); }, true});
    http_ = std::make_unique<server::HttpServer>(io, std::move(so), std::move(routes));
}

StatusServer::~StatusServer() { stop(); }

std::string StatusServer::start() {
    if (!state_->options.tls) return "status server: a TLS certificate is required (it serves HTTPS only)";
    auto error = http_->start();
    return error.empty() ? error : "status server: " + error;
}

void StatusServer::stop() { http_->stop(); }
bool StatusServer::listening() const { return http_->listening(); }
unsigned short StatusServer::port() const { return http_->port(); }

server::Response StatusServer::handle(const server::Request& request) const { return state_->handle(request); }

}  // namespace trainer::core::statusserver
