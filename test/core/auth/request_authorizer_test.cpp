#include <boost/test/unit_test.hpp>

#include "../../support/process.hpp"
#include "fake_review_api.hpp"

#include "core/auth/request_authorizer.hpp"
#include "core/auth/token_authorizer.hpp"
#include "core/kube/client.hpp"
#include "core/server/metrics.hpp"

using namespace trainer::core::auth;
using trainer::test::TempDir;
using namespace trainer::test::auth;

namespace {

struct Answer {
    int status = 0;
    std::string body;
};

// The metrics server as `run` would serve it: HTTPS, GET /metrics behind `authorizer`.
struct MetricsServer {
    MetricsServer(const std::string& certDir, std::shared_ptr<RequestAuthorizer> authorizer) : certs(certDir) {
        auto err = srv::generateCertificates(certDir, {});
        BOOST_REQUIRE_MESSAGE(err.empty(), err);
        BOOST_REQUIRE(certs.load().empty());
        caFile = certDir + "/ca.crt";
        registry.add("trainer_plugin_load_total", {"loaded", "ok"});
        srv::ServerOptions o;
        o.name = "metrics";
        o.bindAddress = "127.0.0.1:0";
        o.tls = certs.provider();
        http = std::make_unique<srv::HttpServer>(io.io, o,
                                                 std::vector<srv::Route>{protectRoute(srv::metricsRoute(registry), authorizer)});
        BOOST_REQUIRE(http->start().empty());
    }
    ~MetricsServer() { http->stop(); }

    // GET /metrics with real curl over HTTPS; `header` is an Authorization header value or empty.
    Answer get(const std::string& header) const {
        TempDir t;
        std::string cmd = "curl -sS --max-time 30 --cacert " + caFile + " -o " + t.file("body") + " -w '%{http_code}'";
        if (!header.empty()) cmd += " -H 'Authorization: " + header + "'";
        cmd += " https://127.0.0.1:" + std::to_string(http->port()) + "/metrics";
        auto r = trainer::test::sh(cmd);
        BOOST_REQUIRE_MESSAGE(r.exit == 0, "curl failed: " << r.err);
        return {std::atoi(r.out.c_str()), trainer::test::slurp(t.file("body"))};
    }

    IoThreads io;
    srv::CertWatcher certs;
    std::string caFile;
    srv::Registry registry;
    std::unique_ptr<srv::HttpServer> http;
};

const std::string kMetricsLine = "trainer_plugin_load_total{outcome=\"loaded\",reason=\"ok\"} 1";

// The fake cluster: Prometheus' service account may get /metrics, team-a's may not; a pod token
// bound only to a TrainJob audience is not valid for the API server's audience.
struct Cluster {
    TempDir dir;
    FakeReviewApi api{dir.file("api-certs")};
    trainer::core::kube::Client client{api.restConfig()};
    ManualTime time;
    Cluster() {
        api.addToken("prom-token", serviceAccountToken("monitoring", "prometheus", "prometheus-0", {kApiAudience}));
        api.allowNonResource("system:serviceaccount:monitoring:prometheus", "/metrics");
        api.addToken("nosy-token", serviceAccountToken("team-a", "default", "nosy-0", {kApiAudience}));
        api.addToken("pod-token", serviceAccountToken("team-a", "default", "job1-node-0-0", {tokenAudience("team-a", "job1")}));
        api.addToken("other-token", serviceAccountToken("team-c", "default", "other-0", {kApiAudience}));
        FakeToken bare;  // a user the authenticator put in no group
        bare.username = "bob";
        bare.audiences = {kApiAudience};
        api.addToken("bob-token", bare);
        api.allowNonResource("bob", "/metrics");
    }
    std::shared_ptr<KubeRequestAuthorizer> authorizer(int maxRetries = 0) {
        KubeRequestAuthorizerOptions o;
        o.now = time.fn();
        o.maxRetries = maxRetries;
        return std::make_shared<KubeRequestAuthorizer>(client, o);
    }
};

srv::Request metricsRequest(const std::string& token) {
    srv::Request r;
    r.method = "GET";
    r.path = "/metrics";
    if (!token.empty()) r.headers.emplace_back("authorization", "Bearer " + token);
    return r;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(metrics_auth)

BOOST_AUTO_TEST_CASE(kube_filter_over_https) {
    Cluster c;
    MetricsServer m(c.dir.file("metrics-certs"), c.authorizer());

    auto a = m.get("");
    BOOST_TEST(a.status == 401);
    BOOST_TEST(a.body == "Unauthorized\n");
    BOOST_TEST(c.api.tokenReviews() == 0);

    a = m.get("Bearer forged");
    BOOST_TEST(a.status == 401);
    BOOST_TEST(a.body == "Unauthorized\n");
    a = m.get("Bearer pod-token");  // valid, but not for the API server's audience
    BOOST_TEST(a.status == 401);
    BOOST_TEST(c.api.accessReviews() == 0);

    a = m.get("Bearer nosy-token");
    BOOST_TEST(a.status == 403);
    BOOST_TEST(a.body == "Authorization denied for user system:serviceaccount:team-a:default\n");

    a = m.get("Bearer prom-token");
    BOOST_TEST(a.status == 200);
    BOOST_TEST(a.body.find(kMetricsLine) != std::string::npos, a.body);

    // What the API server was asked.
    auto tr = c.api.tokenReviewSpecs();
    BOOST_TEST_REQUIRE(tr.size() == 4u);
    BOOST_TEST(!tr.back().contains("audiences"));  // the API server's own audiences
    BOOST_TEST(tr.back().at("token") == json::value("prom-token"));
    auto sar = c.api.accessReviewSpecs();
    BOOST_TEST_REQUIRE(sar.size() == 2u);
    BOOST_TEST(json::serialize(sar.back().at("nonResourceAttributes")) == R"({"path":"/metrics","verb":"get"})");
    BOOST_TEST(sar.back().at("user") == json::value("system:serviceaccount:monitoring:prometheus"));
    BOOST_TEST(json::serialize(sar.back().at("groups")) ==
               R"(["system:serviceaccounts","system:serviceaccounts:monitoring","system:authenticated"])");
    BOOST_TEST(sar.back().at("uid") == json::value("uid-system:serviceaccount:monitoring:prometheus"));
    BOOST_TEST(json::serialize(sar.back().at("extra").at("authentication.kubernetes.io/pod-name")) == R"(["prometheus-0"])");

    // Cached: scraping again asks nothing.
    a = m.get("Bearer prom-token");
    BOOST_TEST(a.status == 200);
    a = m.get("Bearer nosy-token");
    BOOST_TEST(a.status == 403);
    BOOST_TEST(c.api.tokenReviews() == 4);
    BOOST_TEST(c.api.accessReviews() == 2);
}

BOOST_AUTO_TEST_CASE(api_errors_are_500) {
    Cluster c;
    MetricsServer m(c.dir.file("metrics-certs"), c.authorizer());
    c.api.tokenReviewFailure = 500;
    auto a = m.get("Bearer prom-token");
    BOOST_TEST(a.status == 500);
    BOOST_TEST(a.body == "Authentication failed\n");
    c.api.tokenReviewFailure = 403;  // the operator may not create tokenreviews
    a = m.get("Bearer prom-token");
    BOOST_TEST(a.status == 500);
    c.api.tokenReviewFailure = 0;
    c.api.accessReviewFailure = 500;
    a = m.get("Bearer prom-token");
    BOOST_TEST(a.status == 500);
    BOOST_TEST(a.body == "Authorization for user system:serviceaccount:monitoring:prometheus failed\n");
    c.api.accessReviewFailure = 0;  // errors were not cached
    a = m.get("Bearer prom-token");
    BOOST_TEST(a.status == 200);
    BOOST_TEST(a.body.find(kMetricsLine) != std::string::npos);
}

BOOST_AUTO_TEST_CASE(cache_lifetimes) {
    Cluster c;
    auto authz = c.authorizer();
    auto check = [&](const std::string& token) { return authz->check(metricsRequest(token)).verdict; };
    BOOST_TEST((check("prom-token") == Verdict::Allowed));
    BOOST_TEST((check("nosy-token") == Verdict::Forbidden));
    BOOST_TEST((check("forged") == Verdict::Unauthenticated));
    BOOST_TEST(c.api.tokenReviews() == 3);
    BOOST_TEST(c.api.accessReviews() == 2);
    // Tokens (either answer) for 60 s, a denial for 30 s, an allowance for 300 s.
    c.time.advance(std::chrono::seconds(30));
    BOOST_TEST((check("prom-token") == Verdict::Allowed));
    BOOST_TEST((check("nosy-token") == Verdict::Forbidden));
    BOOST_TEST((check("forged") == Verdict::Unauthenticated));
    BOOST_TEST(c.api.tokenReviews() == 3);
    BOOST_TEST(c.api.accessReviews() == 3);  // the denial expired
    c.time.advance(std::chrono::seconds(30));
    BOOST_TEST((check("prom-token") == Verdict::Allowed));
    BOOST_TEST((check("forged") == Verdict::Unauthenticated));
    BOOST_TEST(c.api.tokenReviews() == 5);  // both tokens reviewed again
    BOOST_TEST(c.api.accessReviews() == 3);  // the allowance still holds
}

BOOST_AUTO_TEST_CASE(every_user_is_in_system_authenticated) {
    Cluster c;
    auto d = c.authorizer()->check(metricsRequest("bob-token"));
    BOOST_TEST((d.verdict == Verdict::Allowed), d.reason);
    BOOST_TEST(d.user == "bob");
    auto sar = c.api.accessReviewSpecs();
    BOOST_TEST_REQUIRE(sar.size() == 1u);
    BOOST_TEST(json::serialize(sar[0].at("groups")) == R"(["system:authenticated"])");
    BOOST_TEST(!sar[0].contains("extra"));
    // The verb is the lower-case method, the path the request's.
    auto req = metricsRequest("other-token");
    req.method = "HEAD";
    req.path = "/metrics/extra";
    BOOST_TEST((c.authorizer()->check(req).verdict == Verdict::Forbidden));
    BOOST_TEST(json::serialize(c.api.accessReviewSpecs().back().at("nonResourceAttributes")) ==
               R"({"path":"/metrics/extra","verb":"head"})");
}

BOOST_AUTO_TEST_CASE(embedded_static_token_over_https) {
    TempDir dir;
    const std::string token = "Zk3n9bQ2x7VfT1mWc8aLr0sHdJ5uYpEo";  // as ensureCredentials makes one
    MetricsServer m(dir.file("metrics-certs"), std::make_shared<StaticTokenRequestAuthorizer>(token));
    auto a = m.get("Bearer " + token);
    BOOST_TEST(a.status == 200);
    BOOST_TEST(a.body.find(kMetricsLine) != std::string::npos);
    a = m.get("bearer   " + token);
    BOOST_TEST(a.status == 200);
    for (const std::string& bad : std::vector<std::string>{"", "Bearer " + token.substr(1), "Bearer " + token + "x", "Basic " + token, "Bearer x " + token}) {
        a = m.get(bad);
        BOOST_TEST(a.status == 401, bad);
        BOOST_TEST(a.body == "Unauthorized\n");
    }
    // An empty configured token matches nothing.
    StaticTokenRequestAuthorizer none("");
    BOOST_TEST((none.check(metricsRequest("")).verdict == Verdict::Unauthenticated));
    srv::Request r = metricsRequest("");
    r.headers.emplace_back("authorization", "Bearer ");
    BOOST_TEST((none.check(r).verdict == Verdict::Unauthenticated));
}

BOOST_AUTO_TEST_CASE(a_null_authorizer_refuses) {
    bool ran = false;
    srv::Route route{"GET", "/metrics", [&](const srv::Request&) {
                         ran = true;
                         return srv::Response{};
                     }};
    auto guarded = protectRoute(route, nullptr);
    BOOST_TEST(guarded.method == "GET");
    BOOST_TEST(guarded.path == "/metrics");
    BOOST_TEST(guarded.handler(metricsRequest("x")).status == 500u);
    BOOST_TEST(!ran);
}

BOOST_AUTO_TEST_SUITE_END()
