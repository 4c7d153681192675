// The kubelet's token cache: one token per pod and request, replaced after 80% of its lifetime
// or 24 h, dropped with the pod.
#define BOOST_TEST_MODULE core_executor_identity
#include "core/executor/token_manager.hpp"
#include "identity_fixture.hpp"

using namespace identity_test;
using namespace std::chrono_literals;
using executor::TokenManager;
using executor::tokenRequiresRefresh;

namespace {

auth::TokenBinding podBinding(std::string uid, std::string audience = "aud-a", int64_t seconds = 3600) {
    auth::TokenBinding b;
    b.ns = "team";
    b.podName = "p-" + uid;
    b.podUid = std::move(uid);
    b.audiences = {std::move(audience)};
    b.expirationSeconds = seconds;
    return b;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(token_manager)

BOOST_AUTO_TEST_CASE(refresh_after_eighty_percent_of_the_lifetime_or_a_day) {
    const auth::TimePoint t0(std::chrono::seconds(1714564800));
    BOOST_TEST(!tokenRequiresRefresh(t0 + 3600s, 3600, t0 + 2880s));
    BOOST_TEST(tokenRequiresRefresh(t0 + 3600s, 3600, t0 + 2881s));
    BOOST_TEST(!tokenRequiresRefresh(t0 + 600s, 600, t0 + 480s));
    BOOST_TEST(tokenRequiresRefresh(t0 + 600s, 600, t0 + 481s));
    const int64_t week = 7 * 24 * 3600;
    const auto weekExpiry = t0 + std::chrono::seconds(week);
    BOOST_TEST(!tokenRequiresRefresh(weekExpiry, week, t0 + 24h));
    BOOST_TEST(tokenRequiresRefresh(weekExpiry, week, t0 + 24h + 1s));
}

BOOST_AUTO_TEST_CASE(tokens_are_cached_per_pod_and_request_and_replaced_when_due) {
    IssuerDir dir;
    controller::FakeClock clock;
    TokenManager tokens(dir.issuer, clock);
    auto a = tokens.token(podBinding("u1"));
    BOOST_REQUIRE_MESSAGE(a.error.empty(), a.error);
    BOOST_TEST(tokens.token(podBinding("u1")).token == a.token);
    BOOST_TEST(tokens.token(podBinding("u1", "aud-b")).token != a.token);
    BOOST_TEST(tokens.token(podBinding("u1", "aud-a", 7200)).token != a.token);
    const std::string other = tokens.token(podBinding("u2")).token;
    BOOST_TEST(other != a.token);

    clock.advance(2880s);
    BOOST_TEST(!tokens.refreshDue("u1"));
    BOOST_TEST(tokens.token(podBinding("u1")).token == a.token);
    clock.advance(1s);
    BOOST_TEST(tokens.refreshDue("u1"));
    BOOST_TEST(!tokens.refreshDue("u3"));
    auto b = tokens.token(podBinding("u1"));
    BOOST_TEST(b.token != a.token);
    BOOST_TEST(claimsOf(b.token).at("iat").as_int64() == 1714564800 + 2881);
    BOOST_TEST(tokens.refreshDue("u1"), "the other requests of u1 are still due");
    tokens.token(podBinding("u1", "aud-b"));
    BOOST_TEST(!tokens.refreshDue("u1"));  // the 7200 s token is not due yet

    tokens.forget("u1");
    BOOST_TEST(tokens.token(podBinding("u1")).token != b.token);
    BOOST_TEST(tokens.refreshDue("u2"));  // u2 is untouched by forget("u1")
}

BOOST_AUTO_TEST_CASE(a_binding_the_issuer_refuses_is_an_error) {
    IssuerDir dir;
    controller::FakeClock clock;
    TokenManager tokens(dir.issuer, clock);
    auto r = tokens.token(podBinding("u1", "a", 10));
    BOOST_TEST(r.token.empty());
    BOOST_TEST(r.error == "expirationSeconds: Invalid value: 10: may not specify a duration less than 10 minutes");
}

BOOST_AUTO_TEST_SUITE_END()
