// Results worded like the API server; the contract is in patch_result.hpp (and statusOf's in patch.hpp).
#include "core/apiserver/patch_result.hpp"

#include "core/apiserver/go_text.hpp"

#include <cstddef>
#include <utility>

namespace trainer::core::apiserver {

json::object statusOf(const PatchResult& failed) {
    json::object s{{"kind", "Status"}, {"apiVersion", "v1"}, {"metadata", json::object()}, {"status", "Failure"},
                   {"message", failed.message}};
    if (!failed.reason.empty()) s["reason"] = failed.reason;
    if (failed.details) s["details"] = *failed.details;
    s["code"] = failed.code;
    return s;
}

namespace patching {

namespace {

constexpr std::string_view kGenericInvalid = "the server rejected our request due to an error in our request";
constexpr std::string_view kPanicMessage = "This request caused apiserver to panic. Look in the logs for details.";
// runtime/serializer/json/meta.go SimpleMetaFactory.Interpret on a non-object document.
constexpr std::string_view kInterpretArray =
    "couldn't get version/kind; json parse error: json: cannot unmarshal array into Go value of type "
    "struct { APIVersion string \"json:\\\"apiVersion,omitempty\\\"\"; Kind string \"json:\\\"kind,omitempty\\\"\" }";

}  // namespace

PatchResult failure(unsigned code, std::string_view reason, std::string message) {
    PatchResult r;
    r.ok = false;
    r.code = code;
    r.reason = std::string(reason);
    r.message = std::move(message);
    return r;
}

PatchResult success(json::value v, std::vector<std::string> strictErrors) {
    PatchResult r;
    r.value = std::move(v);
    r.strictErrors = std::move(strictErrors);
    return r;
}

PatchResult badRequest(std::string message) { return failure(400, "BadRequest", std::move(message)); }

PatchResult genericInvalid(std::string cause) {
    PatchResult r = failure(422, "Invalid", std::string(kGenericInvalid));
    r.details = json::object();
    r.cause = std::move(cause);
    return r;
}

PatchResult internalError(std::string message) { return failure(500, "", std::move(message)); }

PatchResult panicked(std::string cause) {
    PatchResult r = failure(500, "InternalError", std::string(kPanicMessage));
    r.plainText = true;
    r.cause = std::move(cause);
    return r;
}

PatchResult invalidPatch(std::string_view value, std::string_view detail) {
    std::string body = "Invalid value: " + gotext::goQuote(value) + ": " + std::string(detail);
    PatchResult r = failure(422, "Invalid", " \"\" is invalid: patch: " + body);
    json::array causes;
    causes.push_back(json::object{{"reason", "FieldValueInvalid"}, {"message", body}, {"field", "patch"}});
    r.details = json::object{{"causes", std::move(causes)}};
    return r;
}

std::string strictDecodingError(const std::vector<std::string>& errors) {
    std::string out = "strict decoding error: ";
    for (std::size_t i = 0; i < errors.size(); ++i) out += (i ? ", " : "") + errors[i];
    return out;
}

PatchResult finishDocument(json::value result, std::vector<std::string> strictErrors, FieldValidation validation) {
    if (!result.is_object()) return invalidPatch(gotext::goJson(result), kInterpretArray);
    if (validation == FieldValidation::Strict && !strictErrors.empty()) {
        PatchResult r = invalidPatch(gotext::goJson(result), strictDecodingError(strictErrors));
        r.strictErrors = std::move(strictErrors);
        return r;
    }
    return success(std::move(result), std::move(strictErrors));
}

}  // namespace patching

}  // namespace trainer::core::apiserver
