#include <boost/test/unit_test.hpp>

#include "core/server/health.hpp"
#include "test_util.hpp"

using namespace trainer::core::server;

BOOST_AUTO_TEST_SUITE(health)

BOOST_AUTO_TEST_CASE(readyz_flips_with_named_checks) {
    Health h;
    h.setReady("store", false, "store not open");
    h.setReady("plugins", false);
    h.addReadyzCheck("webhook", [] { return std::string("not listening"); });

    trainer::test::IoRunner runner;
    ServerOptions o;
    o.bindAddress = "127.0.0.1:0";
    HttpServer server(runner.io, o, h.routes());
    BOOST_TEST_REQUIRE(server.start() == "");
    auto base = "http://127.0.0.1:" + std::to_string(server.port());

    auto healthz = trainer::test::curl(base + "/healthz");
    BOOST_TEST(healthz.status == 200);
    BOOST_TEST(healthz.body == "ok");

    auto r = trainer::test::curl(base + "/readyz");
    BOOST_TEST(r.status == 500);
    BOOST_TEST(r.body ==
               "[-]plugins failed: reason withheld\n"
               "[-]store failed: reason withheld\n"
               "[-]webhook failed: reason withheld\n"
               "readyz check failed\n");

    h.setReady("store", true);
    h.setReady("plugins", true);
    r = trainer::test::curl(base + "/readyz");
    BOOST_TEST(r.status == 500);
    BOOST_TEST(r.body ==
               "[+]plugins ok\n"
               "[+]store ok\n"
               "[-]webhook failed: reason withheld\n"
               "readyz check failed\n");

    h.addReadyzCheck("webhook", [] { return std::string(); });
    r = trainer::test::curl(base + "/readyz");
    BOOST_TEST(r.status == 200);
    BOOST_TEST(r.body == "ok");

    r = trainer::test::curl("'" + base + "/readyz?verbose'");
    BOOST_TEST(r.status == 200);
    BOOST_TEST(r.body == "[+]plugins ok\n[+]store ok\n[+]webhook ok\nreadyz check passed\n");

    h.setReady("store", false, "store closed");
    BOOST_TEST(trainer::test::curl(base + "/readyz").status == 500);
    BOOST_TEST(trainer::test::curl(base + "/healthz").status == 200);
}

BOOST_AUTO_TEST_CASE(healthz_verbose_and_throwing_checks) {
    Health h;
    BOOST_TEST(h.healthz(true).body == "[+]ping ok\nhealthz check passed\n");
    h.addHealthzCheck("broken", []() -> std::string { throw std::runtime_error("x"); });
    auto r = h.healthz();
    BOOST_TEST(r.status == 500u);
    BOOST_TEST(r.body == "[-]broken failed: reason withheld\n[+]ping ok\nhealthz check failed\n");
    // No readiness checks at all: ready.
    BOOST_TEST(h.readyz().status == 200u);
}

BOOST_AUTO_TEST_SUITE_END()
