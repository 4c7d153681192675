// The server's answers: upstream's badRequest writes a metav1.Status (no kind/apiVersion) with
// Go's json.Encoder, e.g. {"metadata":{},"status":"Failure","message":"Forbidden","reason":"Forbidden","code":403}
// (https://github.com/kubeflow/trainer/blob/master/pkg/statusserver/server.go).
#pragma once

#include "core/server/http.hpp"

#include <chrono>
#include <string_view>

namespace trainer::core::statusserver {

// A failure Status response with `code` as the HTTP status (application/json).
server::Response statusFailure(unsigned code, std::string_view reason, std::string_view message);

// 429 TooManyRequests with Retry-After and details.retryAfterSeconds, as the API server sends it.
server::Response tooManyRequests(std::chrono::seconds retryAfter);

// 200 with an application/json body.
server::Response okJson(std::string body);

// What the HTTP server itself refuses, in upstream's forms: 404 and 405 (ServeMux's catch-all
// route answers every unknown path and method) → Status 404 "Not found"; 413 → Status
// "Payload too large"; 500 → Status "Internal Server Error" (the recovery middleware); 400 and
// 431 → Go's plain-text "400 Bad Request" / "431 Request Header Fields Too Large".
server::Response serverRefusal(unsigned status, const std::string& message);

}  // namespace trainer::core::statusserver
