// Container logs on a MemoryStore: Pods and their statuses are written by hand, log files by the
// test; the reader is polled by hand (no timing).
#define BOOST_TEST_MODULE test_core_executor_logs
#include <boost/test/unit_test.hpp>

#include "core/executor/log_reader.hpp"
#include "core/executor/pod_logs.hpp"
#include "core/store/memory_store.hpp"

#include <cstdlib>
#include <fstream>
#include <string>
#include <unistd.h>

using namespace trainer::core;
using namespace trainer::core::executor;
namespace fs = std::filesystem;

BOOST_TEST_DONT_PRINT_LOG_VALUE(trainer::core::executor::LogErrorKind)

namespace {

const ObjectKey kPod{"v1", "Pod", "default", "p"};

json::object pod(const std::vector<std::string>& containers, const std::vector<std::string>& init = {}) {
    json::array cs, is;
    for (auto const& c : containers) cs.push_back(json::object{{"name", c}, {"image", "busybox"}});
    for (auto const& c : init) is.push_back(json::object{{"name", c}, {"image", "busybox"}});
    json::object spec{{"containers", std::move(cs)}};
    if (!is.empty()) spec["initContainers"] = std::move(is);
    return json::object{{"apiVersion", "v1"},
                        {"kind", "Pod"},
                        {"metadata", json::object{{"name", "p"}, {"namespace", "default"}, {"uid", "u-1"}}},
                        {"spec", std::move(spec)}};
}

json::object containerStatus(const std::string& name, const std::string& state, int64_t restarts,
                             const std::string& reason = "", bool lastTerminated = false) {
    json::object detail;
    if (!reason.empty()) detail["reason"] = reason;
    json::object s{{"name", name}, {"restartCount", restarts}, {"state", json::object{{state, std::move(detail)}}}};
    if (lastTerminated) s["lastState"] = json::object{{"terminated", json::object{{"exitCode", 1}}}};
    return s;
}

json::object withStatus(json::object p, json::array statuses, json::array initStatuses = {}) {
    json::object st{{"containerStatuses", std::move(statuses)}};
    if (!initStatuses.empty()) st["initContainerStatuses"] = std::move(initStatuses);
    p["status"] = std::move(st);
    return p;
}

struct TempDir {
    fs::path path;
    TempDir() {
        std::string t = (fs::temp_directory_path() / "trainer-logs-XXXXXX").string();
        BOOST_REQUIRE(::mkdtemp(t.data()));
        path = t;
    }
    ~TempDir() {
        std::error_code ec;
        fs::remove_all(path, ec);
    }
};

// A store with one Pod whose status the test sets, and its log files under a temp state dir.
struct Fixture {
    TempDir dir;
    MemoryStore store;
    fs::path state = dir.path / "state";

    json::object create(json::object p) {
        auto status = p.contains("status") ? p.at("status") : json::value();
        auto r = store.create(p);
        BOOST_REQUIRE_MESSAGE(r.ok(), r.message);
        if (!status.is_null()) setStatus(status.as_object());
        return store.get(kPod).object;
    }
    void setStatus(const json::object& status) {
        auto cur = store.get(kPod).object;
        cur["status"] = status;
        auto r = store.updateStatus(cur);
        BOOST_REQUIRE_MESSAGE(r.ok(), r.message);
    }
    std::string uid() const { return std::string(store.get(kPod).object.at("metadata").at("uid").as_string()); }
    fs::path logFile(const std::string& container, int64_t restarts) const {
        return containerLogPath(state, "default", "p", uid(), container, restarts);
    }
    void append(const std::string& container, int64_t restarts, const std::string& text) const {
        auto path = logFile(container, restarts);
        fs::create_directories(path.parent_path());
        std::ofstream(path, std::ios::app | std::ios::binary) << text;
    }
    LogReader reader(LogOptions o) const { return LogReader(store, state, kPod, std::move(o)); }
    // Everything a reader gives until done (at most `polls` polls).
    static std::string drain(LogReader& r, int polls = 10) {
        std::string out;
        for (int i = 0; i < polls; ++i) {
            auto c = r.poll();
            out += c.data;
            if (c.done) return out;
        }
        BOOST_FAIL("the reader did not finish");
        return out;
    }
};

}  // namespace

BOOST_AUTO_TEST_CASE(path_convention) {
    BOOST_TEST(executorStateDir("./trainer-operator.db").string() == "./trainer-operator.db.local");
    BOOST_TEST(executorStateDir("/var/lib/t/store.db").string() == "/var/lib/t/store.db.local");
    BOOST_TEST(podLogDirectory("/s", "ns", "pod", "uid-1").string() == "/s/pods/ns_pod_uid-1");
    BOOST_TEST(containerLogPath("/s", "ns", "pod", "uid-1", "node", 3).string() == "/s/pods/ns_pod_uid-1/node/3.log");
}

BOOST_AUTO_TEST_CASE(container_choice_and_errors) {
    LogError e;
    BOOST_TEST(chooseContainer(pod({"node"}), "", e) == "node");
    BOOST_TEST(!e.failed());
    BOOST_TEST(chooseContainer(pod({"a", "b"}, {"init"}), "init", e) == "init");  // init containers by name
    BOOST_TEST(!e.failed());
    BOOST_TEST(chooseContainer(pod({"a", "b"}, {"init"}), "", e).empty());
    BOOST_TEST(e.kind == LogErrorKind::BadRequest);
    BOOST_TEST(e.message == "a container name must be specified for pod p, choose one of: [init a b]");
    e = {};
    BOOST_TEST(chooseContainer(pod({"a"}), "x", e).empty());
    BOOST_TEST(e.message == "container x is not valid for pod p");
    e = {};
    BOOST_TEST(chooseContainer(pod({}), "", e).empty());
    BOOST_TEST(e.message == "a container name must be specified for pod p");
}

BOOST_AUTO_TEST_CASE(which_instance_a_request_means) {
    const fs::path s = "/s";
    LogError e;
    auto noStatus = findContainerLog(pod({"c"}), s, "c", false, e);
    BOOST_TEST(e.kind == LogErrorKind::NotStarted);
    BOOST_TEST(e.message == "container \"c\" in pod \"p\" is waiting to start: ContainerCreating");
    e = {};
    findContainerLog(withStatus(pod({"c"}), {containerStatus("c", "waiting", 0, "ErrImagePull")}), s, "c", false, e);
    BOOST_TEST(e.message == "container \"c\" in pod \"p\" is waiting to start: ErrImagePull");
    e = {};
    auto running = withStatus(pod({"c"}), {containerStatus("c", "running", 2)});
    BOOST_TEST(findContainerLog(running, s, "c", false, e).path.string() == "/s/pods/default_p_u-1/c/2.log");
    BOOST_TEST(findContainerLog(running, s, "c", true, e).path.string() == "/s/pods/default_p_u-1/c/1.log");
    BOOST_TEST(!e.failed());
    findContainerLog(withStatus(pod({"c"}), {containerStatus("c", "running", 0)}), s, "c", true, e);
    BOOST_TEST(e.kind == LogErrorKind::BadRequest);
    BOOST_TEST(e.message == "previous terminated container \"c\" in pod \"p\" not found");
    e = {};
    // In a back-off the last run is the current instance, for both the current and the previous log.
    auto backOff = withStatus(pod({"c"}), {containerStatus("c", "waiting", 1, "CrashLoopBackOff", true)});
    BOOST_TEST(findContainerLog(backOff, s, "c", false, e).restartCount == 1);
    BOOST_TEST(findContainerLog(backOff, s, "c", true, e).restartCount == 1);
    // Init containers' statuses are read too.
    auto init = withStatus(pod({"c"}, {"i"}), {containerStatus("c", "waiting", 0, "PodInitializing")},
                           {containerStatus("i", "terminated", 0)});
    BOOST_TEST(findContainerLog(init, s, "i", false, e).path.string() == "/s/pods/default_p_u-1/i/0.log");
    BOOST_TEST(!e.failed());
}

BOOST_AUTO_TEST_CASE(instance_end_from_the_pod) {
    auto log = ContainerLog{"default", "p", "u-1", "c", 0, {}};
    BOOST_TEST(containerInstanceEnded(std::nullopt, log));
    BOOST_TEST(!containerInstanceEnded(withStatus(pod({"c"}), {containerStatus("c", "running", 0)}), log));
    BOOST_TEST(containerInstanceEnded(withStatus(pod({"c"}), {containerStatus("c", "terminated", 0)}), log));
    BOOST_TEST(containerInstanceEnded(withStatus(pod({"c"}), {containerStatus("c", "running", 1)}), log));
    auto other = withStatus(pod({"c"}), {containerStatus("c", "running", 0)});
    other["metadata"].as_object()["uid"] = "u-2";
    BOOST_TEST(containerInstanceEnded(other, log));
}

BOOST_FIXTURE_TEST_CASE(tail_and_limit, Fixture) {
    create(withStatus(pod({"c"}), {containerStatus("c", "running", 0)}));
    append("c", 0, "one\ntwo\nthree\n");
    auto read = [&](std::optional<int64_t> tail, std::optional<int64_t> limit) {
        LogOptions o;
        o.tailLines = tail;
        o.limitBytes = limit;
        auto r = reader(o);
        BOOST_REQUIRE_MESSAGE(!r.error().failed(), r.error().message);
        return drain(r);
    };
    BOOST_TEST(read(std::nullopt, std::nullopt) == "one\ntwo\nthree\n");
    BOOST_TEST(read(1, std::nullopt) == "three\n");
    BOOST_TEST(read(2, std::nullopt) == "two\nthree\n");
    BOOST_TEST(read(10, std::nullopt) == "one\ntwo\nthree\n");
    BOOST_TEST(read(0, std::nullopt) == "");
    BOOST_TEST(read(std::nullopt, 5) == "one\nt");
    BOOST_TEST(read(2, 3) == "two");
    append("c", 0, "partial");  // an unterminated last line is a line
    BOOST_TEST(read(1, std::nullopt) == "partial");
    BOOST_TEST(read(2, std::nullopt) == "three\npartial");
    BOOST_TEST(tailOffset(state / "absent.log", 3) == 0u);
}

BOOST_FIXTURE_TEST_CASE(reader_errors, Fixture) {
    auto missing = reader({});
    BOOST_TEST(missing.error().kind == LogErrorKind::PodNotFound);
    BOOST_TEST(missing.error().message == "pods \"p\" not found");
    BOOST_TEST(missing.poll().done);
    create(pod({"a", "b"}));
    auto unchosen = reader({});
    BOOST_TEST(unchosen.error().message == "a container name must be specified for pod p, choose one of: [a b]");
    LogOptions o;
    o.container = "a";
    o.follow = true;  // following a container that has not started is still an error without waitForStart
    auto waiting = reader(o);
    BOOST_TEST(waiting.error().kind == LogErrorKind::NotStarted);
    BOOST_TEST(waiting.error().message == "container \"a\" in pod \"p\" is waiting to start: ContainerCreating");
}

BOOST_FIXTURE_TEST_CASE(follow_ends_when_the_status_says_terminated, Fixture) {
    create(withStatus(pod({"c"}), {containerStatus("c", "running", 0)}));
    append("c", 0, "first\n");
    LogOptions o;
    o.follow = true;
    auto r = reader(o);
    BOOST_REQUIRE(!r.error().failed());
    auto c = r.poll();
    BOOST_TEST(c.data == "first\n");
    BOOST_TEST(!c.done);
    c = r.poll();
    BOOST_TEST(c.data == "");
    BOOST_TEST(!c.done);
    append("c", 0, "second\n");
    append("c", 0, "third");
    setStatus(json::object{{"containerStatuses", json::array{containerStatus("c", "terminated", 0)}}});
    c = r.poll();
    BOOST_TEST(c.data == "second\nthird");  // written before the status: all delivered
    BOOST_TEST(c.done);
    BOOST_TEST(r.poll().done);
}

BOOST_FIXTURE_TEST_CASE(follow_ends_when_the_pod_is_deleted_or_restarts, Fixture) {
    create(withStatus(pod({"c"}), {containerStatus("c", "running", 0)}));
    append("c", 0, "x\n");
    LogOptions o;
    o.follow = true;
    o.tailLines = 0;
    auto r = reader(o);
    BOOST_TEST(r.poll().data == "");
    append("c", 0, "y\n");
    setStatus(json::object{{"containerStatuses", json::array{containerStatus("c", "running", 1, "", true)}}});
    auto c = r.poll();
    BOOST_TEST(c.data == "y\n");
    BOOST_TEST(c.done);  // instance 0 ended: it restarted

    auto again = reader(o);  // now instance 1
    BOOST_TEST(again.target().restartCount == 1);
    BOOST_TEST(!again.poll().done);
    BOOST_REQUIRE(store.remove(kPod).ok());
    BOOST_TEST(again.poll().done);
}

BOOST_FIXTURE_TEST_CASE(follow_waits_for_start_when_asked, Fixture) {
    create(withStatus(pod({"c"}), {containerStatus("c", "waiting", 0, "ContainerCreating")}));
    LogOptions o;
    o.follow = true;
    o.waitForStart = true;
    auto r = reader(o);
    BOOST_TEST(!r.error().failed());
    BOOST_TEST(!r.started());
    auto c = r.poll();
    BOOST_TEST(c.data == "");
    BOOST_TEST(!c.done);
    setStatus(json::object{{"containerStatuses", json::array{containerStatus("c", "running", 0)}}});
    BOOST_TEST(r.poll().data == "");  // started, no file yet
    BOOST_TEST(r.started());
    append("c", 0, "hello\n");
    BOOST_TEST(r.poll().data == "hello\n");
    setStatus(json::object{{"containerStatuses", json::array{containerStatus("c", "terminated", 0)}}});
    BOOST_TEST(r.poll().done);
}

BOOST_FIXTURE_TEST_CASE(follow_stops_at_the_byte_limit, Fixture) {
    create(withStatus(pod({"c"}), {containerStatus("c", "running", 0)}));
    append("c", 0, "abc");
    LogOptions o;
    o.follow = true;
    o.limitBytes = 5;
    auto r = reader(o);
    BOOST_TEST(r.poll().data == "abc");
    append("c", 0, "defgh");
    auto c = r.poll();
    BOOST_TEST(c.data == "de");
    BOOST_TEST(c.done);
}
