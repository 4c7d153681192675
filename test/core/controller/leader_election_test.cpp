#define BOOST_TEST_MODULE test_core_controller_leader_election
#include <boost/test/unit_test.hpp>

#include "core/controller/configuration.hpp"
#include "core/controller/leader_election.hpp"
#include "core/json/io.hpp"
#include "core/server/metrics.hpp"
#include "core/store/memory_store.hpp"
#include "test/support/forwarding_store.hpp"
#include "../../support/wait.hpp"

#include <atomic>
#include <thread>

using namespace trainer::core;
using namespace trainer::core::controller;
using namespace std::chrono_literals;

namespace {

const char* const kStart = "2024-05-01T12:00:00.000000Z";  // FakeClock's default start

// Forwards to a MemoryStore; writes fail while `failWrites`, reads while `failReads`; `afterGet` runs once, right after
// the next read (to interleave another candidate between a read and its write).
class HookStore : public trainer::test::ForwardingStore {
public:
    explicit HookStore(MemoryStore& s) : ForwardingStore(s), s_(s) {}
    ReadResult get(const ObjectKey& k) const override {
        auto r = failReads ? ReadResult::error("store: sqlite step: database is locked") : s_.get(k);
        if (auto hook = std::exchange(afterGet, nullptr)) hook();
        return r;
    }
    StoreResult create(const json::object& o) override { return failWrites ? failed() : s_.create(o); }
    StoreResult update(const json::object& o) override { return failWrites ? failed() : s_.update(o); }
    StoreResult updateStatus(const json::object& o) override { return failWrites ? failed() : s_.updateStatus(o); }

    bool failWrites = false;
    bool failReads = false;  // get answers Error, as a store busy past its timeout does
    mutable std::function<void()> afterGet;

private:
    static StoreResult failed() { return StoreResult{StoreStatus::Error, "database is locked", {}}; }
    MemoryStore& s_;
};

LeaderElectionOptions options(std::string identity) {
    LeaderElectionOptions o;
    o.identity = std::move(identity);
    return o;  // 15s / 10s / 2s, trainer.kubeflow.org in kubeflow-system
}

struct Fixture {
    FakeClock clock;
    MemoryStore memory{StoreOptions{ResourceTable(), [this] { return clock.now(); }}};
    HookStore store{memory};
    server::Registry metrics;
    std::vector<std::unique_ptr<LeaderElector>> electors;

    LeaderElector& candidate(const std::string& id, Store* s = nullptr) {
        electors.push_back(std::make_unique<LeaderElector>(s ? *s : store, clock, options(id), log::Logger("test"), &metrics));
        return *electors.back();
    }
    json::object lease() const {
        auto l = memory.get(ObjectKey{"coordination.k8s.io/v1", "Lease", "kubeflow-system", "trainer.kubeflow.org"});
        BOOST_REQUIRE_MESSAGE(l.found(), "no Lease in the store");
        return l.object;
    }
    json::object spec() const { return lease().at("spec").as_object(); }
    std::string holder() const { return std::string(spec().at("holderIdentity").as_string()); }
    int64_t transitions() const { return spec().at("leaseTransitions").as_int64(); }
    // client-go's gauge, by the name dashboards scrape (not the product's constant for it).
    double leading() const { return metrics.value("leader_election_master_status", {"trainer.kubeflow.org"}); }
    json::string now() const { return json::string(formatRfc3339(clock.now()).insert(19, ".000000")); }
};

// A StopWait that moves the fake clock instead of sleeping; stops after `limit` waits.
StopWait fakeWait(FakeClock& clock, int& waits, int limit) {
    return [&clock, &waits, limit](std::chrono::nanoseconds d) {
        if (++waits > limit) return true;
        clock.advance(std::chrono::duration_cast<Clock::duration>(d));
        return false;
    };
}

}  // namespace

BOOST_AUTO_TEST_SUITE(leader_election)

BOOST_FIXTURE_TEST_CASE(acquires_an_absent_lease_with_client_go_record, Fixture) {
    auto& a = candidate("host_a");
    BOOST_TEST(leading() == 0);  // reported as backup before the first try
    BOOST_TEST((a.step() == LeaderState::Leading));
    BOOST_TEST(a.isLeader());
    auto l = lease();
    BOOST_TEST(l.at("apiVersion") == "coordination.k8s.io/v1");
    BOOST_TEST(l.at("metadata").at("namespace") == "kubeflow-system");
    BOOST_TEST(l.at("metadata").at("name") == "trainer.kubeflow.org");
    BOOST_TEST(l.at("metadata").as_object().contains("resourceVersion"));
    json::object want{{"holderIdentity", "host_a"},
                      {"leaseDurationSeconds", 15},
                      {"acquireTime", kStart},
                      {"renewTime", kStart},
                      {"leaseTransitions", 0}};
    BOOST_TEST(json::serialize(spec()) == json::serialize(want));
    BOOST_TEST(leading() == 1);
    BOOST_TEST(a.describe() == "kubeflow-system/trainer.kubeflow.org");
}

BOOST_FIXTURE_TEST_CASE(second_candidate_waits_while_the_lease_is_renewed, Fixture) {
    auto& a = candidate("host_a");
    auto& b = candidate("host_b");
    BOOST_REQUIRE((a.step() == LeaderState::Leading));
    for (int i = 0; i < 20; ++i) {
        clock.advance(2s);
        BOOST_TEST((b.step() == LeaderState::Standby));
        BOOST_TEST((a.step() == LeaderState::Leading));
    }
    BOOST_TEST(holder() == "host_a");
    BOOST_TEST(!b.isLeader());
    BOOST_TEST(transitions() == 0);
}

BOOST_FIXTURE_TEST_CASE(renew_moves_renew_time_and_keeps_acquire_time, Fixture) {
    auto& a = candidate("host_a");
    BOOST_REQUIRE((a.step() == LeaderState::Leading));
    auto rv = lease().at("metadata").at("resourceVersion");
    clock.advance(2s);
    BOOST_TEST((a.step() == LeaderState::Leading));
    BOOST_TEST(spec().at("acquireTime") == kStart);
    BOOST_TEST(spec().at("renewTime") == "2024-05-01T12:00:02.000000Z");
    BOOST_TEST(lease().at("metadata").at("resourceVersion") != rv);
    clock.advance(1500ms);  // MicroTime keeps sub-second precision
    BOOST_TEST((a.step() == LeaderState::Leading));
    BOOST_TEST(spec().at("renewTime") == "2024-05-01T12:00:03.500000Z");
    BOOST_TEST(transitions() == 0);
}

BOOST_FIXTURE_TEST_CASE(standby_takes_over_only_after_expiry, Fixture) {
    auto& a = candidate("host_a");
    auto& b = candidate("host_b");
    BOOST_REQUIRE((a.step() == LeaderState::Leading));  // renewTime t0, 15s
    struct Case {
        std::chrono::milliseconds at;
        LeaderState want;
    };
    for (auto const& c : {Case{1s, LeaderState::Standby}, Case{14s, LeaderState::Standby},
                          Case{14999ms, LeaderState::Standby}, Case{15s, LeaderState::Leading}}) {
        clock.set(FakeClock().now() + c.at);
        BOOST_TEST((b.step() == c.want), "at " << c.at.count() << "ms");
    }
    BOOST_TEST(holder() == "host_b");
    BOOST_TEST(transitions() == 1);
    BOOST_TEST(spec().at("acquireTime") == "2024-05-01T12:00:15.000000Z");
    // The old leader learns at its next tick that someone else holds the lease.
    BOOST_TEST((a.step() == LeaderState::Lost));
    BOOST_TEST(!a.isLeader());
    BOOST_TEST(holder() == "host_b");
}

BOOST_FIXTURE_TEST_CASE(failing_to_renew_within_renew_deadline_loses_the_lease, Fixture) {
    auto& a = candidate("host_a");
    BOOST_REQUIRE((a.step() == LeaderState::Leading));
    store.failWrites = true;
    struct Case {
        std::chrono::seconds since;
        LeaderState want;
    };
    for (auto const& c : {Case{2s, LeaderState::Leading}, Case{4s, LeaderState::Leading}, Case{8s, LeaderState::Leading},
                          Case{9s, LeaderState::Leading}, Case{10s, LeaderState::Lost}}) {
        clock.set(FakeClock().now() + c.since);
        BOOST_TEST((a.step() == c.want), "after " << c.since.count() << "s");
    }
    BOOST_TEST(leading() == 0);
    store.failWrites = false;
    clock.advance(2s);
    BOOST_TEST((a.step() == LeaderState::Lost));  // final: the process must exit
    BOOST_TEST(a.release());                       // not leading: nothing to release
    BOOST_TEST(holder() == "host_a");              // nothing written after the loss
}

// A lease that cannot be read is not a missing lease: no candidate creates or takes one, the
// leader cannot renew (and loses at renewDeadline), nothing is written.
BOOST_FIXTURE_TEST_CASE(a_failing_read_is_not_a_missing_lease, Fixture) {
    {
        Fixture fresh;  // no lease yet: a candidate that cannot read does not create one
        fresh.store.failReads = true;
        auto& c = fresh.candidate("host_c");
        BOOST_TEST((c.step() == LeaderState::Standby));
        BOOST_TEST(fresh.memory.revision().value == 0);
        fresh.store.failReads = false;
        BOOST_TEST((c.step() == LeaderState::Leading));
    }
    auto& a = candidate("host_a");
    BOOST_REQUIRE((a.step() == LeaderState::Leading));
    const auto rev = memory.revision().value;
    store.failReads = true;
    clock.advance(9s);
    BOOST_TEST((a.step() == LeaderState::Leading));
    clock.advance(1s);
    BOOST_TEST((a.step() == LeaderState::Lost));
    BOOST_TEST(memory.revision().value == rev);
    BOOST_TEST(holder() == "host_a");
}

BOOST_FIXTURE_TEST_CASE(release_clears_the_holder_so_a_standby_takes_over_at_once, Fixture) {
    auto& a = candidate("host_a");
    auto& b = candidate("host_b");
    BOOST_REQUIRE((a.step() == LeaderState::Leading));
    BOOST_REQUIRE((b.step() == LeaderState::Standby));
    clock.advance(1s);
    BOOST_TEST(a.release());
    BOOST_TEST(!a.isLeader());
    BOOST_TEST(leading() == 0);
    BOOST_TEST(holder() == "");
    BOOST_TEST(spec().at("leaseDurationSeconds") == 1);
    BOOST_TEST(spec().at("renewTime") == now());
    BOOST_TEST(transitions() == 0);
    auto rev = memory.revision().value;
    BOOST_TEST(a.release());  // no longer leading: nothing written
    BOOST_TEST(memory.revision().value == rev);
    BOOST_TEST((b.step() == LeaderState::Leading));  // same instant: no waiting for expiry
    BOOST_TEST(holder() == "host_b");
    BOOST_TEST(transitions() == 1);
}

BOOST_FIXTURE_TEST_CASE(simultaneous_acquire_of_an_absent_lease_has_one_winner, Fixture) {
    auto& a = candidate("host_a");
    auto& b = candidate("host_b", &memory);
    store.afterGet = [&] { BOOST_TEST((b.step() == LeaderState::Leading)); };  // b reads and creates between a's read and write
    BOOST_TEST((a.step() == LeaderState::Standby));  // a's create: AlreadyExists
    BOOST_TEST(holder() == "host_b");
    BOOST_TEST(!a.isLeader());
    BOOST_TEST(b.isLeader());
}

BOOST_FIXTURE_TEST_CASE(simultaneous_takeover_of_an_expired_lease_has_one_winner, Fixture) {
    auto& old = candidate("host_old");
    BOOST_REQUIRE((old.step() == LeaderState::Leading));
    clock.advance(20s);
    auto& a = candidate("host_a");
    auto& b = candidate("host_b", &memory);
    store.afterGet = [&] { BOOST_TEST((b.step() == LeaderState::Leading)); };
    BOOST_TEST((a.step() == LeaderState::Standby));  // a's update carries the old resourceVersion: Conflict
    BOOST_TEST(holder() == "host_b");
    BOOST_TEST(transitions() == 1);
    BOOST_TEST((a.step() == LeaderState::Standby));  // and b's lease is now valid
}

BOOST_AUTO_TEST_CASE(racing_threads_elect_exactly_one_leader) {
    for (int round = 0; round < 20; ++round) {
        Fixture f;
        if (round % 2) {  // odd rounds: an expired lease to take over rather than none to create
            BOOST_REQUIRE((f.candidate("host_old").step() == LeaderState::Leading));
            f.clock.advance(16s);
        }
        std::vector<LeaderElector*> cs;
        for (int i = 0; i < 6; ++i) cs.push_back(&f.candidate("host_" + std::to_string(i), &f.memory));
        std::atomic<int> ready{0}, winners{0};
        std::vector<std::thread> ts;
        for (auto* c : cs)
            ts.emplace_back([&, c] {
                ++ready;
                while (ready.load() < int(cs.size())) std::this_thread::yield();
                if (c->step() == LeaderState::Leading) ++winners;
            });
        for (auto& t : ts) t.join();
        BOOST_TEST(winners.load() == 1, "round " << round);
        int leaders = 0;
        for (auto* c : cs) leaders += c->isLeader() && f.holder() == c->identity();
        BOOST_TEST(leaders == 1, "round " << round);
        BOOST_TEST(f.transitions() == (round % 2 ? 1 : 0));
    }
}

BOOST_FIXTURE_TEST_CASE(acquire_loop_waits_retry_periods_until_expiry, Fixture) {
    auto& a = candidate("host_a");
    auto& b = candidate("host_b");
    BOOST_REQUIRE((a.step() == LeaderState::Leading));
    int waits = 0;
    BOOST_TEST(b.acquire(fakeWait(clock, waits, 100)));
    BOOST_TEST(waits == 8);  // 8 x 2s: the first try at or after 15s
    BOOST_TEST(holder() == "host_b");
    int stopWaits = 0;
    auto& c = candidate("host_c");
    BOOST_TEST(!c.acquire(fakeWait(clock, stopWaits, 3)));  // stopping while standby
    BOOST_TEST(stopWaits == 4);
    BOOST_TEST(!c.isLeader());
}

BOOST_FIXTURE_TEST_CASE(renew_loop_runs_until_stop_or_loss, Fixture) {
    auto& a = candidate("host_a");
    int waits = 0;
    BOOST_REQUIRE(a.acquire(fakeWait(clock, waits, 100)));
    BOOST_TEST(waits == 0);
    BOOST_TEST(a.renew(fakeWait(clock, waits, 5)));  // stop after 5 renewals: still leading
    BOOST_TEST(a.isLeader());
    BOOST_TEST(spec().at("renewTime") == "2024-05-01T12:00:10.000000Z");
    store.failWrites = true;
    int lossWaits = 0;
    BOOST_TEST(!a.renew(fakeWait(clock, lossWaits, 100)));
    BOOST_TEST(lossWaits == 5);  // 5 x 2s = renewDeadline
    BOOST_TEST((a.state() == LeaderState::Lost));
}

// The stop is the event that ends a wait, not the wait's length: a wait of a day returns true
// as soon as the process stops (while it waits, and when it was stopped before), and a wait
// that ends without a stop returns false. The day is told apart from a return on the stop by
// the test's hang guard (60 s), far shorter than it.
BOOST_AUTO_TEST_CASE(stop_wait_on_a_future_returns_at_once_when_stopped) {
    std::promise<void> p;
    auto wait = stopWaitOn(p.get_future().share());
    BOOST_TEST(!wait(1ms));
    // A day-long wait on its own thread (detached with its own copy of `wait`, so a wait that
    // never ends cannot hang the test past its guard).
    auto dayLong = [wait] {
        std::packaged_task<bool()> task([wait] { return wait(24h); });
        auto result = task.get_future();
        std::thread(std::move(task)).detach();
        return result;
    };
    auto waiting = dayLong();
    p.set_value();  // while it waits, or before it started: both must end it
    BOOST_TEST_REQUIRE((waiting.wait_for(trainer::test::kEventBound) == std::future_status::ready),
                       "a day-long wait did not end when the process stopped");
    BOOST_TEST(waiting.get());
    auto after = dayLong();  // stopped before the wait began
    BOOST_TEST_REQUIRE((after.wait_for(trainer::test::kEventBound) == std::future_status::ready),
                       "a day-long wait began after the stop did not end");
    BOOST_TEST(after.get());
}

BOOST_AUTO_TEST_CASE(lease_records_read_defensively) {
    struct Case {
        std::string json;
        std::string holder;
        int64_t seconds;
        bool renew;
        bool heldAtStart;
    };
    const Case cases[] = {
        {R"({})", "", 0, false, false},
        {R"({"spec":7})", "", 0, false, false},
        {R"({"spec":{"holderIdentity":5,"leaseDurationSeconds":"x","renewTime":"soon"}})", "", 0, false, false},
        {R"({"spec":{"holderIdentity":"h","leaseDurationSeconds":15}})", "h", 15, false, false},
        {R"({"spec":{"holderIdentity":"h","leaseDurationSeconds":15,"renewTime":"2024-05-01T11:59:50.000000Z"}})", "h", 15,
         true, true},
        {R"({"spec":{"holderIdentity":"h","leaseDurationSeconds":10,"renewTime":"2024-05-01T11:59:50Z"}})", "h", 10, true,
         false},
        {R"({"spec":{"holderIdentity":"","leaseDurationSeconds":15,"renewTime":"2024-05-01T12:00:00Z"}})", "", 15, true,
         false},
    };
    for (auto const& c : cases) {
        auto r = leaseRecordOf(json::parse(c.json).as_object());
        BOOST_TEST(r.holderIdentity == c.holder, c.json);
        BOOST_TEST(r.leaseDurationSeconds == c.seconds, c.json);
        BOOST_TEST(r.renewTime.has_value() == c.renew, c.json);
        BOOST_TEST(leaseHeld(r, FakeClock().now()) == c.heldAtStart, c.json);
    }
}

BOOST_AUTO_TEST_CASE(identity_is_hostname_underscore_uuid) {
    auto id = newLeaderIdentity();
    auto us = id.rfind('_');
    BOOST_REQUIRE(us != std::string::npos);
    BOOST_TEST(id.size() - us - 1 == 36u);  // RFC 4122 text form
    BOOST_TEST(us > 0u);
    BOOST_TEST(newLeaderIdentity() != id);
}

BOOST_AUTO_TEST_CASE(go_durations_parse) {
    using std::chrono::nanoseconds;
    const std::pair<std::string, std::optional<nanoseconds>> cases[] = {
        {"15s", 15s},      {"500ms", 500ms},  {"1m30s", 90s},  {"1.5h", 5400s}, {"0", 0s},
        {"-2s", -2s},      {"+3s", 3s},       {"250us", 250us}, {"10ns", 10ns},  {"0.5s", 500ms},
        {"", std::nullopt}, {"5", std::nullopt}, {"s", std::nullopt}, {"1.2.3s", std::nullopt},
        {"3d", std::nullopt}, {"99999999999h", std::nullopt},
    };
    for (auto const& [text, want] : cases) BOOST_TEST((parseGoDuration(text) == want), "\"" << text << "\"");
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(leader_election_configuration)

namespace {
Diagnostics parse(const std::string& body, Configuration& cfg) {
    std::vector<json::value> docs;
    std::string err;
    BOOST_REQUIRE_MESSAGE(parseYaml("apiVersion: config.trainer.kubeflow.org/v1alpha1\nkind: Configuration\n" + body, docs, err),
                          err);
    return parseConfiguration(docs.at(0), cfg);
}
}  // namespace

BOOST_AUTO_TEST_CASE(defaults_elect_on_upstream_lease) {
    Configuration cfg;
    BOOST_TEST(parse("", cfg).ok());
    BOOST_TEST(cfg.leaderElect);
    BOOST_TEST(cfg.leaderElectionResourceName == "trainer.kubeflow.org");
    BOOST_TEST(cfg.leaderElectionResourceNamespace == "kubeflow-system");
    BOOST_TEST(cfg.leaderElectionResourceLock == "leases");
    BOOST_TEST((cfg.leaseDuration == 15s));
    BOOST_TEST((cfg.renewDeadline == 10s));
    BOOST_TEST((cfg.retryPeriod == 2s));
}

BOOST_AUTO_TEST_CASE(fields_decode) {
    Configuration cfg;
    auto d = parse("leaderElection: {leaderElect: true, resourceName: my-lock, resourceNamespace: ops, "
                   "resourceLock: leases, leaseDuration: 2s, renewDeadline: 1s, retryPeriod: 500ms}\n",
                   cfg);
    BOOST_TEST(d.ok());
    BOOST_TEST(cfg.leaderElectionResourceName == "my-lock");
    BOOST_TEST(cfg.leaderElectionResourceNamespace == "ops");
    BOOST_TEST((cfg.leaseDuration == 2s));
    BOOST_TEST((cfg.renewDeadline == 1s));
    BOOST_TEST((cfg.retryPeriod == 500ms));
    Configuration off;
    BOOST_TEST(parse("leaderElection: {leaderElect: false}\n", off).ok());
    BOOST_TEST(!off.leaderElect);
}

BOOST_AUTO_TEST_CASE(client_go_timing_rules_are_validated) {
    struct Case {
        std::string body;
        std::vector<std::string> paths;
    };
    const Case cases[] = {
        {"leaderElection: {leaseDuration: 10s, renewDeadline: 10s}\n", {"leaderElection.leaseDuration"}},
        {"leaderElection: {renewDeadline: 2s, retryPeriod: 2s}\n", {"leaderElection.renewDeadline"}},
        {"leaderElection: {renewDeadline: 2400ms, retryPeriod: 2s}\n", {"leaderElection.renewDeadline"}},
        {"leaderElection: {leaseDuration: 900ms, renewDeadline: 800ms, retryPeriod: 100ms}\n",
         {"leaderElection.leaseDuration"}},
        {"leaderElection: {retryPeriod: 0}\n", {"leaderElection.retryPeriod"}},
        {"leaderElection: {renewDeadline: -1s}\n", {"leaderElection.renewDeadline"}},
        {"leaderElection: {resourceLock: configmaps}\n", {"leaderElection.resourceLock"}},
        {"leaderElection: {renewDeadline: 2500ms, retryPeriod: 2s}\n", {}},
        {"leaderElection: {leaderElect: false, leaseDuration: 1s, renewDeadline: 5s, resourceLock: configmaps}\n", {}},
    };
    for (auto const& c : cases) {
        Configuration cfg;
        auto d = parse(c.body, cfg);
        std::vector<std::string> got;
        for (auto const& e : d.errors) got.push_back(e.path);
        BOOST_TEST(got == c.paths, boost::test_tools::per_element());
        for (auto const& e : d.errors)
            BOOST_TEST((e.message.starts_with("Invalid value: ") || e.message.starts_with("Unsupported value: ")), e.message);
    }
}

BOOST_AUTO_TEST_SUITE_END()
