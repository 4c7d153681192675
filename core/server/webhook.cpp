#include "core/server/webhook.hpp"

#include "core/json/io.hpp"
#include "core/log/log.hpp"
#include "core/server/metrics.hpp"

#include <openssl/evp.h>
#include <openssl/ssl.h>

#include <sys/stat.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <chrono>

namespace trainer::core::server {
namespace {

constexpr std::array<std::string_view, 2> kReviewVersions{"admission.k8s.io/v1", "admission.k8s.io/v1beta1"};

const log::Logger& admissionLog() {
    static const log::Logger logger("admission");
    return logger;
}

std::string str(const json::object& o, std::string_view key) {
    auto it = o.find(key);
    return it != o.end() && it->value().is_string() ? std::string(it->value().as_string()) : std::string();
}

// The member `key` of the parsed review, moved out of it (the review is read once).
json::object takeObject(json::object& o, std::string_view key) {
    auto it = o.find(key);
    return it != o.end() && it->value().is_object() ? std::move(it->value().as_object()) : json::object();
}

json::value takeValue(json::object& o, std::string_view key) {
    auto it = o.find(key);
    return it != o.end() ? std::move(it->value()) : json::value();
}

// An AdmissionReview carrying an error (controller-runtime's Errored()), served with HTTP `status`.
Response reviewError(unsigned status, std::string_view apiVersion, const std::string& uid, const std::string& message) {
    json::object review{{"apiVersion", apiVersion},
                        {"kind", "AdmissionReview"},
                        {"response",
                         {{"uid", uid},
                          {"allowed", false},
                          {"status", {{"metadata", json::object()}, {"code", status}, {"message", message}}}}}};
    Response r;
    r.status = status;
    r.contentType = "application/json";
    r.body = json::serialize(review);
    return r;
}

std::string mediaType(std::string_view contentType) {
    auto semi = contentType.find(';');
    std::string t(contentType.substr(0, semi));
    t.erase(std::remove_if(t.begin(), t.end(), [](unsigned char c) { return std::isspace(c); }), t.end());
    std::transform(t.begin(), t.end(), t.begin(), [](unsigned char c) { return std::tolower(c); });
    return t;
}

// Parses the review or explains why not.
std::optional<AdmissionRequest> parseReview(const Request& req, std::string& apiVersion, std::string& error) {
    if (auto type = mediaType(req.header("content-type")); type != "application/json") {
        error = "contentType=" + req.header("content-type") + ", expected application/json";
        return std::nullopt;
    }
    if (req.body.empty()) {
        error = "request body is empty";
        return std::nullopt;
    }
    json::value doc;
    std::string why;
    if (!parseJson(req.body, doc, why)) {  // the input limits every entry point shares (core/json/io.hpp)
        error = "couldn't decode AdmissionReview: " + why;
        return std::nullopt;
    }
    if (!doc.is_object()) {
        error = "couldn't decode AdmissionReview: not a JSON object";
        return std::nullopt;
    }
    auto& o = doc.as_object();
    std::string version = str(o, "apiVersion");
    if (std::find(kReviewVersions.begin(), kReviewVersions.end(), version) == kReviewVersions.end()) {
        error = "apiVersion: unsupported value \"" + version + "\", expected admission.k8s.io/v1";
        return std::nullopt;
    }
    apiVersion = version;
    if (str(o, "kind") != "AdmissionReview") {
        error = "kind: unsupported value \"" + str(o, "kind") + "\", expected AdmissionReview";
        return std::nullopt;
    }
    auto it = o.find("request");
    if (it == o.end() || !it->value().is_object()) {
        error = "request: required value";
        return std::nullopt;
    }
    auto& r = it->value().as_object();
    AdmissionRequest out;
    out.uid = str(r, "uid");
    if (out.uid.empty()) {
        error = "request.uid: required value";
        return std::nullopt;
    }
    out.kind = takeObject(r, "kind");
    out.resource = takeObject(r, "resource");
    out.name = str(r, "name");
    out.ns = str(r, "namespace");
    out.operation = str(r, "operation");
    out.object = takeValue(r, "object");
    out.oldObject = takeValue(r, "oldObject");
    out.userInfo = takeObject(r, "userInfo");
    if (auto d = r.find("dryRun"); d != r.end() && d->value().is_bool()) out.dryRun = d->value().as_bool();
    return out;
}

json::object responseJson(const std::string& uid, const AdmissionResponse& a) {
    json::object status{{"metadata", json::object()}, {"code", a.code}};
    if (!a.reason.empty()) status["reason"] = a.reason;
    if (!a.message.empty()) status["message"] = a.message;
    json::object res{{"uid", uid}, {"allowed", a.allowed}, {"status", std::move(status)}};
    if (!a.warnings.empty()) {
        json::array w;
        for (const auto& s : a.warnings) w.emplace_back(s);
        res["warnings"] = std::move(w);
    }
    if (a.allowed && !a.patch.empty()) {
        res["patchType"] = "JSONPatch";
        res["patch"] = base64Encode(json::serialize(a.patch));
    }
    return res;
}

void diffInto(const json::value& from, const json::value& to, const std::string& path, json::array& ops) {
    if (from.is_object() && to.is_object()) {
        const auto& a = from.as_object();
        const auto& b = to.as_object();
        for (const auto& kv : a)
            if (!b.contains(kv.key()))
                ops.push_back(json::object{{"op", "remove"}, {"path", path + "/" + escapePointerToken(kv.key())}});
        for (const auto& kv : b) {
            std::string child = path + "/" + escapePointerToken(kv.key());
            if (auto it = a.find(kv.key()); it != a.end())
                diffInto(it->value(), kv.value(), child, ops);
            else
                ops.push_back(json::object{{"op", "add"}, {"path", child}, {"value", kv.value()}});
        }
        return;
    }
    if (from.is_array() && to.is_array() && from.as_array().size() == to.as_array().size()) {
        for (std::size_t i = 0; i < from.as_array().size(); ++i)
            diffInto(from.as_array()[i], to.as_array()[i], path + "/" + std::to_string(i), ops);
        return;
    }
    if (from != to) ops.push_back(json::object{{"op", "replace"}, {"path", path}, {"value", to}});
}

// RFC 6901 tokens of a pointer; nullopt when malformed.
std::optional<std::vector<std::string>> pointerTokens(std::string_view p) {
    std::vector<std::string> out;
    if (p.empty()) return out;
    if (p.front() != '/') return std::nullopt;
    std::size_t pos = 1;
    for (;;) {
        auto next = p.find('/', pos);
        std::string_view raw = p.substr(pos, next == std::string_view::npos ? std::string_view::npos : next - pos);
        std::string tok;
        for (std::size_t i = 0; i < raw.size(); ++i) {
            if (raw[i] != '~') {
                tok += raw[i];
                continue;
            }
            if (i + 1 >= raw.size() || (raw[i + 1] != '0' && raw[i + 1] != '1')) return std::nullopt;
            tok += raw[++i] == '0' ? '~' : '/';
        }
        out.push_back(std::move(tok));
        if (next == std::string_view::npos) break;
        pos = next + 1;
    }
    return out;
}

std::optional<std::size_t> arrayIndex(const std::string& tok, std::size_t size, bool allowEnd) {
    if (allowEnd && tok == "-") return size;
    std::size_t i = 0;
    auto [end, ec] = std::from_chars(tok.data(), tok.data() + tok.size(), i);
    if (tok.empty() || ec != std::errc() || end != tok.data() + tok.size() || (tok.size() > 1 && tok[0] == '0'))
        return std::nullopt;
    if (i > size || (!allowEnd && i == size)) return std::nullopt;
    return i;
}

// The value at `tokens`, or null.
json::value* resolve(json::value& doc, const std::vector<std::string>& tokens) {
    json::value* cur = &doc;
    for (const auto& t : tokens) {
        if (cur->is_object()) {
            cur = cur->as_object().if_contains(t);
        } else if (cur->is_array()) {
            auto i = arrayIndex(t, cur->as_array().size(), false);
            cur = i ? &cur->as_array()[*i] : nullptr;
        } else {
            cur = nullptr;
        }
        if (!cur) return nullptr;
    }
    return cur;
}

bool addAt(json::value& doc, const std::vector<std::string>& tokens, json::value v) {
    if (tokens.empty()) {
        doc = std::move(v);
        return true;
    }
    std::vector<std::string> parentTokens(tokens.begin(), tokens.end() - 1);
    json::value* parent = resolve(doc, parentTokens);
    if (!parent) return false;
    if (parent->is_object()) {
        parent->as_object()[tokens.back()] = std::move(v);
        return true;
    }
    if (parent->is_array()) {
        auto& arr = parent->as_array();
        auto i = arrayIndex(tokens.back(), arr.size(), true);
        if (!i) return false;
        arr.insert(arr.begin() + static_cast<std::ptrdiff_t>(*i), std::move(v));
        return true;
    }
    return false;
}

std::optional<json::value> removeAt(json::value& doc, const std::vector<std::string>& tokens) {
    if (tokens.empty()) return std::nullopt;
    std::vector<std::string> parentTokens(tokens.begin(), tokens.end() - 1);
    json::value* parent = resolve(doc, parentTokens);
    if (!parent) return std::nullopt;
    if (parent->is_object()) {
        auto& o = parent->as_object();
        auto it = o.find(tokens.back());
        if (it == o.end()) return std::nullopt;
        json::value old = it->value();
        o.erase(it);
        return old;
    }
    if (parent->is_array()) {
        auto& arr = parent->as_array();
        auto i = arrayIndex(tokens.back(), arr.size(), false);
        if (!i) return std::nullopt;
        json::value old = arr[*i];
        arr.erase(arr.begin() + static_cast<std::ptrdiff_t>(*i));
        return old;
    }
    return std::nullopt;
}

}  // namespace

AdmissionResponse AdmissionResponse::allow(std::vector<std::string> warnings) {
    AdmissionResponse r;
    r.warnings = std::move(warnings);
    return r;
}

AdmissionResponse AdmissionResponse::deny(const ErrorList& errors, std::vector<std::string> warnings) {
    return denyMessage(joinFieldErrors(errors), std::move(warnings));
}

AdmissionResponse AdmissionResponse::denyMessage(std::string message, std::vector<std::string> warnings) {
    AdmissionResponse r;
    r.allowed = false;
    r.code = 403;
    r.reason = "Forbidden";
    r.message = std::move(message);
    r.warnings = std::move(warnings);
    return r;
}

AdmissionResponse AdmissionResponse::patched(const json::value& original, const json::value& mutated,
                                             std::vector<std::string> warnings) {
    AdmissionResponse r = allow(std::move(warnings));
    r.patch = diffPatch(original, mutated);
    return r;
}

std::string joinFieldErrors(const ErrorList& errors) {
    std::string out;
    for (const auto& e : errors) {
        if (!out.empty()) out += ", ";
        out += e.path.empty() ? e.message : e.path + ": " + e.message;
    }
    return out;
}

std::string apiServerDenialMessage(std::string_view webhookName, const AdmissionResponse& response) {
    std::string out = "admission webhook \"" + std::string(webhookName) + "\" denied the request";
    return response.message.empty() ? out : out + ": " + response.message;
}

std::string escapePointerToken(std::string_view token) {
    std::string out;
    for (char c : token) {
        if (c == '~') out += "~0";
        else if (c == '/') out += "~1";
        else out += c;
    }
    return out;
}

json::array diffPatch(const json::value& from, const json::value& to) {
    json::array ops;
    diffInto(from, to, "", ops);
    return ops;
}

std::optional<json::value> applyPatch(json::value doc, const json::array& patch, std::string& error) {
    for (std::size_t n = 0; n < patch.size(); ++n) {
        std::string where = "patch[" + std::to_string(n) + "]";
        if (!patch[n].is_object()) {
            error = where + ": not an object";
            return std::nullopt;
        }
        const auto& op = patch[n].as_object();
        std::string name = str(op, "op");
        auto path = pointerTokens(str(op, "path"));
        if (!path || !op.contains("path")) {
            error = where + ".path: invalid JSON pointer";
            return std::nullopt;
        }
        const json::value* value = op.if_contains("value");
        bool ok = false;
        if (name == "add") {
            ok = value && addAt(doc, *path, *value);
        } else if (name == "remove") {
            ok = removeAt(doc, *path).has_value();
        } else if (name == "replace") {
            json::value* target = resolve(doc, *path);
            ok = value && target;
            if (ok) *target = *value;
        } else if (name == "test") {
            json::value* target = resolve(doc, *path);
            ok = value && target && *target == *value;
        } else if (name == "move" || name == "copy") {
            auto from = pointerTokens(str(op, "from"));
            std::optional<json::value> moved;
            if (from && name == "move") moved = removeAt(doc, *from);
            if (from && name == "copy")
                if (json::value* src = resolve(doc, *from)) moved = *src;
            ok = moved && addAt(doc, *path, std::move(*moved));
        } else {
            error = where + ".op: unsupported operation \"" + name + "\"";
            return std::nullopt;
        }
        if (!ok) {
            error = where + ": " + name + " failed at \"" + str(op, "path") + "\"";
            return std::nullopt;
        }
    }
    return doc;
}

std::string base64Encode(std::string_view data) {
    std::string out(4 * ((data.size() + 2) / 3) + 1, '\0');
    int n = EVP_EncodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                            reinterpret_cast<const unsigned char*>(data.data()), static_cast<int>(data.size()));
    out.resize(n > 0 ? static_cast<std::size_t>(n) : 0);
    return out;
}

std::optional<std::string> base64Decode(std::string_view text) {
    if (text.size() % 4 != 0) return std::nullopt;
    if (text.empty()) return std::string();
    std::string out(3 * text.size() / 4 + 1, '\0');
    int n = EVP_DecodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                            reinterpret_cast<const unsigned char*>(text.data()), static_cast<int>(text.size()));
    if (n < 0) return std::nullopt;
    std::size_t pad = text.ends_with("==") ? 2 : text.ends_with("=") ? 1 : 0;
    out.resize(static_cast<std::size_t>(n) - pad);
    return out;
}

WebhookMetrics::WebhookMetrics(Registry& registry, std::string path)
    : registry_(registry),
      path_(std::move(path)),
      inFlight_(registry.counterOrGauge("controller_runtime_webhook_requests_in_flight", {path_})),
      latency_(registry.histogram("controller_runtime_webhook_latency_seconds", {path_})),
      ok_(registry.counterOrGauge("controller_runtime_webhook_requests_total", {path_, "200"})) {}

void WebhookMetrics::begin() const { registry_.add(inFlight_, 1); }

void WebhookMetrics::end(unsigned status, double seconds) const {
    registry_.observe(latency_, seconds);
    if (status == 200) registry_.add(ok_);
    else registry_.add("controller_runtime_webhook_requests_total", {path_, std::to_string(status)}, 1);
    registry_.add(inFlight_, -1);
}

Response serveAdmission(const Request& req, std::string_view webhookName, const AdmissionHandler& handler,
                        const WebhookMetrics* metrics) {
    auto start = std::chrono::steady_clock::now();
    if (metrics) metrics->begin();
    std::string apiVersion = "admission.k8s.io/v1";
    std::string error;
    Response out;
    auto parsed = parseReview(req, apiVersion, error);
    if (!parsed) {
        admissionLog().info("bad admission request",
                            {{"webhook", webhookName}, {"path", req.path}, {"remote", req.remote}, {"error", error}});
        out = reviewError(400, apiVersion, "", error);
    } else {
        AdmissionResponse answer;
        try {
            answer = handler ? handler(*parsed) : AdmissionResponse::allow();
        } catch (const std::exception& e) {
            answer = AdmissionResponse::denyMessage(std::string("internal error: ") + e.what());
            answer.code = 500;
            answer.reason = "InternalError";
        } catch (...) {
            answer = AdmissionResponse::denyMessage("internal error");
            answer.code = 500;
            answer.reason = "InternalError";
        }
        if (log::enabled(log::Level::Debug))  // the fields are built only for a line that is written
            admissionLog().debug("admission reviewed", {{"webhook", webhookName},
                                                        {"uid", parsed->uid},
                                                        {"operation", parsed->operation},
                                                        {"name", parsed->name},
                                                        {"namespace", parsed->ns},
                                                        {"allowed", answer.allowed},
                                                        {"code", answer.code}});
        json::object review{{"apiVersion", apiVersion}, {"kind", "AdmissionReview"},
                            {"response", responseJson(parsed->uid, answer)}};
        out.contentType = "application/json";
        out.body = json::serialize(review);
    }
    if (metrics) metrics->end(out.status, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    return out;
}

void WebhookServer::handle(std::string path, std::string name, AdmissionHandler handler, bool runsPlugins) {
    entries_.push_back(Entry{std::move(path), std::move(name), std::move(handler), runsPlugins});
}

std::vector<Route> WebhookServer::routes() const {
    std::vector<Route> out;
    for (const auto& e : entries_) {
        std::shared_ptr<const WebhookMetrics> metrics;
        if (metrics_) metrics = std::make_shared<const WebhookMetrics>(*metrics_, e.path);
        out.push_back(Route{"POST", e.path,
                            [e, metrics](const Request& req) { return serveAdmission(req, e.name, e.handler, metrics.get()); },
                            false, e.runsPlugins});
    }
    return out;
}

CertWatcher::CertWatcher(std::string dir, std::string certFile, std::string keyFile)
    : certPath_(dir + "/" + certFile), keyPath_(dir + "/" + keyFile) {}

CertWatcher::Stamp CertWatcher::stamp() const {
    Stamp s;
    struct stat st{};
    if (::stat(certPath_.c_str(), &st) == 0) {
        s.certTime = static_cast<long long>(st.st_mtim.tv_sec) * 1000000000LL + st.st_mtim.tv_nsec;
        s.certIno = st.st_ino;
        s.certSize = st.st_size;
    }
    if (::stat(keyPath_.c_str(), &st) == 0) {
        s.keyTime = static_cast<long long>(st.st_mtim.tv_sec) * 1000000000LL + st.st_mtim.tv_nsec;
        s.keyIno = st.st_ino;
        s.keySize = st.st_size;
    }
    return s;
}

std::string CertWatcher::reloadLocked(const Stamp& s) {
    seen_ = s;  // a bad pair is retried only once the files change again
    namespace ssl = boost::asio::ssl;
    auto ctx = std::make_shared<ssl::context>(ssl::context::tls_server);
    boost::system::error_code ec;
    ctx->set_options(ssl::context::default_workarounds | ssl::context::no_sslv2 | ssl::context::no_sslv3 |
                         ssl::context::no_tlsv1 | ssl::context::no_tlsv1_1,
                     ec);
    if (auto err = applyTlsSettings(*ctx, settings_); !err.empty()) return err;
    ctx->use_certificate_chain_file(certPath_, ec);
    if (ec) return "loading " + certPath_ + ": " + ec.message();
    ctx->use_private_key_file(keyPath_, ssl::context::pem, ec);
    if (ec) return "loading " + keyPath_ + ": " + ec.message();
    if (SSL_CTX_check_private_key(ctx->native_handle()) != 1)
        return keyPath_ + " does not match the certificate in " + certPath_;
    ctx_ = std::move(ctx);
    return {};
}

void CertWatcher::setTlsSettings(TlsSettings settings) {
    std::lock_guard lock(mu_);
    settings_ = std::move(settings);
}

std::string CertWatcher::load() {
    std::lock_guard lock(mu_);
    auto err = reloadLocked(stamp());
    if (err.empty()) admissionLog().info("loaded serving certificate", {{"cert", certPath_}});
    return err;
}

std::shared_ptr<boost::asio::ssl::context> CertWatcher::current() {
    std::lock_guard lock(mu_);
    Stamp s = stamp();
    if (!(s == seen_)) {
        if (auto err = reloadLocked(s); !err.empty())
            admissionLog().error("certificate reload failed; keeping the previous certificate", {{"error", err}});
        else
            admissionLog().info("reloaded serving certificate", {{"cert", certPath_}});
    }
    return ctx_;
}

TlsProvider CertWatcher::provider() {
    return [this] { return current(); };
}

}  // namespace trainer::core::server
