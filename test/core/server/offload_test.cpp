// Offload routes (handlers that run plugin code) on a server without a connection pool, on its
// worker pool: the I/O threads keep serving while every worker is blocked, a full pool and queue
// answer 503, and a readiness check added with serveReason serves its reason.
#include <boost/test/unit_test.hpp>

#include "core/server/health.hpp"
#include "core/server/http.hpp"
#include "test_util.hpp"

#include <atomic>
#include <chrono>
#include <future>

using namespace trainer::core::server;
using trainer::test::curl;
using trainer::test::Gate;
using namespace std::chrono_literals;

BOOST_AUTO_TEST_SUITE(offload)

BOOST_AUTO_TEST_CASE(blocked_workers_leave_the_io_threads_serving_and_a_full_queue_answers_503) {
    trainer::test::IoRunner runner(2);  // two I/O threads, as run has
    Gate gate;
    std::vector<Route> routes{
        Route{"POST", "/admit",
              [&](const Request&) {
                  gate.wait();
                  return Response{200, "text/plain", "admitted", {}, {}};
              },
              false, true},
        Route{"GET", "/healthz", [](const Request&) { return Response{200, "text/plain", "ok", {}, {}}; }},
    };
    ServerOptions o;
    o.name = "test";
    o.bindAddress = "127.0.0.1:0";
    o.workerThreads = 2;
    o.workerQueue = 1;
    HttpServer server(runner.io, o, routes);
    BOOST_TEST_REQUIRE(server.start() == "");
    const std::string base = "http://127.0.0.1:" + std::to_string(server.port());
    auto post = [&] { return std::async(std::launch::async, [&] { return curl("-X POST --max-time 120 " + base + "/admit"); }); };

    // As many blocked handlers as I/O threads: the I/O threads still answer.
    auto a = post();
    auto b = post();
    BOOST_TEST_REQUIRE(gate.waitEntered(2));
    for (int i = 0; i < 4; ++i) BOOST_TEST(curl(base + "/healthz").body == "ok");

    // One more waits for a worker (the queue holds one); the next is refused.
    auto c = post();
    auto d = post();
    auto answered = [](std::future<trainer::test::HttpResult>& f) { return f.wait_for(60s) == std::future_status::ready; };
    // Exactly one of c and d is answered (503) while the others are blocked.
    bool cDone = false, dDone = false;
    for (int i = 0; i < 600 && !cDone && !dDone; ++i) {
        cDone = c.wait_for(50ms) == std::future_status::ready;
        dDone = d.wait_for(50ms) == std::future_status::ready;
    }
    BOOST_TEST_REQUIRE((cDone != dDone));
    auto& first = cDone ? c : d;
    auto& second = cDone ? d : c;
    auto busy = first.get();
    BOOST_TEST(busy.status == 503);
    BOOST_TEST(busy.body.find("the server is busy: 3 requests that run plugin code are running or waiting") !=
               std::string::npos, busy.body);
    BOOST_TEST(curl(base + "/healthz").body == "ok");

    gate.release();
    for (auto* f : {&a, &b, &second}) {
        BOOST_TEST_REQUIRE(answered(*f));
        auto r = f->get();
        BOOST_TEST(r.status == 200);
        BOOST_TEST(r.body == "admitted");
    }
    server.stop();
}

BOOST_AUTO_TEST_CASE(a_readiness_check_with_serve_reason_serves_it_others_withhold_theirs) {
    Health h;
    h.setReady("store", true);
    std::atomic<bool> stuck{false};
    h.addReadyzCheck("plugin-calls", [&] { return stuck ? std::string("plugin p, hook H, running for 75s") : std::string(); },
                     /*serveReason=*/true);
    h.addReadyzCheck("secret", [] { return std::string("internal detail"); });
    auto r = h.readyz();
    BOOST_TEST(r.status == 500u);
    BOOST_TEST(r.body.find("[-]secret failed: reason withheld\n") != std::string::npos, r.body);
    BOOST_TEST(r.body.find("[+]plugin-calls ok\n") != std::string::npos, r.body);
    stuck = true;
    r = h.readyz();
    BOOST_TEST(r.body.find("[-]plugin-calls failed: plugin p, hook H, running for 75s\n") != std::string::npos, r.body);
    BOOST_TEST(r.body.find("internal detail") == std::string::npos, r.body);
    // Liveness is not affected by readiness checks.
    BOOST_TEST(h.healthz().body == "ok");
}

BOOST_AUTO_TEST_SUITE_END()
