// Commit notifications (core/store/change_signal.hpp) and the polling loops' wait
// (core/store/poll_waiter.hpp): a subscriber hears every commit of this process and nothing that
// did not commit, an unsubscribed one nothing, an unsubscription waits for a call in flight; a
// PollWaiter's wait ends at a commit long before its interval, and for good at stop().
#include <boost/test/unit_test.hpp>

#include "core/store/poll_waiter.hpp"
#include "store_test_util.hpp"

#include <boost/mpl/list.hpp>

#include <atomic>
#include <future>
#include <thread>

using namespace trainer::core;
using namespace trainer::core::test;

namespace {

using Backends = boost::mpl::list<MemoryBackend, SqliteBackend>;

constexpr auto kBound = std::chrono::seconds(60);  // generous: each wait ends at an event, never at this
constexpr auto kNever = std::chrono::hours(1);     // an interval no test waits out

}  // namespace

BOOST_AUTO_TEST_SUITE(commit_signal)

BOOST_AUTO_TEST_CASE_TEMPLATE(every_commit_and_nothing_else_is_heard, B, Backends) {
    B backend;
    auto store = backend.make();
    std::atomic<int> heard{0};
    auto subscription = store->onCommit([&] { ++heard; });
    BOOST_REQUIRE(subscription);
    BOOST_REQUIRE(store->create(configMap("a")).ok());
    BOOST_TEST(heard == 1);
    BOOST_TEST(store->create(configMap("a")).status == StoreStatus::AlreadyExists);  // rolled back: not heard
    BOOST_TEST(heard == 1);
    auto applied = store->applyAll({configMap("b"), configMap("c")}, "test");  // one transaction
    BOOST_REQUIRE(applied.ok());
    BOOST_TEST(heard == 2);
    BOOST_REQUIRE(store->remove(ObjectKey{"v1", "ConfigMap", "default", "a"}).ok());
    BOOST_TEST(heard == 3);
    subscription = ChangeSubscription();  // unsubscribed
    BOOST_REQUIRE(store->create(configMap("d")).ok());
    BOOST_TEST(heard == 3);
}

// The controller writes through the rederivable writer: the store's subscribers hear it.
BOOST_AUTO_TEST_CASE(the_rederivable_writers_commits_are_the_stores) {
    SqliteBackend backend;
    auto opened = backend.make();
    auto& store = dynamic_cast<SqliteStore&>(*opened);
    auto writer = store.rederivableWriter();
    std::atomic<int> heard{0};
    auto subscription = store.onCommit([&] { ++heard; });
    BOOST_REQUIRE(writer->apply(configMap("a"), "controller").ok());
    BOOST_TEST(heard == 1);
    auto viaWriter = writer->onCommit([&] { heard += 10; });
    BOOST_REQUIRE(store.create(configMap("b")).ok());
    BOOST_TEST(heard == 12);
}

// A subscription dropped while its callback runs on another thread returns only after the call:
// the callback never touches what its owner has destroyed.
BOOST_AUTO_TEST_CASE(an_unsubscription_waits_for_the_call_in_flight) {
    MemoryStore store;
    std::promise<void> entered, release;
    auto released = release.get_future().share();
    std::atomic<int> order{0}, callbackDone{0}, unsubscribed{0};
    auto subscription = std::make_unique<ChangeSubscription>(store.onCommit([&] {
        entered.set_value();
        released.wait();
        callbackDone = ++order;
    }));
    std::thread writer([&] { BOOST_CHECK(store.create(configMap("a")).ok()); });
    BOOST_REQUIRE(entered.get_future().wait_for(kBound) == std::future_status::ready);
    std::thread dropper([&] {
        subscription.reset();
        unsubscribed = ++order;
    });
    release.set_value();
    writer.join();
    dropper.join();
    BOOST_TEST(callbackDone == 1);
    BOOST_TEST(unsubscribed == 2);
}

// A server's watch streams can outlive the store at shutdown: dropping their subscriptions then
// touches nothing of the store (the sanitizer build would see it).
BOOST_AUTO_TEST_CASE_TEMPLATE(a_subscription_may_outlive_its_store, B, Backends) {
    B backend;
    auto store = backend.make();
    int heard = 0;
    auto subscription = store->onCommit([&] { ++heard; });
    auto moved = std::move(subscription);
    BOOST_TEST(!subscription);
    BOOST_REQUIRE(store->create(configMap("a")).ok());
    BOOST_TEST(heard == 1);
    store.reset();
    BOOST_TEST(!moved);  // its signal has gone
    moved = ChangeSubscription();
}

BOOST_AUTO_TEST_CASE(a_store_that_cannot_tell_subscribes_nothing) {
    struct Silent : Store {
        ReadResult get(const ObjectKey&) const override { return ReadResult::absent(); }
        ListResult list(const std::string&, const std::string&, const std::optional<std::string>&) const override {
            return ListResult::of({});
        }
        StoreResult create(const json::object&) override { return {}; }
        StoreResult update(const json::object&) override { return {}; }
        StoreResult updateStatus(const json::object&) override { return {}; }
        ApplyResult apply(const json::object&, std::string_view) override { return {}; }
        using Store::remove;
        StoreResult remove(const ObjectKey&, const DeleteOptions&) override { return {}; }
        ReadValue<std::vector<Change>> changesSince(int64_t, size_t) const override { return ReadValue<std::vector<Change>>::of({}); }
        ReadValue<int64_t> revision() const override { return ReadValue<int64_t>::of(0); }
        ReadValue<int64_t> compactedRevision() const override { return ReadValue<int64_t>::of(0); }
        ListResult listAll() const override { return ListResult::of({}); }
    } silent;
    BOOST_TEST(!silent.onCommit([] {}));
}

BOOST_AUTO_TEST_CASE_TEMPLATE(a_commit_ends_a_wait_long_before_its_interval, B, Backends) {
    B backend;
    auto store = backend.make();
    PollWaiter waiter(*store);
    auto waited = std::async(std::launch::async, [&] { return waiter.wait(kNever); });
    BOOST_REQUIRE(store->create(configMap("a")).ok());
    BOOST_REQUIRE(waited.wait_for(kBound) == std::future_status::ready);
    BOOST_TEST(waited.get());
    // A commit made while nobody waits ends the next wait at once (the loop was polling then).
    BOOST_REQUIRE(store->create(configMap("b")).ok());
    auto next = std::async(std::launch::async, [&] { return waiter.wait(kNever); });
    BOOST_REQUIRE(next.wait_for(kBound) == std::future_status::ready);
    BOOST_TEST(next.get());
    waiter.stop();
}

BOOST_AUTO_TEST_CASE(stop_ends_every_wait_until_restart) {
    MemoryStore store;
    PollWaiter waiter(store);
    auto waited = std::async(std::launch::async, [&] { return waiter.wait(kNever); });
    waiter.stop();
    BOOST_REQUIRE(waited.wait_for(kBound) == std::future_status::ready);
    BOOST_TEST(!waited.get());
    BOOST_TEST(waiter.stopped());
    BOOST_TEST(!waiter.wait(kNever));  // at once
    waiter.restart();
    BOOST_TEST(!waiter.stopped());
    BOOST_REQUIRE(store.create(configMap("a")).ok());
    BOOST_TEST(waiter.wait(kNever));  // the commit made before it: at once
}

BOOST_AUTO_TEST_SUITE_END()
