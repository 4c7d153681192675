#include "core/auth/access_review.hpp"

#include "core/json/io.hpp"

namespace trainer::core::auth {

namespace {

namespace json = boost::json;

// Why a request got no usable answer: the transport error, or the status and the API's message.
std::string failure(std::string_view resource, const kube::HttpResult& r) {
    if (r.status == 0) return r.error;
    std::string message;
    if (auto status = parseJsonObject(r.body))
        if (auto* m = status->if_contains("message"); m && m->is_string()) message = std::string(m->get_string());
    if (message.empty()) message = r.body.substr(0, 256);
    return std::string(resource) + ": HTTP " + std::to_string(r.status) + (message.empty() ? "" : ": " + message);
}

// Typed reads of optional fields (absent and null read as the zero value, as Go decodes them);
// each returns the field path of a value of the wrong type, empty when fine.
std::string readBool(const json::object& o, std::string_view key, const std::string& at, bool& out) {
    auto* v = o.if_contains(key);
    if (!v || v->is_null()) return {};
    if (!v->is_bool()) return at + std::string(key) + ": expected a boolean";
    out = v->get_bool();
    return {};
}

std::string readString(const json::object& o, std::string_view key, const std::string& at, std::string& out) {
    auto* v = o.if_contains(key);
    if (!v || v->is_null()) return {};
    if (!v->is_string()) return at + std::string(key) + ": expected a string";
    out = std::string(v->get_string());
    return {};
}

std::string readStrings(const json::value* v, const std::string& path, std::vector<std::string>& out) {
    if (!v || v->is_null()) return {};
    if (!v->is_array()) return path + ": expected an array of strings";
    auto const& a = v->get_array();
    for (std::size_t i = 0; i < a.size(); ++i) {
        if (!a[i].is_string()) return path + "[" + std::to_string(i) + "]: expected a string";
        out.emplace_back(a[i].get_string());
    }
    return {};
}

const json::object* readObject(const json::object& o, std::string_view key, const std::string& path, std::string& error) {
    auto* v = o.if_contains(key);
    if (!v || v->is_null()) return nullptr;
    if (!v->is_object()) error = path + ": expected an object";
    return v->if_object();
}

std::string readUser(const json::object& status, UserInfo& user) {
    std::string err;
    auto* u = readObject(status, "user", "status.user", err);
    if (!u) return err;
    if (auto e = readString(*u, "username", "status.user.", user.username); !e.empty()) return e;
    if (auto e = readString(*u, "uid", "status.user.", user.uid); !e.empty()) return e;
    if (auto e = readStrings(u->if_contains("groups"), "status.user.groups", user.groups); !e.empty()) return e;
    auto* extra = readObject(*u, "extra", "status.user.extra", err);
    if (!extra) return err;
    for (auto const& [k, v] : *extra)
        if (auto e = readStrings(&v, "status.user.extra[" + std::string(k) + "]", user.extra[std::string(k)]); !e.empty())
            return e;
    return {};
}

// The answer's object and its `status`, checking the kind when the answer names one.
std::optional<json::object> answerObject(const kube::HttpResult& r, std::string_view kind, std::string& error) {
    auto obj = parseJsonObject(r.body);
    if (!obj) {
        error = std::string(kind) + ": the answer is not a JSON object";
        return std::nullopt;
    }
    std::string got;
    if (auto e = readString(*obj, "kind", "", got); !e.empty() || (!got.empty() && got != kind)) {
        error = e.empty() ? "kind: expected " + std::string(kind) + ", got " + got : e;
        return std::nullopt;
    }
    return obj;
}

TokenReviewResult parseTokenReview(const kube::HttpResult& r) {
    TokenReviewResult out;
    auto obj = answerObject(r, "TokenReview", out.message);
    if (!obj) return out;
    std::string err;
    auto* status = readObject(*obj, "status", "status", err);
    bool authenticated = false;
    if (status && err.empty()) err = readBool(*status, "authenticated", "status.", authenticated);
    if (status && err.empty()) err = readString(*status, "error", "status.", out.message);
    if (status && err.empty() && authenticated) err = readUser(*status, out.user);
    if (status && err.empty() && authenticated) err = readStrings(status->if_contains("audiences"), "status.audiences", out.audiences);
    if (!err.empty()) {
        out = TokenReviewResult{};
        out.message = "TokenReview " + err;
        return out;
    }
    out.outcome = authenticated ? ReviewOutcome::Yes : ReviewOutcome::No;
    return out;
}

json::array toArray(const std::vector<std::string>& v) {
    json::array a;
    for (auto const& s : v) a.emplace_back(s);
    return a;
}

}  // namespace

TokenReviewResult reviewToken(kube::Client& client, std::string_view token, const std::vector<std::string>& audiences,
                              const kube::RequestOptions& options) {
    json::object spec{{"token", token}};
    if (!audiences.empty()) spec["audiences"] = toArray(audiences);
    json::object review{{"apiVersion", "authentication.k8s.io/v1"}, {"kind", "TokenReview"}, {"spec", std::move(spec)}};
    auto r = client.request("POST", kTokenReviewsPath, json::serialize(review), options);
    if (!r.ok()) return {ReviewOutcome::Error, {}, {}, failure("tokenreviews", r)};
    return parseTokenReview(r);
}

json::object accessReviewSpec(const UserInfo& user, const NonResourceAccess& access) {
    json::object extra;
    for (auto const& [k, v] : user.extra) extra[k] = toArray(v);
    json::object spec{{"nonResourceAttributes", json::object{{"path", access.path}, {"verb", access.verb}}},
                      {"user", user.username},
                      {"groups", toArray(user.groups)}};
    if (!extra.empty()) spec["extra"] = std::move(extra);
    if (!user.uid.empty()) spec["uid"] = user.uid;
    return spec;
}

AccessReviewResult reviewAccess(kube::Client& client, const UserInfo& user, const NonResourceAccess& access,
                                const kube::RequestOptions& options) {
    json::object review{{"apiVersion", "authorization.k8s.io/v1"},
                        {"kind", "SubjectAccessReview"},
                        {"spec", accessReviewSpec(user, access)}};
    auto r = client.request("POST", kSubjectAccessReviewsPath, json::serialize(review), options);
    if (!r.ok()) return {ReviewOutcome::Error, failure("subjectaccessreviews", r)};
    AccessReviewResult out;
    auto obj = answerObject(r, "SubjectAccessReview", out.reason);
    if (!obj) return out;
    std::string err;
    auto* status = readObject(*obj, "status", "status", err);
    bool allowed = false, denied = false;
    if (status && err.empty()) err = readBool(*status, "allowed", "status.", allowed);
    if (status && err.empty()) err = readBool(*status, "denied", "status.", denied);
    if (status && err.empty()) err = readString(*status, "reason", "status.", out.reason);
    if (!err.empty()) return {ReviewOutcome::Error, "SubjectAccessReview " + err};
    if (allowed && denied) return {ReviewOutcome::Error, "SubjectAccessReview status: both allowed and denied"};
    out.outcome = allowed ? ReviewOutcome::Yes : ReviewOutcome::No;
    return out;
}

}  // namespace trainer::core::auth
