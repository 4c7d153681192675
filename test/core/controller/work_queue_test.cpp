#define BOOST_TEST_MODULE test_core_controller
#include <boost/test/unit_test.hpp>

#include "core/controller/controller.hpp"
#include "core/controller/work_queue.hpp"
#include "core/server/metrics.hpp"
#include "../../support/wait.hpp"

using namespace trainer::core;
using namespace trainer::core::controller;
using namespace std::chrono_literals;

namespace {
ObjectKey key(const std::string& name) { return ObjectKey{"trainer.kubeflow.org/v1alpha1", "TrainJob", "default", name}; }
}  // namespace

BOOST_AUTO_TEST_SUITE(work_queue)

BOOST_AUTO_TEST_CASE(backoff_doubles_from_5ms_and_caps_at_1000s) {
    Backoff b;
    const std::pair<int, Clock::duration> cases[] = {
        {0, 5ms}, {1, 10ms}, {2, 20ms}, {10, 5120ms}, {17, 655360ms}, {18, 1000s}, {60, 1000s}, {100000, 1000s}};
    for (auto const& [failures, want] : cases) BOOST_TEST(b.delay(failures).count() == Clock::duration(want).count(), "failures=" << failures);
}

BOOST_AUTO_TEST_CASE(dedup_and_no_concurrent_processing) {
    FakeClock clock;
    server::Registry metrics;
    WorkQueue q("trainjob", clock, &metrics);
    q.add(key("a"));
    q.add(key("a"));
    q.add(key("b"));
    BOOST_TEST(q.len() == 2u);
    BOOST_TEST(metrics.value("workqueue_depth", {"trainjob"}) == 2);
    BOOST_TEST(metrics.value("workqueue_adds_total", {"trainjob"}) == 2);
    auto a = q.tryGet();
    BOOST_REQUIRE(a);
    BOOST_TEST(a->name == "a");
    q.add(key("a"));  // while processing: held back until done()
    auto b = q.tryGet();
    BOOST_REQUIRE(b);
    BOOST_TEST(b->name == "b");
    BOOST_TEST(!q.tryGet());
    q.done(*a);
    auto again = q.tryGet();
    BOOST_REQUIRE(again);
    BOOST_TEST(again->name == "a");
    q.done(*again);
    q.done(*b);
    BOOST_TEST(q.len() == 0u);
}

BOOST_AUTO_TEST_CASE(add_after_waits_for_the_clock) {
    FakeClock clock;
    WorkQueue q("trainjob", clock);
    q.addAfter(key("a"), 30s);
    q.addAfter(key("a"), 10s);  // the earliest wins
    BOOST_TEST(!q.tryGet());
    BOOST_TEST(q.delayed() == 1u);
    clock.advance(9s);
    BOOST_TEST(!q.tryGet());
    clock.advance(1s);
    auto k = q.tryGet();
    BOOST_REQUIRE(k);
    BOOST_TEST(k->name == "a");
}

BOOST_AUTO_TEST_CASE(rate_limited_requeues_back_off_and_forget_resets) {
    FakeClock clock;
    server::Registry metrics;
    WorkQueue q("trainjob", clock, &metrics);
    for (int i = 0; i < 3; ++i) q.addRateLimited(key("a"));
    BOOST_TEST(q.numRequeues(key("a")) == 3);
    BOOST_TEST(metrics.value("workqueue_retries_total", {"trainjob"}) == 3);
    BOOST_TEST(!q.tryGet());
    clock.advance(5ms);  // first delay
    BOOST_TEST(q.tryGet().has_value());
    q.forget(key("a"));
    BOOST_TEST(q.numRequeues(key("a")) == 0);
}

BOOST_AUTO_TEST_CASE(shutdown_wakes_blocked_get) {
    RealClock clock;
    WorkQueue q("trainjob", clock);
    std::thread t([&] {
        std::this_thread::sleep_for(50ms);
        q.shutDown();
    });
    BOOST_TEST(!q.get().has_value());
    t.join();
    q.add(key("a"));
    BOOST_TEST(q.len() == 0u);
    // Reopened (a controller started again), it takes and hands out items once more.
    q.reopen();
    BOOST_TEST(!q.shuttingDown());
    q.add(key("b"));
    BOOST_TEST(q.len() == 1u);
    auto got = q.get();
    BOOST_REQUIRE(got.has_value());
    BOOST_TEST(got->name == "b");
}

BOOST_AUTO_TEST_CASE(failing_reconcile_never_hot_loops) {
    FakeClock clock;
    server::Registry metrics;
    int calls = 0;
    Controller c("trainjob", "TrainJob", [&](const ObjectKey&, const log::Logger&) {
        ++calls;
        return ReconcileResult{"boom", false, std::nullopt};
    }, clock, &metrics, log::Logger("test"));
    c.queue().add(key("a"));
    BOOST_TEST(c.drain() == 1u);  // the retry waits for its backoff
    BOOST_TEST(calls == 1);
    // Ten simulated seconds allow only the retries the exponential backoff admits:
    // 5+10+20+...+5120 ms = 10.235 s → 11 retries.
    for (int ms = 0; ms < 10000; ms += 1) {
        clock.advance(1ms);
        c.drain();
    }
    BOOST_TEST(calls == 11);
    BOOST_TEST(metrics.value("controller_runtime_reconcile_total", {"trainjob", "error"}) == 11);
    BOOST_TEST(metrics.value("controller_runtime_reconcile_errors_total", {"trainjob"}) == 11);
    BOOST_TEST(metrics.value("controller_runtime_reconcile_time_seconds", {"trainjob"}) == 11);
}

// Parallelism as an event, not a timing: each reconcile holds its worker until two reconciles
// have been in flight at once, which one worker alone never reaches (then the hang guard ends
// the wait and maxInFlight stays 1).
BOOST_AUTO_TEST_CASE(workers_process_in_parallel_and_stop_drains) {
    RealClock clock;
    std::atomic<int> inFlight{0}, maxInFlight{0}, done{0};
    Controller c("trainjob", "TrainJob", [&](const ObjectKey&, const log::Logger&) {
        int n = ++inFlight;
        int m = maxInFlight.load();
        while (n > m && !maxInFlight.compare_exchange_weak(m, n)) {
        }
        trainer::test::waitFor([&] { return maxInFlight.load() > 1; }, trainer::test::kEventBound, 1ms);
        --inFlight;
        ++done;
        return ReconcileResult{};
    }, clock, nullptr, log::Logger("test"), 4);
    c.start();
    for (int i = 0; i < 8; ++i) c.queue().add(key("j" + std::to_string(i)));
    BOOST_TEST(trainer::test::waitFor([&] { return done.load() == 8; }), "done: " << done.load());
    c.stop();
    BOOST_TEST(done.load() == 8);
    BOOST_TEST(maxInFlight.load() > 1);
    BOOST_TEST(inFlight.load() == 0);
}

BOOST_AUTO_TEST_SUITE_END()
