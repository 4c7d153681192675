#include "core/auth/service_account_claims.hpp"

#include <cmath>

namespace trainer::core::auth {

namespace {

constexpr int64_t kMinExpirationSeconds = 600;         // pkg/apis/authentication/validation
constexpr int64_t kMaxExpirationSeconds = 1LL << 32;
constexpr int64_t kMaxNumericDate = 1LL << 33;         // year 2242: fits system_clock's nanoseconds
constexpr std::string_view kPrivateClaims = "kubernetes.io";

int64_t unixSeconds(TimePoint t) {
    return std::chrono::floor<std::chrono::seconds>(t.time_since_epoch()).count();
}

json::object ref(std::string_view name, std::string_view uid) {
    json::object o{{"name", name}};
    if (!uid.empty()) o["uid"] = uid;
    return o;
}

// A NumericDate claim: a JSON number of seconds (integral or not) within 0 .. 2^33.
bool numericDate(const json::object& claims, std::string_view key, bool required, TimePoint& out, std::string& error) {
    const json::value* v = claims.if_contains(key);
    if (!v) return required ? (error = "claim " + std::string(key) + " is missing", false) : true;
    double seconds = 0;
    if (v->is_int64()) seconds = double(v->get_int64());
    else if (v->is_uint64()) seconds = double(v->get_uint64());
    else if (v->is_double()) seconds = v->get_double();
    else return error = "claim " + std::string(key) + " is not a number", false;
    if (!std::isfinite(seconds) || seconds < 0 || seconds > double(kMaxNumericDate))
        return error = "claim " + std::string(key) + " is out of range", false;
    out = TimePoint(std::chrono::duration_cast<TimePoint::duration>(std::chrono::duration<double>(seconds)));
    return true;
}

bool stringAt(const json::object& o, std::string_view key, std::string_view path, bool required, std::string& out,
              std::string& error) {
    const json::value* v = o.if_contains(key);
    if (!v) return required ? (error = "claim " + std::string(path) + " is missing", false) : true;
    if (!v->is_string()) return error = "claim " + std::string(path) + " is not a string", false;
    out = v->get_string();
    return true;
}

bool audiences(const json::object& claims, std::vector<std::string>& out, std::string& error) {
    const json::value* v = claims.if_contains("aud");
    if (!v) return error = "claim aud is missing", false;
    if (v->is_string()) return out.emplace_back(v->get_string()), true;
    if (!v->is_array()) return error = "claim aud is neither a string nor an array", false;
    for (auto const& a : v->get_array()) {
        if (!a.is_string()) return error = "claim aud has a member that is not a string", false;
        out.emplace_back(a.get_string());
    }
    return true;
}

// An optional {name, uid} member of kubernetes.io.
bool objectRef(const json::object& k8s, std::string_view key, std::string& name, std::string& uid, bool required,
               std::string& error) {
    std::string path = std::string(kPrivateClaims) + "." + std::string(key);
    const json::value* v = k8s.if_contains(key);
    if (!v) return required ? (error = "claim " + path + " is missing", false) : true;
    if (!v->is_object()) return error = "claim " + path + " is not an object", false;
    return stringAt(v->get_object(), "name", path + ".name", true, name, error) &&
           stringAt(v->get_object(), "uid", path + ".uid", false, uid, error);
}

bool privateClaims(const json::object& claims, TokenClaims& out, std::string& error) {
    const json::value* v = claims.if_contains(kPrivateClaims);
    if (!v || !v->is_object()) return error = "claim kubernetes.io is missing or not an object", false;
    const json::object& k8s = v->get_object();
    if (!stringAt(k8s, "namespace", "kubernetes.io.namespace", true, out.ns, error) ||
        !objectRef(k8s, "serviceaccount", out.serviceAccount, out.serviceAccountUid, true, error) ||
        !objectRef(k8s, "pod", out.podName, out.podUid, false, error))
        return false;
    if (out.subject != serviceAccountUsername(out.ns, out.serviceAccount))
        return error = "claim sub does not name the service account of claim kubernetes.io", false;
    return true;
}

}  // namespace

std::string serviceAccountUsername(std::string_view ns, std::string_view name) {
    std::string out = "system:serviceaccount:";
    return out.append(ns).append(":").append(name);
}

std::string validateBinding(const TokenBinding& b) {
    if (b.ns.empty()) return "namespace: Required value";
    if (b.serviceAccount.empty()) return "serviceAccountName: Required value";
    if (b.podName.empty() || b.podUid.empty()) return "boundObjectRef: Required value: a pod name and uid";
    if (b.expirationSeconds < kMinExpirationSeconds)
        return "expirationSeconds: Invalid value: " + std::to_string(b.expirationSeconds) +
               ": may not specify a duration less than 10 minutes";
    if (b.expirationSeconds > kMaxExpirationSeconds)
        return "expirationSeconds: Invalid value: " + std::to_string(b.expirationSeconds) +
               ": may not specify a duration larger than 2^32 seconds";
    for (auto const& a : b.audiences)
        if (a.empty()) return "audiences: Invalid value: \"\": an audience may not be empty";
    return "";
}

json::object buildClaims(const TokenBinding& b, TimePoint now, const std::string& jti) {
    const int64_t iat = unixSeconds(now);
    json::array aud;
    for (auto const& a : b.audiences) aud.emplace_back(a);
    if (aud.empty()) aud.emplace_back(kServiceAccountIssuer);
    json::object k8s{{"namespace", b.ns}};
    k8s["pod"] = ref(b.podName, b.podUid);
    k8s["serviceaccount"] = ref(b.serviceAccount, b.serviceAccountUid);
    json::object c;
    c["aud"] = std::move(aud);
    c["exp"] = iat + b.expirationSeconds;
    c["iat"] = iat;
    c["iss"] = kServiceAccountIssuer;
    c["jti"] = jti;
    c[kPrivateClaims] = std::move(k8s);
    c["nbf"] = iat;
    c["sub"] = serviceAccountUsername(b.ns, b.serviceAccount);
    return c;
}

bool parseClaims(const json::object& claims, TokenClaims& out, std::string& error) {
    out = TokenClaims{};
    return stringAt(claims, "iss", "iss", true, out.issuer, error) &&
           stringAt(claims, "sub", "sub", true, out.subject, error) &&
           stringAt(claims, "jti", "jti", false, out.id, error) && audiences(claims, out.audiences, error) &&
           numericDate(claims, "exp", true, out.expiresAt, error) &&
           numericDate(claims, "nbf", false, out.notBefore, error) &&
           numericDate(claims, "iat", false, out.issuedAt, error) && privateClaims(claims, out, error);
}

}  // namespace trainer::core::auth
