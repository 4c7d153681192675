#include "core/apiserver/status.hpp"

#include <array>

namespace trainer::core::apiserver {

namespace {

struct ReasonRow {
    Reason reason;
    std::string_view name;
    unsigned code;
};

constexpr std::array<ReasonRow, 15> kReasons{{
    {Reason::BadRequest, "BadRequest", 400},
    {Reason::Unauthorized, "Unauthorized", 401},
    {Reason::Forbidden, "Forbidden", 403},
    {Reason::NotFound, "NotFound", 404},
    {Reason::AlreadyExists, "AlreadyExists", 409},
    {Reason::Conflict, "Conflict", 409},
    {Reason::Gone, "Gone", 410},
    {Reason::Expired, "Expired", 410},
    {Reason::Invalid, "Invalid", 422},
    {Reason::MethodNotAllowed, "MethodNotAllowed", 405},
    {Reason::NotAcceptable, "NotAcceptable", 406},
    {Reason::RequestEntityTooLarge, "RequestEntityTooLarge", 413},
    {Reason::UnsupportedMediaType, "UnsupportedMediaType", 415},
    {Reason::InternalError, "InternalError", 500},
    {Reason::ServiceUnavailable, "ServiceUnavailable", 503},
}};

const ReasonRow& row(Reason r) {
    for (auto const& x : kReasons)
        if (x.reason == r) return x;
    return kReasons[13];
}

// field.ErrorType -> metav1.CauseType, as field.Error.Type.String() maps them.
std::string_view causeType(ErrorType t) {
    switch (t) {
    case ErrorType::Required: return "FieldValueRequired";
    case ErrorType::Forbidden: return "FieldValueForbidden";
    case ErrorType::NotSupported: return "FieldValueNotSupported";
    case ErrorType::Duplicate: return "FieldValueDuplicate";
    case ErrorType::TooLong: return "FieldValueTooLong";
    case ErrorType::TooMany: return "FieldValueTooMany";
    case ErrorType::TypeInvalid: return "FieldValueTypeInvalid";
    case ErrorType::Internal: return "InternalError";
    case ErrorType::Invalid: break;
    }
    return "FieldValueInvalid";
}

std::string quoted(std::string_view s) { return "\"" + std::string(s) + "\""; }

}  // namespace

std::string_view reasonName(Reason r) { return row(r).name; }
unsigned reasonCode(Reason r) { return row(r).code; }

json::object statusObject(const ApiError& e) {
    json::object s{{"kind", "Status"}, {"apiVersion", "v1"}, {"metadata", json::object{}}, {"status", "Failure"},
                   {"message", e.message}, {"reason", reasonName(e.reason)}};
    if (!e.details.empty()) s["details"] = e.details;
    s["code"] = reasonCode(e.reason);
    return s;
}

server::Response errorResponse(const ApiError& e) {
    server::Response r;
    r.status = reasonCode(e.reason);
    r.contentType = "application/json";
    r.body = json::serialize(statusObject(e));
    return r;
}

json::object successStatus(json::object details) {
    json::object s{{"kind", "Status"}, {"apiVersion", "v1"}, {"metadata", json::object{}}, {"status", "Success"}};
    if (!details.empty()) s["details"] = std::move(details);
    return s;
}

namespace {
// Splits "trainjobs.trainer.kubeflow.org" into {"trainjobs", "trainer.kubeflow.org"}.
std::pair<std::string, std::string> splitResource(std::string_view resource) {
    auto dot = resource.find('.');
    if (dot == std::string_view::npos) return {std::string(resource), ""};
    return {std::string(resource.substr(0, dot)), std::string(resource.substr(dot + 1))};
}

json::object nameDetails(std::string_view resource, std::string_view name) {
    auto [plural, group] = splitResource(resource);
    json::object d{{"name", name}};
    if (!group.empty()) d["group"] = group;
    d["kind"] = plural;
    return d;
}
}  // namespace

ApiError notFound(std::string_view resource, std::string_view name) {
    return {Reason::NotFound, std::string(resource) + " " + quoted(name) + " not found", nameDetails(resource, name)};
}

ApiError alreadyExists(std::string_view resource, std::string_view name) {
    return {Reason::AlreadyExists, std::string(resource) + " " + quoted(name) + " already exists",
            nameDetails(resource, name)};
}

ApiError conflict(std::string_view resource, std::string_view name, std::string_view detail) {
    return {Reason::Conflict,
            "Operation cannot be fulfilled on " + std::string(resource) + " " + quoted(name) + ": " + std::string(detail),
            nameDetails(resource, name)};
}

ApiError badRequest(std::string message) { return {Reason::BadRequest, std::move(message), {}}; }

ApiError internalError(std::string detail) {
    json::object d{{"causes", json::array{json::object{{"message", detail}}}}};
    return {Reason::InternalError, "Internal error occurred: " + detail, std::move(d)};
}

std::string joinErrors(const ErrorList& errors) {
    std::string out;
    for (auto const& e : errors) {
        if (!out.empty()) out += ", ";
        out += e.path.empty() ? e.message : e.path + ": " + e.message;
    }
    return errors.size() > 1 ? "[" + out + "]" : out;
}

ApiError invalid(std::string_view kind, std::string_view group, std::string_view name, const ErrorList& errors) {
    json::array causes;
    for (auto const& e : errors)
        causes.push_back(json::object{{"reason", causeType(e.type)}, {"message", e.message}, {"field", e.path}});
    std::string qualified = std::string(kind) + (group.empty() ? "" : "." + std::string(group));
    json::object d{{"name", name}};
    if (!group.empty()) d["group"] = group;
    d["kind"] = kind;
    d["causes"] = std::move(causes);
    return {Reason::Invalid, qualified + " " + quoted(name) + " is invalid: " + joinErrors(errors), std::move(d)};
}

ApiError methodNotSupported() {
    return {Reason::MethodNotAllowed, "the server does not allow this method on the requested resource", {}};
}

}  // namespace trainer::core::apiserver
