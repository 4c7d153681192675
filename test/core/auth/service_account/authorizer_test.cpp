// The status server's EmbeddedTokenAuthorizer: upstream's checks (signature, expiry, audience,
// namespace) plus the bound pod's existence, with Error kept apart from Denied.
#include "core/auth/embedded_token_authorizer.hpp"
#include "token_fixture.hpp"

#include <stdexcept>

using namespace token_test;
using namespace std::chrono_literals;
using auth::AuthorizeOutcome;
using auth::PodCheck;

namespace {

struct AuthorizerFixture : IssuerFixture {
    PodCheck answer = PodCheck::Exists;
    std::vector<std::string> asked;
    std::shared_ptr<const auth::ServiceAccountTokenIssuer> shared{issuer.get(), [](auto*) {}};
    auth::EmbeddedTokenAuthorizer authorizer{
        shared,
        [this](std::string_view ns, std::string_view pod, std::string_view uid) {
            asked.push_back(std::string(ns) + "/" + std::string(pod) + "/" + std::string(uid));
            if (answer == PodCheck::Error && asked.size() > 100) throw std::runtime_error("unreachable");
            return answer;
        },
        [this] { return clock.now(); }};
};

}  // namespace

BOOST_FIXTURE_TEST_SUITE(embedded_token_authorizer, AuthorizerFixture)

BOOST_AUTO_TEST_CASE(token_of_an_existing_pod_of_the_job_is_allowed) {
    auto r = authorizer.authorize(mint(binding("team", "job")), "team", "job");
    BOOST_TEST((r.outcome == AuthorizeOutcome::Allowed), r.reason);
    BOOST_TEST(asked == std::vector<std::string>{"team/job-node-0-0-abcde/0b5e7a3c-uid"});
}

BOOST_AUTO_TEST_CASE(other_job_other_namespace_expired_and_forged_tokens_are_denied) {
    const std::string token = mint(binding("team", "job"));
    auto r = authorizer.authorize(token, "team", "other");
    BOOST_TEST((r.outcome == AuthorizeOutcome::Denied));
    BOOST_TEST(r.reason.find("audience does not include") != std::string::npos, r.reason);

    // A token of namespace "other" whose audience names team/job (upstream's namespace check).
    auto b = binding("other", "job");
    b.audiences = {auth::tokenAudience("team", "job")};
    r = authorizer.authorize(mint(b), "team", "job");
    BOOST_TEST((r.outcome == AuthorizeOutcome::Denied));
    BOOST_TEST(r.reason == "the token is bound to namespace \"other\", not \"team\"");

    for (std::string bad : {std::string(), std::string("x.y.z"), token + "x", std::string(100000, '.')}) {
        r = authorizer.authorize(bad, "team", "job");
        BOOST_TEST((r.outcome == AuthorizeOutcome::Denied));
        BOOST_TEST(!r.reason.empty());
    }
    clock.advance(2h);
    r = authorizer.authorize(token, "team", "job");
    BOOST_TEST((r.outcome == AuthorizeOutcome::Denied));
    BOOST_TEST(r.reason == "the token has expired");
    BOOST_TEST(asked.empty(), "the pod is looked up only for otherwise valid tokens");
}

BOOST_AUTO_TEST_CASE(token_of_a_gone_pod_is_denied_and_a_failed_lookup_is_an_error) {
    const std::string token = mint(binding());
    answer = PodCheck::Gone;
    auto r = authorizer.authorize(token, "team", "job");
    BOOST_TEST((r.outcome == AuthorizeOutcome::Denied));
    BOOST_TEST(r.reason == "the token's pod team/job-node-0-0-abcde (uid 0b5e7a3c-uid) no longer exists");
    answer = PodCheck::Error;
    r = authorizer.authorize(token, "team", "job");
    BOOST_TEST((r.outcome == AuthorizeOutcome::Error));
    BOOST_TEST(r.reason == "cannot tell whether the token's pod team/job-node-0-0-abcde (uid 0b5e7a3c-uid) exists");
}

BOOST_AUTO_TEST_CASE(a_throwing_pod_check_is_an_error_and_a_token_without_pod_is_denied) {
    auth::EmbeddedTokenAuthorizer throwing(
        shared, [](std::string_view, std::string_view, std::string_view) -> PodCheck { throw std::runtime_error("boom"); },
        [this] { return clock.now(); });
    BOOST_TEST((throwing.authorize(mint(binding()), "team", "job").outcome == AuthorizeOutcome::Error));

    json::object claims = decodePart(parts(mint(binding()))[1]);
    claims["kubernetes.io"].as_object().erase("pod");
    auto r = authorizer.authorize(signClaims(claims), "team", "job");
    BOOST_TEST((r.outcome == AuthorizeOutcome::Denied));
    BOOST_TEST(r.reason == "the token is not bound to a pod");
}

BOOST_AUTO_TEST_CASE(an_unconfigured_authorizer_is_an_error) {
    auth::EmbeddedTokenAuthorizer none(nullptr, nullptr, nullptr);
    auto r = none.authorize(mint(binding()), "team", "job");
    BOOST_TEST((r.outcome == AuthorizeOutcome::Error));
}

BOOST_AUTO_TEST_SUITE_END()
