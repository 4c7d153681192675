// The local kubelet end to end on one machine: real container inits (the installed helper, and the
// operator's own entry), real
// namespaces and pod network, a MemoryStore as the API. Every wait is bounded and generous; no
// assertion measures time.
#define BOOST_TEST_MODULE core_executor_kubelet
#include "kubelet_fixture.hpp"

#include "core/executor/container_init_binary.hpp"
#include "test/support/forwarding_store.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>

#include <mutex>
#include <vector>

using namespace kubelet_test;

namespace {

json::object terminatedState(const json::object& p, size_t i = 0) {
    auto cs = containerStatus(p, i);
    auto* t = at(cs, {"state", "terminated"});
    return t ? *t : json::object{};
}

int64_t exitCode(const json::object& t) {
    auto* v = t.if_contains("exitCode");
    return v && v->is_int64() ? v->get_int64() : -1;
}

std::string text(const json::object& o, std::string_view key) {
    auto* v = o.if_contains(key);
    return v && v->is_string() ? std::string(v->get_string()) : std::string();
}

// A GET / to ip:port from the host (the bridge routes the pod network); the status line or "".
std::string httpGet(const std::string& ip, int port) {
    int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(static_cast<uint16_t>(port));
    ::inet_pton(AF_INET, ip.c_str(), &a.sin_addr);
    timeval tv{5, 0};
    ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    std::string out;
    if (::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0) {
        std::string req = "GET / HTTP/1.0\r\n\r\n";
        (void)!::write(fd, req.data(), req.size());
        char buf[64] = {};
        ssize_t n = ::read(fd, buf, sizeof buf - 1);
        if (n > 0) out.assign(buf, static_cast<size_t>(n));
    }
    ::close(fd);
    return out.substr(0, out.find('\r'));
}

// The slot k of the operator's pod network, from a pod IP 10.(200+k).x.y.
int slotOf(const std::string& podIp) {
    auto a = podIp.find('.'), b = podIp.find('.', a + 1);
    return std::stoi(podIp.substr(a + 1, b - a - 1)) - 200;
}

// One write the kubelet made, and through which of its two stores.
struct Write {
    bool durable;
    std::string call, phase;
    bool startTime, containerStarted;
};

// A path to the fixture's store that records every write made through it.
class RecordingStore : public trainer::test::ForwardingStore {
public:
    RecordingStore(Store& inner, bool durable, std::mutex& mu, std::vector<Write>& log)
        : ForwardingStore(inner), durable_(durable), mu_(mu), log_(log) {}
    StoreResult update(const json::object& o) override { return record("update", o, ForwardingStore::update(o)); }
    StoreResult updateStatus(const json::object& o) override {
        return record("updateStatus", o, ForwardingStore::updateStatus(o));
    }

private:
    StoreResult record(const char* call, const json::object& o, StoreResult r) {
        const json::object status = at(o, {"status"}) ? *at(o, {"status"}) : json::object{};
        auto cs = containerStatus(o);
        bool started = at(cs, {"state", "running"}) || at(cs, {"state", "terminated"});
        std::lock_guard g(mu_);
        if (r.ok()) log_.push_back({durable_, call, phase(o), status.contains("startTime"), started});
        return r;
    }
    bool durable_;
    std::mutex& mu_;
    std::vector<Write>& log_;
};

}  // namespace

BOOST_FIXTURE_TEST_SUITE(kubelet, KubeletFixture)

// What must survive a power failure goes to the durable store, the rest of a pod's progress to
// the other (run gives it SqliteStore::rederivableWriter): the first status with startTime, before
// any container started (a pod never runs twice), and the finished pod's status.
BOOST_AUTO_TEST_CASE(only_the_start_and_the_end_of_a_pod_are_written_durably) {
    std::mutex mu;
    std::vector<Write> writes;
    RecordingStore durable(store, true, mu, writes), progress(store, false, mu, writes);
    start(20ms, "", &durable, &progress);
    createPod("tiers", R"({"restartPolicy":"Never","containers":[{"name":"c","image":"busybox",
        "command":["sh","-c","echo done"]}],"initContainers":[{"name":"i","image":"busybox","command":["true"]}]})");
    waitPhase("tiers", "Succeeded");
    BOOST_REQUIRE(eventually([&] { return kubelet->activePods() == 0; }, 20s));
    std::lock_guard g(mu);
    std::vector<Write> kept, other;
    for (auto const& w : writes) (w.durable ? kept : other).push_back(w);
    BOOST_REQUIRE_EQUAL(kept.size(), 2u);
    BOOST_TEST(kept[0].startTime);
    BOOST_TEST(!kept[0].containerStarted);
    BOOST_TEST(kept[0].phase == "Pending");
    BOOST_TEST(kept[1].phase == "Succeeded");
    BOOST_REQUIRE(!other.empty());
    BOOST_TEST(other.front().call == "update");  // the binding
    BOOST_TEST(!other.front().startTime);
    bool progressOnly = true;
    for (auto const& w : other) progressOnly = progressOnly && w.phase != "Succeeded" && w.phase != "Failed";
    BOOST_TEST(progressOnly);
    BOOST_TEST(other.size() >= 3u);  // the binding, the init container's end, the container's start
}

BOOST_AUTO_TEST_CASE(failing_command_fails_the_pod_with_its_exit_code_and_log) {
    start();
    createPod("fails", R"({"restartPolicy":"Never","containers":[{"name":"c","image":"busybox",
        "command":["sh","-c","echo hi; exit 3"]}]})");
    auto p = waitPhase("fails", "Failed");
    auto t = terminatedState(p);
    BOOST_TEST(exitCode(t) == 3);
    BOOST_TEST(text(t, "reason") == "Error");
    BOOST_TEST(log(p) == "hi\n");
    BOOST_TEST(str(p, {"spec"}, "nodeName") == "trainer-local");
    BOOST_TEST(!str(p, {"status"}, "podIP").empty());
    BOOST_TEST(!str(p, {"status"}, "startTime").empty());
}

BOOST_AUTO_TEST_CASE(zero_exit_succeeds_with_reason_completed) {
    start();
    createPod("ok", R"({"restartPolicy":"Never","containers":[{"name":"c","image":"busybox",
        "command":["sh","-c","echo done"]}]})");
    auto p = waitPhase("ok", "Succeeded");
    auto t = terminatedState(p);
    BOOST_TEST(exitCode(t) == 0);
    BOOST_TEST(text(t, "reason") == "Completed");
    BOOST_TEST(log(p) == "done\n");
    auto ready = conditionOf(p, "Ready");
    BOOST_REQUIRE(ready);
    BOOST_TEST(text(*ready, "status") == "False");
    BOOST_TEST(text(*ready, "reason") == "PodCompleted");
}

BOOST_AUTO_TEST_CASE(missing_executable_is_a_start_error) {
    start();
    createPod("nosuch", R"({"restartPolicy":"Never","containers":[{"name":"c","image":"busybox",
        "command":["nosuch","arg"]}]})");
    auto p = waitPhase("nosuch", "Failed");
    auto t = terminatedState(p);
    BOOST_TEST(text(t, "reason") == "StartError");
    BOOST_TEST(exitCode(t) == 128);
    BOOST_TEST(text(t, "message") == R"(exec: "nosuch": executable file not found in $PATH)");
}

BOOST_AUTO_TEST_CASE(no_command_is_a_start_error_naming_the_image) {
    start();
    createPod("nocmd", R"({"restartPolicy":"Never","containers":[{"name":"c","image":"registry.example/train:v7"}]})");
    auto p = waitPhase("nocmd", "Failed");
    auto t = terminatedState(p);
    BOOST_TEST(text(t, "reason") == "StartError");
    BOOST_TEST(exitCode(t) == 128);
    BOOST_TEST(text(t, "message").find("registry.example/train:v7") != std::string::npos, text(t, "message"));
}

BOOST_AUTO_TEST_CASE(missing_config_map_key_waits_then_starts_once_it_exists) {
    start();
    createPod("waits", R"({"restartPolicy":"Never","containers":[{"name":"c","image":"busybox",
        "command":["sh","-c","echo value=$V"],
        "env":[{"name":"V","valueFrom":{"configMapKeyRef":{"name":"cfg","key":"k"}}}]}]})");
    auto waitingWith = [&](const std::string& message) {
        return waitPod("waits", [&](const json::object& p) {
            auto cs = containerStatus(p);
            auto* w = at(cs, {"state", "waiting"});
            return w && text(*w, "reason") == "CreateContainerConfigError" && text(*w, "message") == message;
        }, "waiting CreateContainerConfigError: " + message);
    };
    auto p = waitingWith(R"(configmap "cfg" not found)");
    BOOST_TEST(phase(p) == "Pending");
    putConfigMap("cfg", {{"other", "x"}});
    waitingWith("couldn't find key k in ConfigMap team/cfg");
    putConfigMap("cfg", {{"k", "from-cm"}});
    p = waitPhase("waits", "Succeeded");
    BOOST_TEST(log(p) == "value=from-cm\n");
}

BOOST_AUTO_TEST_CASE(unmountable_mount_paths_are_start_errors) {
    start();
    // A directory under /proc/sys cannot be made; nor one under a regular file.
    createPod("procsys", R"({"restartPolicy":"Never","volumes":[{"name":"v","emptyDir":{}}],
        "containers":[{"name":"c","image":"busybox","command":["true"],
        "volumeMounts":[{"name":"v","mountPath":"/proc/sys/trainer-test/x"}]}]})");
    createPod("underfile", R"({"restartPolicy":"Never","volumes":[{"name":"v","emptyDir":{}}],
        "containers":[{"name":"c","image":"busybox","command":["true"],
        "volumeMounts":[{"name":"v","mountPath":"/etc/passwd/x"}]}]})");
    for (auto name : {"procsys", "underfile"}) {
        BOOST_TEST_CONTEXT(name) {
            auto p = waitPhase(name, "Failed");
            auto t = terminatedState(p);
            BOOST_TEST(text(t, "reason") == "StartError");
            BOOST_TEST(exitCode(t) == 128);
            BOOST_TEST(text(t, "message").rfind("error mounting ", 0) == 0, text(t, "message"));
        }
    }
    BOOST_TEST(fs::is_regular_file("/etc/passwd"));
}

BOOST_AUTO_TEST_CASE(env_and_var_references_in_args_reach_the_process) {
    start();
    putConfigMap("cfg", {{"who", "world"}});
    createPod("env", R"J({"restartPolicy":"Never","containers":[{"name":"c","image":"busybox",
        "command":["sh","-c"],
        "args":["echo \"greeting=$GREETING arg=$1 lit=$2 host=$HOSTNAME\"", "zero", "$(GREETING)!", "$(UNDEFINED)"],
        "env":[{"name":"WHO","valueFrom":{"configMapKeyRef":{"name":"cfg","key":"who"}}},
               {"name":"GREETING","value":"hello $(WHO)"},
               {"name":"POD","valueFrom":{"fieldRef":{"fieldPath":"metadata.name"}}}]}]})J");
    auto p = waitPhase("env", "Succeeded");
    BOOST_TEST(log(p) == "greeting=hello world arg=hello world! lit=$(UNDEFINED) host=env\n");
}

BOOST_AUTO_TEST_CASE(config_map_volume_is_private_to_the_container) {
    const fs::path mountPath = "/run/" + marker("cfgvol");
    start();
    putConfigMap("cfg", {{"a", "alpha"}, {"b", "beta"}, {"c", "gamma"}});
    // defaultMode 0440 (288), items[1].mode 0400 (256); key c is not projected.
    createPod("cfgvol", R"({"restartPolicy":"Never",
        "volumes":[{"name":"v","configMap":{"name":"cfg","defaultMode":288,
                    "items":[{"key":"a","path":"a.txt"},{"key":"b","path":"sub/b.txt","mode":256}]}}],
        "containers":[{"name":"c","image":"busybox","command":["sh","-c",
            "cd \"$MP\" && echo `stat -L -c %a a.txt sub/b.txt` `cat a.txt` `cat sub/b.txt` `[ -e c ] && echo has-c || echo no-c`; sleep 600"],
        "env":[{"name":"MP","value":")" + mountPath.string() + R"("}],
        "volumeMounts":[{"name":"v","mountPath":")" + mountPath.string() + R"("}]}]})");
    auto p = waitRunning("cfgvol");
    BOOST_REQUIRE(eventually([&] { return !log(p).empty(); }));
    BOOST_TEST(log(p) == "440 400 alpha beta no-c\n");
    // The mount lives in the container's mount namespace only.
    BOOST_TEST((!fs::exists(mountPath) || fs::is_empty(mountPath)));
    kubelet->stop();
    std::error_code ec;
    fs::remove_all(mountPath, ec);
}

BOOST_AUTO_TEST_CASE(hostname_and_hosts_list_pods_of_the_subdomain) {
    start();
    createPod("a-pod", R"({"hostname":"alpha","subdomain":"grp","restartPolicy":"Never",
        "containers":[{"name":"c","image":"busybox","command":["sleep","600"]}]})");
    auto a = waitRunning("a-pod");
    const std::string aIp = str(a, {"status"}, "podIP");
    BOOST_REQUIRE(!aIp.empty());
    createPod("b-pod", R"({"hostname":"beta","subdomain":"grp","restartPolicy":"Never",
        "containers":[{"name":"c","image":"busybox","command":["sh","-c","hostname; cat /etc/hosts"]}]})");
    auto b = waitPhase("b-pod", "Succeeded");
    const std::string out = log(b);
    BOOST_TEST(out.rfind("beta\n", 0) == 0, out);
    BOOST_TEST(out.find(aIp + "\talpha.grp.team.svc.cluster.local") != std::string::npos, out);
    BOOST_TEST(out.find(str(b, {"status"}, "podIP") + "\tbeta.grp.team.svc.cluster.local\tbeta") != std::string::npos, out);
}

BOOST_AUTO_TEST_CASE(two_pods_listen_on_the_same_port) {
    start();
    const char* spec = R"({"restartPolicy":"Never","containers":[{"name":"c","image":"python",
        "command":["python3","-m","http.server","8080","--bind","0.0.0.0"],
        "readinessProbe":{"httpGet":{"port":8080,"path":"/"},"periodSeconds":1}}]})";
    createPod("web-1", spec);
    createPod("web-2", spec);
    for (auto name : {"web-1", "web-2"}) {
        BOOST_TEST_CONTEXT(name) {
            auto p = waitPod(name, [](const json::object& p) {
                auto ready = conditionOf(p, "Ready");
                return ready && text(*ready, "status") == "True";
            }, "Ready True");
            BOOST_TEST(phase(p) == "Running");
            BOOST_TEST(httpGet(str(p, {"status"}, "podIP"), 8080).find(" 200 ") != std::string::npos);
        }
    }
    BOOST_TEST(str(pod("web-1"), {"status"}, "podIP") != str(pod("web-2"), {"status"}, "podIP"));
}

BOOST_AUTO_TEST_CASE(on_failure_restarts_after_back_off) {
    start();
    // /tmp is the pod's own and outlives the container: the second run succeeds.
    createPod("retry", R"({"restartPolicy":"OnFailure","containers":[{"name":"c","image":"busybox",
        "command":["sh","-c","if [ -e /tmp/once ]; then echo second; exit 0; fi; touch /tmp/once; echo first; exit 1"]}]})");
    auto back = waitPod("retry", [](const json::object& p) {
        auto cs = containerStatus(p);
            auto* w = at(cs, {"state", "waiting"});
        return w && text(*w, "reason") == "CrashLoopBackOff";
    }, "CrashLoopBackOff");
    BOOST_TEST(phase(back) != "Failed");
    auto p = waitPhase("retry", "Succeeded", 120s);
    auto cs = containerStatus(p);
    BOOST_TEST(cs["restartCount"].as_int64() == 1);
    auto* last = at(cs, {"lastState", "terminated"});
    BOOST_REQUIRE(last);
    BOOST_TEST(exitCode(*last) == 1);
    BOOST_TEST(text(*last, "reason") == "Error");
    BOOST_TEST(text(terminatedState(p), "reason") == "Completed");
    BOOST_TEST(log(p, "c", 0) == "first\n");
    BOOST_TEST(log(p, "c", 1) == "second\n");
}

BOOST_AUTO_TEST_CASE(deleting_a_pod_kills_its_processes) {
    start();
    const std::string m = marker("delete");
    createPod("victim", R"({"terminationGracePeriodSeconds":1,"restartPolicy":"Never",
        "containers":[{"name":"c","image":"busybox","command":["sh","-c","sleep 600; echo )" + m + R"("]}]})");
    waitRunning("victim");
    BOOST_REQUIRE(eventually([&] { return processWithMarker(m); }));
    BOOST_REQUIRE(store.remove(ObjectKey{"v1", "Pod", kNs, "victim"}).ok());
    // Bounded well under the default 30 s grace period: the pod's own 1 s applies.
    BOOST_TEST(eventually([&] { return !processWithMarker(m); }, 20s));
    BOOST_TEST(eventually([&] { return kubelet->activePods() == 0; }, 20s));
}

BOOST_AUTO_TEST_CASE(sigterm_ignoring_process_is_killed_after_the_grace_period) {
    start();
    const std::string m = marker("stubborn");
    createPod("stubborn", R"({"terminationGracePeriodSeconds":1,"restartPolicy":"Never",
        "containers":[{"name":"c","image":"busybox","command":["sh","-c","trap '' TERM; sleep 600; echo )" + m + R"("]}]})");
    waitRunning("stubborn");
    BOOST_REQUIRE(eventually([&] { return processWithMarker(m); }));
    BOOST_REQUIRE(store.remove(ObjectKey{"v1", "Pod", kNs, "stubborn"}).ok());
    BOOST_TEST(eventually([&] { return !processWithMarker(m); }, 20s));
}

BOOST_AUTO_TEST_CASE(graceful_deletion_writes_the_final_status) {
    start();
    const std::string m = marker("finalizer");
    json::object held = obj(R"({"apiVersion":"v1","kind":"Pod",
        "metadata":{"namespace":"team","name":"held","finalizers":["test.example/hold"]},
        "spec":{"terminationGracePeriodSeconds":1,"restartPolicy":"Never",
        "containers":[{"name":"c","image":"busybox","command":["sh","-c","sleep 600; echo )" + m + R"("]}]}})");
    BOOST_REQUIRE(store.create(held).ok());
    waitRunning("held");
    // The command itself runs (a slow start, e.g. under the sanitizers, would eat the 1 s grace).
    BOOST_REQUIRE(eventually([&] { return processWithMarker(m); }));
    auto r = store.remove(ObjectKey{"v1", "Pod", kNs, "held"});
    BOOST_REQUIRE(r.ok());
    BOOST_REQUIRE(r.pending);
    auto p = waitPhase("held", "Failed", 20s);
    auto t = terminatedState(p);
    BOOST_TEST(exitCode(t) == 143);  // SIGTERM, forwarded to the command by the init
    BOOST_TEST(text(t, "reason") == "Error");
    BOOST_TEST(!processWithMarker(m));
    BOOST_TEST(eventually([&] { return kubelet->activePods() == 0; }, 20s));
}

BOOST_AUTO_TEST_CASE(stop_leaves_no_process_and_no_network_namespace) {
    start();
    const std::string m = marker("stop");
    createPod("long", R"({"restartPolicy":"Never",
        "containers":[{"name":"c","image":"busybox","command":["sh","-c","sleep 600; echo )" + m + R"("]}]})");
    auto p = waitRunning("long");
    BOOST_REQUIRE(eventually([&] { return processWithMarker(m); }));
    const int slot = slotOf(str(p, {"status"}, "podIP"));
    const std::string prefix = "trn" + std::to_string(slot) + "-";
    auto namespaces = [&] {
        int n = 0;
        std::error_code ec;
        for (auto const& e : fs::directory_iterator("/run/netns", ec))
            if (e.path().filename().string().rfind(prefix, 0) == 0) ++n;
        return n;
    };
    BOOST_TEST(namespaces() == 1);
    kubelet->stop();
    BOOST_TEST(!processWithMarker(m));
    BOOST_TEST(namespaces() == 0);
    BOOST_TEST(!fs::exists("/sys/class/net/trn" + std::to_string(slot)));
    BOOST_TEST(kubelet->activePods() == 0u);
}

// A change feed far behind (many other writes): the kubelet still runs each pod once, even when it
// reads the pod's older changes (its binding) after the pod has finished.
BOOST_AUTO_TEST_CASE(lagging_change_feed_runs_each_pod_once) {
    // The kubelet reads at most 1000 changes a poll; with a slow poll and many other writes, it
    // reaches the pod's binding (no startTime yet) only after the pod has finished.
    start(250ms);
    std::atomic<int> written{0};
    std::thread filler([&] {
        for (int i = 0; i < 30000; ++i) {
            json::object cm{{"apiVersion", "v1"}, {"kind", "ConfigMap"},
                            {"metadata", {{"namespace", "filler"}, {"name", "filler-" + std::to_string(i)}}}};
            if (store.create(cm).ok()) ++written;
        }
    });
    while (written < 3000) std::this_thread::sleep_for(1ms);
    createPod("once", R"({"restartPolicy":"Never","containers":[{"name":"c","image":"busybox",
        "command":["sh","-c","echo run"]}]})");
    filler.join();
    createPod("sentinel", R"({"restartPolicy":"Never","containers":[{"name":"c","image":"busybox","command":["true"]}]})");
    waitPhase("sentinel", "Succeeded", 120s);
    BOOST_TEST(eventually([&] { return kubelet->activePods() == 0; }, 30s));
    auto p = waitPhase("once", "Succeeded");
    BOOST_TEST(log(p) == "run\n");
}

BOOST_AUTO_TEST_CASE(restart_marks_pods_of_the_previous_run_failed) {
    auto created = createPod("orphan", R"({"nodeName":"trainer-local","restartPolicy":"Never",
        "containers":[{"name":"c","image":"busybox","command":["sleep","601.5"]}]})");
    created["status"] = obj(R"({"phase":"Running","startTime":"2024-05-01T11:00:00Z",
        "conditions":[{"type":"Ready","status":"True"}],
        "containerStatuses":[{"name":"c","ready":true,"restartCount":0,
            "state":{"running":{"startedAt":"2024-05-01T11:00:01Z"}}}]})");
    BOOST_REQUIRE(store.updateStatus(created).ok());
    start();
    auto p = pod("orphan");
    BOOST_TEST(phase(p) == "Failed");
    BOOST_TEST(str(p, {"status"}, "reason") == "Terminated");
    auto d = conditionOf(p, "DisruptionTarget");
    BOOST_REQUIRE(d);
    BOOST_TEST(text(*d, "status") == "True");
    auto ready = conditionOf(p, "Ready");
    BOOST_REQUIRE(ready);
    BOOST_TEST(text(*ready, "status") == "False");
    auto t = terminatedState(p);
    BOOST_TEST(exitCode(t) == 137);
    BOOST_TEST(text(t, "startedAt") == "2024-05-01T11:00:01Z");
    // Nothing is started for it: a pod created after the restart has run to completion (the
    // kubelet has handled everything before it), and the orphan's command never ran.
    createPod("sentinel", R"({"restartPolicy":"Never","containers":[{"name":"c","image":"busybox","command":["true"]}]})");
    waitPhase("sentinel", "Succeeded");
    BOOST_TEST(eventually([&] { return kubelet->activePods() == 0u; }));
    BOOST_TEST(!processWithMarker("sleep 601.5"));
    BOOST_TEST(phase(pod("orphan")) == "Failed");
}

// A pod created in this process starts at once, not at the kubelet's next poll: the store's
// commit notification (core/store/poll_waiter.hpp) wakes it. The poll interval is an hour, so
// only the notification can start "second": "first" may be seen by the watcher's first poll,
// "second" is created after "first" has run, when that poll is long over.
BOOST_AUTO_TEST_CASE(a_created_pod_starts_without_waiting_for_the_poll_interval) {
    start(std::chrono::hours(1));
    createPod("first", R"({"restartPolicy":"Never","containers":[{"name":"c","image":"busybox",
        "command":["sh","-c","echo one"]}]})");
    waitPhase("first", "Succeeded");
    createPod("second", R"({"restartPolicy":"Never","containers":[{"name":"c","image":"busybox",
        "command":["sh","-c","echo two"]}]})");
    auto p = waitPhase("second", "Succeeded");
    BOOST_TEST(log(p) == "two\n");
}

// PID 1 of a container is its init; the container sees which binary that is.
BOOST_AUTO_TEST_CASE(containers_start_through_the_installed_init_helper) {
    start();
    createPod("helper", R"({"restartPolicy":"Never","containers":[{"name":"c","image":"busybox",
        "command":["sh","-c","readlink /proc/1/exe; echo ran"]}]})");
    auto p = waitPhase("helper", "Succeeded");
    BOOST_TEST(log(p) == fs::canonical(helper()).string() + "\nran\n");
}

BOOST_AUTO_TEST_CASE(the_operators_own_entry_still_runs_containers) {
    start(20ms, binary());
    createPod("entry", R"({"restartPolicy":"Never","containers":[{"name":"c","image":"busybox",
        "command":["sh","-c","readlink /proc/1/exe; echo ran"]}]})");
    auto p = waitPhase("entry", "Succeeded");
    BOOST_TEST(log(p) == fs::canonical(binary()).string() + "\nran\n");
}

// The helper runs as root in every container: one owned by another user is not run (the mode
// checks need no root and are in parts_test.cpp; changing an owner does).
BOOST_AUTO_TEST_CASE(a_helper_owned_by_another_user_is_refused) {
    const fs::path op = dir / "tree" / "bin" / "trainer-operator";
    const fs::path helperPath = (op.parent_path() / executor::kContainerInitHelper).lexically_normal();
    fs::create_directories(op.parent_path());
    fs::create_directories(helperPath.parent_path());
    for (auto d = helperPath.parent_path(); d != dir; d = d.parent_path()) ::chmod(d.c_str(), 0755);
    fs::copy_file(helper(), helperPath);
    ::chmod(helperPath.c_str(), 0755);
    BOOST_TEST(executor::chooseContainerInit(op.string()).path == helperPath.string());
    BOOST_REQUIRE(::chown(helperPath.c_str(), 12345, 12345) == 0);
    auto c = executor::chooseContainerInit(op.string());
    BOOST_TEST(c.path == op.string());
    BOOST_TEST(c.notUsed.find("owned by uid 12345") != std::string::npos, c.notUsed);
}

BOOST_AUTO_TEST_SUITE_END()
