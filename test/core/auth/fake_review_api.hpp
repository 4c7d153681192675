// A fake Kubernetes API server for the auth tests that speaks the real protocol: HTTPS
// (core/server HttpServer with a generated certificate), the operator's bearer token required
// (401 Status otherwise), POST /apis/authentication.k8s.io/v1/tokenreviews and
// /apis/authorization.k8s.io/v1/subjectaccessreviews answered 201 with TokenReview /
// SubjectAccessReview objects shaped as kube-apiserver writes them (status.authenticated and
// status.audiences omitted when empty, status.user always present, RBAC's reasons), failures as
// metav1.Status objects.
#pragma once

#include "core/auth/ttl_cache.hpp"
#include "core/json/io.hpp"
#include "core/kube/rest_config.hpp"
#include "core/server/certs.hpp"
#include "core/server/http.hpp"
#include "core/server/webhook.hpp"

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/json.hpp>
#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <atomic>
#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

namespace trainer::test::auth {

namespace json = boost::json;
namespace srv = trainer::core::server;

// The API server's own audience (what a token reviewed without spec.audiences must carry).
inline const std::string kApiAudience = "https://kubernetes.default.svc.cluster.local";
inline const std::string kOperatorToken = "operator-sa-token";

inline std::string readAll(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

// Runs an io_context on two threads until destroyed.
class IoThreads {
public:
    IoThreads() : guard_(io.get_executor()) {
        for (int i = 0; i < 2; ++i) threads_.emplace_back([this] { io.run(); });
    }
    ~IoThreads() {
        guard_.reset();
        io.stop();
        for (auto& t : threads_) t.join();
    }
    boost::asio::io_context io;

private:
    boost::asio::executor_work_guard<boost::asio::io_context::executor_type> guard_;
    std::vector<std::thread> threads_;
};

// What a token stands for in the fake cluster.
struct FakeToken {
    std::string username;
    std::vector<std::string> groups;
    json::object extra;                  // e.g. authentication.kubernetes.io/pod-name
    std::vector<std::string> audiences;  // the token's aud claim
    bool audienceAgnostic = false;       // an authenticator that ignores spec.audiences
};

// A projected service-account token of pod `pod` in `ns` for `audiences`.
inline FakeToken serviceAccountToken(const std::string& ns, const std::string& sa, const std::string& pod,
                                     std::vector<std::string> audiences) {
    FakeToken t;
    t.username = "system:serviceaccount:" + ns + ":" + sa;
    t.groups = {"system:serviceaccounts", "system:serviceaccounts:" + ns, "system:authenticated"};
    t.extra = {{"authentication.kubernetes.io/pod-name", json::array{json::value(pod)}},
               {"authentication.kubernetes.io/pod-uid", json::array{json::value("0b9ec4f1-5b0e-4a3c-9d4f-" + pod)}},
               {"authentication.kubernetes.io/credential-id", json::array{json::value("JTI=" + pod + "-jti")}}};
    t.audiences = std::move(audiences);
    return t;
}

inline srv::Response status(unsigned code, const std::string& reason, const std::string& message) {
    json::object s{{"kind", "Status"}, {"apiVersion", "v1"}, {"metadata", json::object{}}, {"status", "Failure"},
                   {"message", message}, {"reason", reason}, {"code", code}};
    srv::Response r;
    r.status = code;
    r.contentType = "application/json";
    r.body = json::serialize(s);
    return r;
}

inline srv::Response created(const json::object& obj) {
    srv::Response r;
    r.status = 201;
    r.contentType = "application/json";
    r.body = json::serialize(obj);
    return r;
}

class FakeReviewApi {
public:
    explicit FakeReviewApi(const std::string& certDir) : certs_(certDir) {
        auto err = srv::generateCertificates(certDir, {});
        BOOST_REQUIRE_MESSAGE(err.empty(), err);
        BOOST_REQUIRE(certs_.load().empty());
        caPem_ = readAll(certDir + "/ca.crt");
        srv::ServerOptions o;
        o.name = "fake-apiserver";
        o.bindAddress = "127.0.0.1:0";
        o.tls = certs_.provider();
        std::vector<srv::Route> routes{
            {"POST", "/apis/authentication.k8s.io/v1/tokenreviews", [this](const srv::Request& r) { return tokenReview(r); }},
            {"POST", "/apis/authorization.k8s.io/v1/subjectaccessreviews",
             [this](const srv::Request& r) { return accessReview(r); }}};
        http_ = std::make_unique<srv::HttpServer>(io_.io, o, routes);
        auto started = http_->start();
        BOOST_REQUIRE_MESSAGE(started.empty(), started);
    }
    ~FakeReviewApi() { http_->stop(); }

    // A client config for this server, as the operator's in-cluster config would be.
    core::kube::RestConfig restConfig() const {
        core::kube::RestConfig c;
        c.server = "https://127.0.0.1:" + std::to_string(http_->port());
        c.caPem = caPem_;
        c.token = kOperatorToken;
        c.qps = 0;
        c.timeout = std::chrono::seconds(10);
        return c;
    }

    void addToken(const std::string& token, FakeToken t) {
        std::lock_guard lock(mu_);
        tokens_[token] = std::move(t);
    }
    // RBAC: `username` may get the non-resource URL `path` (a ClusterRoleBinding to metrics-reader).
    void allowNonResource(const std::string& username, const std::string& path) {
        std::lock_guard lock(mu_);
        nonResourceGrants_.insert({username, path});
    }
    // Non-zero: the next reviews of that kind answer this status (500: an etcd timeout, 403: the
    // operator lacks RBAC to create them).
    std::atomic<unsigned> tokenReviewFailure{0};
    std::atomic<unsigned> accessReviewFailure{0};
    // Set: token reviews answer 201 with this body instead.
    void setTokenReviewBody(std::string body) {
        std::lock_guard lock(mu_);
        tokenReviewBody_ = std::move(body);
    }

    int tokenReviews() const { return tokenReviews_; }
    int accessReviews() const { return accessReviews_; }
    std::vector<json::object> tokenReviewSpecs() const {
        std::lock_guard lock(mu_);
        return tokenReviewSpecs_;
    }
    std::vector<json::object> accessReviewSpecs() const {
        std::lock_guard lock(mu_);
        return accessReviewSpecs_;
    }

private:
    // The request's body as a review of `kind`, or the API server's answer refusing it.
    std::optional<json::object> admit(const srv::Request& r, const std::string& apiVersion, const std::string& kind,
                                      srv::Response& refusal) {
        if (r.header("authorization") != "Bearer " + kOperatorToken) {
            refusal = status(401, "Unauthorized", "Unauthorized");
            return std::nullopt;
        }
        auto obj = core::parseJsonObject(r.body);
        if (!obj || !obj->contains("spec") || !(*obj)["spec"].is_object() || (*obj)["kind"] != json::value(kind) ||
            (*obj)["apiVersion"] != json::value(apiVersion)) {
            refusal = status(400, "BadRequest", "the body is not a " + kind);
            return std::nullopt;
        }
        return obj;
    }

    static json::array strings(const std::vector<std::string>& v) {
        json::array a;
        for (auto const& s : v) a.emplace_back(s);
        return a;
    }

    static json::object reviewStatus(const FakeToken* t, const json::object& spec) {
        std::vector<std::string> wanted;
        if (auto* a = spec.if_contains("audiences"); a && a->is_array())
            for (auto const& v : a->get_array()) wanted.emplace_back(v.as_string());
        if (!t) return {{"user", json::object{}}, {"error", "[invalid bearer token, square/go-jose: compact JWS format must have three parts]"}};
        std::vector<std::string> granted;
        if (wanted.empty()) wanted = {kApiAudience};
        for (auto const& w : wanted)
            if (std::find(t->audiences.begin(), t->audiences.end(), w) != t->audiences.end()) granted.push_back(w);
        if (t->audienceAgnostic) granted = t->audiences;
        if (granted.empty())
            return {{"user", json::object{}}, {"error", "[invalid bearer token, token audiences " + json::serialize(strings(t->audiences)) +
                                                         " is invalid for the target audiences " + json::serialize(strings(wanted)) + "]"}};
        json::object user{{"username", t->username}, {"uid", "uid-" + t->username}, {"groups", strings(t->groups)}};
        if (!t->extra.empty()) user["extra"] = t->extra;
        return {{"authenticated", true}, {"user", user}, {"audiences", strings(granted)}};
    }

    srv::Response tokenReview(const srv::Request& r) {
        ++tokenReviews_;
        srv::Response refusal;
        auto obj = admit(r, "authentication.k8s.io/v1", "TokenReview", refusal);
        if (!obj) return refusal;
        if (auto f = tokenReviewFailure.load(); f == 500) return status(500, "InternalError", "etcdserver: request timed out");
        else if (f == 403)
            return status(403, "Forbidden", "tokenreviews.authentication.k8s.io is forbidden: User \"system:serviceaccount:kubeflow-system:kubeflow-trainer-controller-manager\" cannot create resource \"tokenreviews\" in API group \"authentication.k8s.io\" at the cluster scope");
        std::lock_guard lock(mu_);
        auto const& spec = (*obj)["spec"].as_object();
        tokenReviewSpecs_.push_back(spec);
        if (!tokenReviewBody_.empty()) return created(*core::parseJsonObject(tokenReviewBody_));
        std::string token = spec.contains("token") && spec.at("token").is_string() ? std::string(spec.at("token").as_string()) : "";
        auto it = tokens_.find(token);
        json::object out{{"kind", "TokenReview"}, {"apiVersion", "authentication.k8s.io/v1"},
                         {"metadata", json::object{{"creationTimestamp", nullptr}}}, {"spec", spec},
                         {"status", reviewStatus(it == tokens_.end() ? nullptr : &it->second, spec)}};
        return created(out);
    }

    srv::Response accessReview(const srv::Request& r) {
        ++accessReviews_;
        srv::Response refusal;
        auto obj = admit(r, "authorization.k8s.io/v1", "SubjectAccessReview", refusal);
        if (!obj) return refusal;
        if (accessReviewFailure.load() == 500) return status(500, "InternalError", "etcdserver: leader changed");
        std::lock_guard lock(mu_);
        auto const& spec = (*obj)["spec"].as_object();
        accessReviewSpecs_.push_back(spec);
        json::object st{{"allowed", false}};
        auto* nra = spec.if_contains("nonResourceAttributes");
        std::string user = spec.contains("user") ? std::string(spec.at("user").as_string()) : "";
        if (nra && nra->is_object() && nra->as_object().at("verb") == json::value("get")) {
            std::string path(nra->as_object().at("path").as_string());
            if (nonResourceGrants_.count({user, path}))
                st = {{"allowed", true},
                      {"reason", "RBAC: allowed by ClusterRoleBinding \"metrics-reader\" of ClusterRole \"metrics-reader\" to User \"" + user + "\""}};
        }
        json::object out{{"kind", "SubjectAccessReview"}, {"apiVersion", "authorization.k8s.io/v1"},
                         {"metadata", json::object{{"creationTimestamp", nullptr}}}, {"spec", spec}, {"status", st}};
        return created(out);
    }

    IoThreads io_;
    srv::CertWatcher certs_;
    std::string caPem_;
    std::unique_ptr<srv::HttpServer> http_;
    mutable std::mutex mu_;
    std::map<std::string, FakeToken> tokens_;
    std::set<std::pair<std::string, std::string>> nonResourceGrants_;
    std::string tokenReviewBody_;
    std::atomic<int> tokenReviews_{0};
    std::atomic<int> accessReviews_{0};
    std::vector<json::object> tokenReviewSpecs_;
    std::vector<json::object> accessReviewSpecs_;
};

// A time the test moves by hand (the caches' NowFn).
class ManualTime {
public:
    core::auth::NowFn fn() {
        return [this] { return base_ + std::chrono::seconds(offset_.load()); };
    }
    void advance(std::chrono::seconds s) { offset_ += s.count(); }

private:
    core::auth::SteadyTime base_ = std::chrono::steady_clock::now();
    std::atomic<long long> offset_{0};
};

}  // namespace trainer::test::auth
