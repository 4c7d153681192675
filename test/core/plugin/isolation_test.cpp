// Process isolation (core/plugin/isolation_*.cpp): the fault matrix of issue 12 run through the
// real loader and Framework, each fault fixture in a real `trainer-operator plugin-host` child
// ($TRAINER_PLUGIN_HOST, set by test/CMakeLists.txt), plus the wire and the breaker on their own.
#define BOOST_TEST_MODULE test_core_plugin_isolation
#include <boost/test/unit_test.hpp>

#include "core/plugin/framework.hpp"
#include "core/plugin/isolation_breaker.hpp"
#include "core/plugin/isolation_client.hpp"
#include "core/plugin/isolation_wire.hpp"
#include "test_support.hpp"

#include <signal.h>
#include <sys/socket.h>

using namespace trainer::core;
namespace json = boost::json;
using namespace std::chrono_literals;

namespace {

// A directory with the given fault fixtures (fault_<f>.so) and, optionally, core fixtures.
struct FaultDir {
    PluginDir dir{{}};
    explicit FaultDir(const std::vector<std::string>& faults, const std::vector<std::string>& fixtures = {}) {
        for (auto const& f : faults)
            fs::copy_file(fs::path(FIXTURE_DIR) / "faults" / ("fault_" + f + ".so"), dir.dir / ("fault_" + f + ".so"));
        for (auto const& f : fixtures) fs::copy_file(fs::path(FIXTURE_DIR) / (f + ".so"), dir.dir / (f + ".so"));
    }
};

// The call timeout is a hang guard here (60 s): every fault but `hang` ends its call at once, and
// the call after it (a new child's start included) is never timed.
PluginOptions processOptions() {
    PluginOptions o;
    o.isolation.limits.callTimeout = 60s;
    o.isolation.limits.memoryBytes = 512ull << 20;
    o.isolation.limits.outputBytes = 8ull << 20;
    o.isolation.breaker.initialBackoff = 0ms;  // the next call restarts at once
    o.isolation.breaker.maxBackoff = 0ms;
    return o;
}

json::object infoNamed(const std::string& name) {
    auto info = minimalInfo();
    info["trainJob"].as_object()["metadata"].as_object()["name"] = name;
    return info;
}

std::string errorsOf(const Diagnostics& d) {
    std::string s;
    for (auto const& e : d.errors) s += e.message + "\n";
    return s;
}

const ObjectSet kCluster;

struct Loaded {
    FaultDir files;
    PluginRegistry registry;
    explicit Loaded(const std::vector<std::string>& faults, PluginOptions o = processOptions(),
                    const std::vector<std::string>& fixtures = {})
        : files(faults, fixtures) {
        registry.loadDirectory(files.dir.dir.string(), o);
    }
};

// Builds a targeted TrainJob (expecting `fragment` in the error) and then an untargeted one
// (which must build): the operator survives the fault and the plugin serves the next call.
void expectBuildFault(const std::string& fault, const std::string& fragment, PluginOptions o = processOptions()) {
    Loaded l({fault}, o);
    BOOST_TEST_CONTEXT("fault " << fault) {
        BOOST_REQUIRE_MESSAGE(l.registry.plugins().size() == 1u, (l.registry.rejected().empty() ? "" : l.registry.rejected()[0].reason));
        BOOST_TEST((l.registry.plugins()[0]->isolation == Isolation::Process));
        Framework fw(l.registry);
        auto bad = fw.build(infoNamed("fault-1"), kCluster);
        const std::string errors = errorsOf(bad.diagnostics);
        BOOST_TEST(!bad.diagnostics.ok());
        BOOST_TEST(errors.find("plugin fault-" + fault) != std::string::npos, errors);
        BOOST_TEST(errors.find("EnforcePodSpec") != std::string::npos, errors);
        BOOST_TEST(errors.find(fragment) != std::string::npos, errors);
        auto good = fw.build(infoNamed("other-1"), kCluster);
        BOOST_TEST(good.diagnostics.ok(), errorsOf(good.diagnostics));
    }
}

}  // namespace

BOOST_AUTO_TEST_SUITE(process_isolation)

BOOST_AUTO_TEST_CASE(third_party_plugins_default_to_a_child_and_build_like_in_process) {
    Loaded l({"segv"}, processOptions(), {"alpha"});
    BOOST_REQUIRE_EQUAL(l.registry.plugins().size(), 2u);
    for (auto const& p : l.registry.plugins()) {
        BOOST_TEST((p->isolation == Isolation::Process), p->name);
        BOOST_REQUIRE(p->remote);
        BOOST_TEST(p->remote->childPid() > 0);
        BOOST_TEST(::kill(p->remote->childPid(), 0) == 0);
    }
    auto* alpha = l.registry.find("alpha");
    BOOST_REQUIRE(alpha);
    BOOST_TEST(alpha->claims == (std::vector<std::string>{"mlPolicy.alpha", "env:ALPHA_ENV"}));
    BOOST_TEST(alpha->implements(Hook::EnforceMLPolicy));
    BOOST_TEST(alpha->version == "1.2.3");
}

BOOST_AUTO_TEST_CASE(in_process_setting_loads_the_file_here_after_a_probe) {
    auto o = processOptions();
    o.isolation.mode = Isolation::InProcess;
    Loaded l({"segv"}, o);
    BOOST_REQUIRE_EQUAL(l.registry.plugins().size(), 1u);
    BOOST_TEST((l.registry.plugins()[0]->isolation == Isolation::InProcess));
    BOOST_TEST(!l.registry.plugins()[0]->remote);
    BOOST_TEST(l.registry.plugins()[0]->instance != nullptr);
    // Per plugin beats global.
    o.isolation.perPlugin["fault-segv"].isolation = Isolation::Process;
    Loaded m({"segv"}, o);
    BOOST_REQUIRE_EQUAL(m.registry.plugins().size(), 1u);
    BOOST_TEST((m.registry.plugins()[0]->isolation == Isolation::Process));
}

BOOST_AUTO_TEST_CASE(segfault_costs_the_call_not_the_operator) { expectBuildFault("segv", "was killed by SIGSEGV"); }
BOOST_AUTO_TEST_CASE(abort_costs_the_call) { expectBuildFault("abort", "was killed by SIGABRT"); }
BOOST_AUTO_TEST_CASE(exit_costs_the_call) { expectBuildFault("exit", "exited with status 3"); }
BOOST_AUTO_TEST_CASE(raw_throw_is_contained_in_the_child) { expectBuildFault("throw", "let an exception escape"); }
// The hung call never returns, so it ends at the deadline whatever the load (the event); the
// deadline also bounds the next call, a new child's start included, so it is 5 s, not a
// fraction of a second that a loaded machine may need for that start.
BOOST_AUTO_TEST_CASE(hang_hits_the_deadline) {
    auto o = processOptions();
    o.isolation.perPlugin["fault-hang"].callTimeout = 5s;
    expectBuildFault("hang", "did not return within 5.0s", o);
}
BOOST_AUTO_TEST_CASE(huge_output_hits_the_output_limit) {
    auto o = processOptions();
    o.isolation.limits.memoryBytes = 4ull << 30;  // room for the 100 MB document's copies (and ASan's shadow)
    expectBuildFault("huge", "over its output limit of 8388608", o);
}
BOOST_AUTO_TEST_CASE(memory_exhaustion_hits_the_memory_limit) {
    auto o = processOptions();
    o.isolation.limits.memoryBytes = 256ull << 20;
    o.isolation.limits.callTimeout = 60s;
    expectBuildFault("oom", "exceeded its memory limit of 268435456 bytes", o);
}

BOOST_AUTO_TEST_CASE(malformed_output_is_refused_by_the_edit_ledger) {
    Loaded l({"malformed"});
    BOOST_REQUIRE_EQUAL(l.registry.plugins().size(), 1u);
    Framework fw(l.registry);
    auto bad = fw.build(infoNamed("fault-1"), kCluster);
    BOOST_TEST(!bad.diagnostics.ok());
    BOOST_TEST(errorsOf(bad.diagnostics).find("fault-malformed") != std::string::npos, errorsOf(bad.diagnostics));
    BOOST_TEST(fw.build(infoNamed("other-1"), kCluster).diagnostics.ok());
}

BOOST_AUTO_TEST_CASE(admission_fault_is_an_error_naming_the_plugin_and_hook) {
    Loaded l({"segv"});
    Framework fw(l.registry);
    auto info = infoNamed("fault-1");
    info["admission"] = json::object{{"operation", "CREATE"}};
    auto d = fw.validate(info, kCluster);
    BOOST_TEST(errorsOf(d).find("plugin fault-segv failed in CustomValidation") != std::string::npos, errorsOf(d));
}

BOOST_AUTO_TEST_CASE(constructor_and_create_crashes_reject_the_file_in_both_modes) {
    for (auto mode : {Isolation::Process, Isolation::InProcess}) {
        auto o = processOptions();
        o.isolation.mode = mode;
        Loaded l({"ctor", "create"}, o);
        BOOST_TEST(l.registry.plugins().empty());
        auto ctor = rejectionFor(l.registry, "fault_ctor.so");
        auto create = rejectionFor(l.registry, "fault_create.so");
        BOOST_TEST(ctor.find("its code failed while loading in a plugin-host child (the child was killed by SIGSEGV)") !=
                       std::string::npos,
                   ctor);
        BOOST_TEST(create.find("its create function failed in its plugin-host child (the child was killed by SIGSEGV)") !=
                       std::string::npos,
                   create);
    }
}

BOOST_AUTO_TEST_CASE(repeated_failures_open_the_circuit) {
    auto o = processOptions();
    o.isolation.breaker.openAfter = 2;
    o.isolation.breaker.openFor = 1h;
    Loaded l({"segv"}, o);
    Framework fw(l.registry);
    fw.build(infoNamed("fault-1"), kCluster);
    fw.build(infoNamed("fault-2"), kCluster);
    BOOST_TEST(l.registry.plugins()[0]->remote->circuitOpen());
    auto d = fw.build(infoNamed("other-1"), kCluster).diagnostics;
    BOOST_TEST(errorsOf(d).find("plugin fault-segv failed in EnforcePodSpec: it is unavailable, its circuit is open after 2 "
                                "consecutive failures (last: its plugin-host child was killed by SIGSEGV in EnforcePodSpec") !=
                   std::string::npos,
               errorsOf(d));
    BOOST_TEST(errorsOf(d).find("was killed by SIGSEGV") != std::string::npos, errorsOf(d));
}

BOOST_AUTO_TEST_CASE(observer_counts_failures_restarts_and_the_circuit) {
    auto o = processOptions();
    o.isolation.breaker.openAfter = 2;
    o.isolation.breaker.openFor = 1h;
    FaultDir files({"segv"});
    PluginRegistry registry;
    std::vector<std::string> events;
    registry.setIsolationObserver([&](const std::string& p, std::string_view e, std::string_view r) {
        events.push_back(p + ":" + std::string(e) + ":" + std::string(r));
    });
    registry.loadDirectory(files.dir.dir.string(), o);
    Framework fw(registry);
    fw.build(infoNamed("fault-1"), kCluster);
    fw.build(infoNamed("fault-2"), kCluster);
    BOOST_TEST(events == (std::vector<std::string>{"fault-segv:failure:crash", "fault-segv:restart:",
                                                   "fault-segv:failure:crash", "fault-segv:circuit:open"}));
}

BOOST_AUTO_TEST_CASE(claim_theft_never_evicts_a_plugin_loaded_first) {
    // alpha claims mlPolicy.alpha; a second file claiming it is refused, in a child, naming the owner.
    auto o = processOptions();
    FaultDir files({}, {"alpha", "thief"});
    PluginRegistry registry;
    registry.loadDirectory(files.dir.dir.string(), o);
    BOOST_REQUIRE(registry.find("alpha"));
    BOOST_TEST(!registry.find("thief"));
    BOOST_TEST(rejectionFor(registry, "thief.so").find("already held by plugin alpha") != std::string::npos);
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(restart_breaker)

BOOST_AUTO_TEST_CASE(backoff_doubles_then_the_circuit_opens_and_half_opens) {
    isolation::BreakerSettings s{100ms, 400ms, 4, 10s};
    isolation::Breaker b(s);
    const auto t0 = std::chrono::steady_clock::time_point{} + 1h;
    using V = isolation::Breaker::Verdict;
    BOOST_TEST((b.admit(t0) == V::Allow));
    b.recordFailure(t0, "one");
    BOOST_TEST((b.admit(t0 + 99ms) == V::Backoff));
    BOOST_TEST((b.admit(t0 + 100ms) == V::Allow));
    b.recordFailure(t0, "two");  // 200ms
    BOOST_TEST((b.admit(t0 + 199ms) == V::Backoff));
    BOOST_TEST((b.admit(t0 + 200ms) == V::Allow));
    b.recordFailure(t0, "three");  // 400ms (capped)
    BOOST_TEST((b.admit(t0 + 399ms) == V::Backoff));
    b.recordFailure(t0, "four");  // opens for 10s
    BOOST_TEST(b.isOpen(t0 + 9s));
    BOOST_TEST((b.admit(t0 + 9s) == V::Open));
    BOOST_TEST(b.lastFailure() == "four");
    BOOST_TEST((b.admit(t0 + 10s) == V::Allow));  // half-open: one trial
    b.recordFailure(t0 + 10s, "five");
    BOOST_TEST((b.admit(t0 + 19s) == V::Open));
    BOOST_TEST((b.admit(t0 + 20s) == V::Allow));
    b.recordSuccess();
    BOOST_TEST(b.consecutiveFailures() == 0);
    BOOST_TEST((b.admit(t0 + 20s) == V::Allow));
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(host_wire)

BOOST_AUTO_TEST_CASE(frames_round_trip_and_malformed_frames_are_refused) {
    int sv[2];
    BOOST_REQUIRE(::socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0);
    using isolation::Frame;
    using isolation::FrameType;
    using isolation::WireStatus;
    Frame a{FrameType::Call, {"EnforcePodSpec", std::string("{\"x\":\0}", 7)}};
    BOOST_REQUIRE(isolation::writeAll(sv[0], isolation::encodeFrame(a) + isolation::encodeFrame(Frame{FrameType::Done, {"0"}})));
    isolation::FrameReader r(sv[1], 1024);
    Frame got;
    auto far = std::chrono::steady_clock::now() + 60s;
    BOOST_TEST((r.read(got, far) == WireStatus::Ok));
    BOOST_TEST((got.type == FrameType::Call));
    BOOST_TEST(got.fields == a.fields);
    BOOST_TEST((r.read(got, far) == WireStatus::Ok));
    BOOST_TEST((got.type == FrameType::Done));
    // Nothing more: the deadline passes.
    BOOST_TEST((r.read(got, std::chrono::steady_clock::now() + 20ms) == WireStatus::Timeout));
    // A field longer than its frame.
    std::string bad = isolation::encodeFrame(Frame{FrameType::Emit, {"abc"}});
    bad[5] = 100;
    BOOST_REQUIRE(isolation::writeAll(sv[0], bad));
    BOOST_TEST((r.read(got, far) == WireStatus::Malformed));
    ::close(sv[0]);
    ::close(sv[1]);
    BOOST_REQUIRE(::socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0);
    isolation::FrameReader small(sv[1], 16);
    BOOST_REQUIRE(isolation::writeAll(sv[0], isolation::encodeFrame(Frame{FrameType::Emit, {std::string(100, 'x')}})));
    BOOST_TEST((small.read(got, far) == WireStatus::TooLarge));
    BOOST_TEST(small.announced() == 105u);
    ::close(sv[0]);
    BOOST_TEST((isolation::FrameReader(sv[1], 16).read(got, far) == WireStatus::Closed));
    ::close(sv[1]);
}

BOOST_AUTO_TEST_SUITE_END()
