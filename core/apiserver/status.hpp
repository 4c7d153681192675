// metav1.Status: how the API server reports every failure (and a successful delete of some
// kinds). One table maps each reason to its HTTP code, as k8s.io/apimachinery/pkg/api/errors does.
#pragma once

#include "core/api/errors.hpp"
#include "core/server/http.hpp"

#include <boost/json.hpp>

#include <string>
#include <string_view>

namespace trainer::core::apiserver {

namespace json = boost::json;

// metav1.StatusReason values this server answers with.
enum class Reason {
    BadRequest,
    Unauthorized,
    Forbidden,
    NotFound,
    AlreadyExists,
    Conflict,
    Gone,
    Expired,
    Invalid,
    MethodNotAllowed,
    NotAcceptable,
    RequestEntityTooLarge,
    UnsupportedMediaType,
    InternalError,
    ServiceUnavailable,
};

// "NotFound", ... and the HTTP code of a reason (NotFound 404, Invalid 422, ...).
std::string_view reasonName(Reason r);
unsigned reasonCode(Reason r);

// An API error: reason, message and optional details (kind, name, group, causes).
struct ApiError {
    Reason reason = Reason::InternalError;
    std::string message;
    json::object details;  // {"name","group","kind","causes":[{"reason","message","field"}]}
};

// The Status object of an error (`kind: Status`, `status: Failure`, reason, code, details).
json::object statusObject(const ApiError& e);
// A JSON response carrying it.
server::Response errorResponse(const ApiError& e);
// `{"kind":"Status","status":"Success",...}` as DELETE of some kinds answers.
json::object successStatus(json::object details);

// Errors named as apimachinery's constructors name them; `resource` is "trainjobs.trainer.kubeflow.org"
// or "configmaps" (the group resource), `name` the object.
ApiError notFound(std::string_view resource, std::string_view name);
ApiError alreadyExists(std::string_view resource, std::string_view name);
ApiError conflict(std::string_view resource, std::string_view name, std::string_view detail);
ApiError badRequest(std::string message);
ApiError internalError(std::string detail);
// 422: `<Kind>.<group> "<name>" is invalid: <path>: <message>, ...` with one cause per error.
ApiError invalid(std::string_view kind, std::string_view group, std::string_view name, const ErrorList& errors);
// 405 `the server does not allow this method on the requested resource`.
ApiError methodNotSupported();

// The field.Error rendering apimachinery uses: `<path>: Invalid value: ...` keeps our messages,
// which already carry the type prefix.
std::string joinErrors(const ErrorList& errors);

}  // namespace trainer::core::apiserver
