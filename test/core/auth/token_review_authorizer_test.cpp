#define BOOST_TEST_MODULE test_core_auth_review
#include <boost/test/unit_test.hpp>

#include "../../support/process.hpp"
#include "fake_review_api.hpp"

#include "core/auth/bearer_token.hpp"
#include "core/auth/token_review_authorizer.hpp"
#include "core/kube/client.hpp"

using namespace trainer::core::auth;
using trainer::test::TempDir;
using namespace trainer::test::auth;

namespace trainer::core::auth {
// How Boost.Test prints an outcome (found by ADL).
std::ostream& operator<<(std::ostream& os, AuthorizeOutcome o) {
    return os << (o == AuthorizeOutcome::Allowed ? "Allowed" : o == AuthorizeOutcome::Denied ? "Denied" : "Error");
}
}  // namespace trainer::core::auth

namespace {

// The fake cluster: pod `trainer-node-0` of TrainJob team-a/job1 holds "pod-token", bound to its
// job's audience; team-b has a pod with a token for team-a's job audience; alice is no service account.
struct Cluster {
    TempDir dir;
    FakeReviewApi api{dir.file("api-certs")};
    trainer::core::kube::Client client{api.restConfig()};
    ManualTime time;
    Cluster() {
        api.addToken("pod-token", serviceAccountToken("team-a", "default", "job1-node-0-0", {tokenAudience("team-a", "job1")}));
        api.addToken("other-ns-token", serviceAccountToken("team-b", "default", "x-node-0-0", {tokenAudience("team-a", "job1")}));
        FakeToken alice;
        alice.username = "alice";
        alice.groups = {"system:authenticated"};
        alice.audiences = {tokenAudience("team-a", "job1")};
        api.addToken("alice-token", alice);
        auto lax = serviceAccountToken("team-a", "default", "job1-node-0-1", {kApiAudience});
        lax.audienceAgnostic = true;
        api.addToken("lax-token", lax);
    }
    TokenReviewAuthorizerOptions options(int maxRetries = 0) {
        TokenReviewAuthorizerOptions o;
        o.now = time.fn();
        o.maxRetries = maxRetries;
        return o;
    }
};

}  // namespace

BOOST_AUTO_TEST_SUITE(token_review_authorizer)

BOOST_AUTO_TEST_CASE(allowed_sends_the_trainjob_audience) {
    Cluster c;
    TokenReviewAuthorizer authz(c.client, c.options());
    auto r = authz.authorize("pod-token", "team-a", "job1");
    BOOST_TEST(r.outcome == AuthorizeOutcome::Allowed, r.reason);
    BOOST_TEST(r.reason.find("job1-node-0-0") != std::string::npos, r.reason);
    auto specs = c.api.tokenReviewSpecs();
    BOOST_TEST_REQUIRE(specs.size() == 1u);
    BOOST_TEST(specs[0].at("token") == json::value("pod-token"));
    BOOST_TEST(json::serialize(specs[0].at("audiences")) ==
               "[\"trainer.kubeflow.org/v1alpha1/namespaces/team-a/trainjobs/job1/status\"]");
}

BOOST_AUTO_TEST_CASE(wrong_audience_is_denied) {
    Cluster c;
    TokenReviewAuthorizer authz(c.client, c.options());
    // The API server refuses a token reviewed for another TrainJob's audience.
    auto r = authz.authorize("pod-token", "team-a", "job2");
    BOOST_TEST(r.outcome == AuthorizeOutcome::Denied, r.reason);
    BOOST_TEST(r.reason.find("not authenticated") != std::string::npos, r.reason);
    // An authenticator that ignores spec.audiences: the answer's audiences are checked too.
    r = authz.authorize("lax-token", "team-a", "job1");
    BOOST_TEST(r.outcome == AuthorizeOutcome::Denied, r.reason);
    BOOST_TEST(r.reason.find("audiences do not include") != std::string::npos, r.reason);
}

BOOST_AUTO_TEST_CASE(other_namespace_or_no_service_account_is_denied) {
    Cluster c;
    TokenReviewAuthorizer authz(c.client, c.options());
    auto r = authz.authorize("other-ns-token", "team-a", "job1");
    BOOST_TEST(r.outcome == AuthorizeOutcome::Denied, r.reason);
    BOOST_TEST(r.reason.find("not in namespace team-a") != std::string::npos, r.reason);
    r = authz.authorize("alice-token", "team-a", "job1");
    BOOST_TEST(r.outcome == AuthorizeOutcome::Denied, r.reason);
    BOOST_TEST(r.reason.find("not a service account") != std::string::npos, r.reason);
}

BOOST_AUTO_TEST_CASE(unauthenticated_and_empty_tokens_are_denied) {
    Cluster c;
    TokenReviewAuthorizer authz(c.client, c.options());
    auto r = authz.authorize("forged", "team-a", "job1");
    BOOST_TEST(r.outcome == AuthorizeOutcome::Denied, r.reason);
    BOOST_TEST(r.reason.find("invalid bearer token") != std::string::npos, r.reason);
    r = authz.authorize("", "team-a", "job1");
    BOOST_TEST(r.outcome == AuthorizeOutcome::Denied);
    BOOST_TEST(c.api.tokenReviews() == 1);  // an empty token is never sent
}

BOOST_AUTO_TEST_CASE(api_failures_are_errors_not_denials) {
    Cluster c;
    TokenReviewAuthorizer authz(c.client, c.options(1));
    c.api.tokenReviewFailure = 500;
    auto r = authz.authorize("pod-token", "team-a", "job1");
    BOOST_TEST(r.outcome == AuthorizeOutcome::Error, r.reason);
    BOOST_TEST(r.reason.find("HTTP 500: etcdserver: request timed out") != std::string::npos, r.reason);
    BOOST_TEST(c.api.tokenReviews() == 2);  // retried once
    // Errors are not cached: the next call asks again.
    r = authz.authorize("pod-token", "team-a", "job1");
    BOOST_TEST(r.outcome == AuthorizeOutcome::Error);
    BOOST_TEST(c.api.tokenReviews() == 4);
    // The operator lacking RBAC for tokenreviews is an error too (not retried).
    c.api.tokenReviewFailure = 403;
    r = authz.authorize("pod-token", "team-a", "job1");
    BOOST_TEST(r.outcome == AuthorizeOutcome::Error, r.reason);
    BOOST_TEST(r.reason.find("HTTP 403") != std::string::npos, r.reason);
    BOOST_TEST(c.api.tokenReviews() == 5);
    c.api.tokenReviewFailure = 0;
    BOOST_TEST(authz.authorize("pod-token", "team-a", "job1").outcome == AuthorizeOutcome::Allowed);
}

BOOST_AUTO_TEST_CASE(malformed_answers_and_unreachable_servers_are_errors) {
    Cluster c;
    TokenReviewAuthorizer authz(c.client, c.options());
    c.api.setTokenReviewBody(R"({"kind":"TokenReview","apiVersion":"authentication.k8s.io/v1","status":{"authenticated":"yes"}})");
    auto r = authz.authorize("pod-token", "team-a", "job1");
    BOOST_TEST(r.outcome == AuthorizeOutcome::Error, r.reason);
    BOOST_TEST(r.reason.find("status.authenticated: expected a boolean") != std::string::npos, r.reason);
    c.api.setTokenReviewBody(
        R"({"kind":"TokenReview","status":{"authenticated":true,"user":{"username":"system:serviceaccount:team-a:default","groups":["a",3]}}})");
    r = authz.authorize("pod-token", "team-a", "job1");
    BOOST_TEST(r.outcome == AuthorizeOutcome::Error, r.reason);
    BOOST_TEST(r.reason.find("status.user.groups[1]: expected a string") != std::string::npos, r.reason);

    auto cfg = c.api.restConfig();
    cfg.server = "https://127.0.0.1:1";  // nothing listens there
    trainer::core::kube::Client nowhere(cfg);
    TokenReviewAuthorizer offline(nowhere, c.options());
    r = offline.authorize("pod-token", "team-a", "job1");
    BOOST_TEST(r.outcome == AuthorizeOutcome::Error, r.reason);
}

BOOST_AUTO_TEST_CASE(decisions_are_cached_per_token_and_trainjob) {
    Cluster c;
    TokenReviewAuthorizer authz(c.client, c.options());
    BOOST_TEST(authz.authorize("pod-token", "team-a", "job1").outcome == AuthorizeOutcome::Allowed);
    BOOST_TEST(authz.authorize("pod-token", "team-a", "job1").outcome == AuthorizeOutcome::Allowed);
    BOOST_TEST(c.api.tokenReviews() == 1);
    // Another TrainJob is another question.
    BOOST_TEST(authz.authorize("pod-token", "team-a", "job2").outcome == AuthorizeOutcome::Denied);
    BOOST_TEST(c.api.tokenReviews() == 2);
    // Denied is cached for 10 s, Allowed for 60 s.
    c.time.advance(std::chrono::seconds(9));
    BOOST_TEST(authz.authorize("pod-token", "team-a", "job2").outcome == AuthorizeOutcome::Denied);
    BOOST_TEST(c.api.tokenReviews() == 2);
    c.time.advance(std::chrono::seconds(1));
    BOOST_TEST(authz.authorize("pod-token", "team-a", "job2").outcome == AuthorizeOutcome::Denied);
    BOOST_TEST(c.api.tokenReviews() == 3);
    c.time.advance(std::chrono::seconds(49));
    BOOST_TEST(authz.authorize("pod-token", "team-a", "job1").outcome == AuthorizeOutcome::Allowed);
    BOOST_TEST(c.api.tokenReviews() == 3);
    c.time.advance(std::chrono::seconds(1));
    BOOST_TEST(authz.authorize("pod-token", "team-a", "job1").outcome == AuthorizeOutcome::Allowed);
    BOOST_TEST(c.api.tokenReviews() == 4);
}

BOOST_AUTO_TEST_CASE(service_account_namespace_parsing) {
    BOOST_TEST(serviceAccountNamespace("system:serviceaccount:team-a:default") == "team-a");
    BOOST_TEST(serviceAccountNamespace("system:serviceaccount:team-a:") == "");
    BOOST_TEST(serviceAccountNamespace("system:serviceaccount::default") == "");
    BOOST_TEST(serviceAccountNamespace("system:serviceaccount:team-a:a:b") == "");
    BOOST_TEST(serviceAccountNamespace("system:serviceaccounts:team-a") == "");
    BOOST_TEST(serviceAccountNamespace("alice") == "");
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(bearer_credentials)

BOOST_AUTO_TEST_CASE(bearer_header_parsing_matches_upstream) {
    BOOST_TEST(bearerToken("Bearer abc") == "abc");
    BOOST_TEST(bearerToken("bearer abc") == "abc");
    BOOST_TEST(bearerToken("  BEARER \t abc  ") == "abc");
    BOOST_TEST(bearerToken("Bearer") == "");
    BOOST_TEST(bearerToken("Bearer a b") == "");
    BOOST_TEST(bearerToken("Basic abc") == "");
    BOOST_TEST(bearerToken("") == "");
}

BOOST_AUTO_TEST_CASE(token_comparison_and_digest) {
    BOOST_TEST(tokensEqual("s3cret", "s3cret"));
    BOOST_TEST(!tokensEqual("s3cre", "s3cret"));
    BOOST_TEST(!tokensEqual("s3creT", "s3cret"));
    BOOST_TEST(!tokensEqual("", ""));
    BOOST_TEST(tokenDigest("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

BOOST_AUTO_TEST_SUITE_END()
