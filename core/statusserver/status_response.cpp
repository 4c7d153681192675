#include "core/statusserver/status_response.hpp"

#include "core/statusserver/go_json.hpp"

#include <string>

namespace trainer::core::statusserver {

namespace {

std::string statusJson(unsigned code, std::string_view reason, std::string_view message, std::string_view details) {
    std::string out = "{\"metadata\":{},\"status\":\"Failure\",\"message\":" + goQuote(message) +
                      ",\"reason\":" + goQuote(reason);
    if (!details.empty()) out += ",\"details\":" + std::string(details);
    return out + ",\"code\":" + std::to_string(code) + "}\n";
}

}  // namespace

server::Response statusFailure(unsigned code, std::string_view reason, std::string_view message) {
    server::Response r;
    r.status = code;
    r.contentType = "application/json";
    r.body = statusJson(code, reason, message, "");
    return r;
}

server::Response tooManyRequests(std::chrono::seconds retryAfter) {
    auto seconds = std::to_string(retryAfter.count());
    server::Response r;
    r.status = 429;
    r.contentType = "application/json";
    r.body = statusJson(429, "TooManyRequests", "Too many requests, please try again later.",
                        "{\"retryAfterSeconds\":" + seconds + "}");
    r.headers.emplace_back("Retry-After", seconds);
    return r;
}

server::Response okJson(std::string body) {
    server::Response r;
    r.status = 200;
    r.contentType = "application/json";
    r.body = std::move(body);
    return r;
}

server::Response serverRefusal(unsigned status, const std::string& message) {
    switch (status) {
        case 404:
        case 405: return statusFailure(404, "NotFound", "Not found");
        case 413: return statusFailure(413, "RequestEntityTooLarge", "Payload too large");
        case 500: return statusFailure(500, "InternalError", "Internal Server Error");
        case 400:
        case 431: {
            server::Response r;
            r.status = status;
            r.body = status == 400 ? "400 Bad Request" : "431 Request Header Fields Too Large";
            return r;
        }
        default: return statusFailure(status, "InternalError", message);
    }
}

}  // namespace trainer::core::statusserver
