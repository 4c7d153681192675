#include "core/store/immutable_fields.hpp"

#include <utility>

namespace trainer::core {

namespace json = boost::json;

namespace {

FieldError forbidden(std::string path) {
    return {std::move(path), "Forbidden: field is immutable when `immutable` is set", ErrorType::Forbidden, ""};
}

std::string base64(std::string_view in) {
    static constexpr char abc[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    std::string out;
    for (size_t i = 0; i < in.size(); i += 3) {
        unsigned n = unsigned(static_cast<unsigned char>(in[i])) << 16;
        if (i + 1 < in.size()) n |= unsigned(static_cast<unsigned char>(in[i + 1])) << 8;
        if (i + 2 < in.size()) n |= unsigned(static_cast<unsigned char>(in[i + 2]));
        out += abc[(n >> 18) & 63];
        out += abc[(n >> 12) & 63];
        out += i + 1 < in.size() ? abc[(n >> 6) & 63] : '=';
        out += i + 2 < in.size() ? abc[n & 63] : '=';
    }
    return out;
}

// The member as an object; absent, null and {} are all the empty map.
json::object mapOf(const json::object& o, std::string_view k) {
    auto* v = o.if_contains(k);
    return v && v->is_object() ? v->as_object() : json::object{};
}

// What a Secret's data is once its stringData is folded in (as the API server stores it).
json::object secretData(const json::object& secret) {
    json::object data = mapOf(secret, "data");
    for (auto const& [k, v] : mapOf(secret, "stringData"))
        data[k] = v.is_string() ? json::value(base64(v.as_string())) : v;
    return data;
}

bool immutableSet(const json::object& o) {
    auto* v = o.if_contains("immutable");
    return v && v->is_bool() && v->as_bool();
}

std::string kindOf(const json::object& o) {
    auto* v = o.if_contains("kind");
    return v && v->is_string() ? std::string(v->as_string()) : std::string();
}

bool coreV1(const json::object& o) {
    auto* v = o.if_contains("apiVersion");
    return v && v->is_string() && v->as_string() == "v1";
}

}  // namespace

ErrorList immutableFieldErrors(const json::object& current, const json::object& next) {
    ErrorList errors;
    const std::string kind = kindOf(current);
    if (!coreV1(current) || (kind != "Secret" && kind != "ConfigMap") || !immutableSet(current)) return errors;
    if (!immutableSet(next)) errors.push_back(forbidden("immutable"));
    if (kind == "Secret") {
        if (secretData(current) != secretData(next)) errors.push_back(forbidden("data"));
        return errors;
    }
    if (mapOf(current, "data") != mapOf(next, "data")) errors.push_back(forbidden("data"));
    if (mapOf(current, "binaryData") != mapOf(next, "binaryData")) errors.push_back(forbidden("binaryData"));
    return errors;
}

std::string joinFieldErrors(const ErrorList& errors) {
    std::string out;
    for (auto const& e : errors) out += (out.empty() ? "" : ", ") + (e.path.empty() ? e.message : e.path + ": " + e.message);
    return errors.size() > 1 ? "[" + out + "]" : out;
}

}  // namespace trainer::core
