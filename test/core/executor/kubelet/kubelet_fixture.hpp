// A real local kubelet (core/executor/kubelet.hpp) on a MemoryStore, running containers with the
// operator's own binary from the build tree as their init. Needs root (network namespaces,
// mounts): without it every test using the fixture fails with a message saying so.
#pragma once

#include "core/controller/clock.hpp"
#include "core/executor/kubelet.hpp"
#include "core/executor/pod_logs.hpp"
#include "core/store/memory_store.hpp"

#include <boost/json.hpp>
#include <boost/test/unit_test.hpp>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <dirent.h>
#include <filesystem>
#include <fstream>
#include <functional>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <unistd.h>

namespace kubelet_test {

namespace json = boost::json;
namespace fs = std::filesystem;
using namespace trainer::core;
using namespace std::chrono_literals;

constexpr const char* kNs = "team";

inline json::object obj(std::string_view text) { return json::parse(text).as_object(); }

inline std::string readFile(const fs::path& p) {
    std::ifstream in(p);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

// Whether some process's command line contains `marker`.
inline bool processWithMarker(const std::string& marker) {
    for (auto const& e : fs::directory_iterator("/proc")) {
        auto name = e.path().filename().string();
        if (name.find_first_not_of("0123456789") != std::string::npos) continue;
        std::string cmd = readFile(e.path() / "cmdline");
        for (auto& c : cmd)
            if (c == '\0') c = ' ';
        if (cmd.find(marker) != std::string::npos && name != std::to_string(::getpid())) return true;
    }
    return false;
}

// Polls `cond` every 50 ms for at most `bound` (generous bounds: they stop a broken run, they
// do not measure anything).
inline bool eventually(const std::function<bool()>& cond, std::chrono::milliseconds bound = 60s) {
    auto end = std::chrono::steady_clock::now() + bound;
    while (std::chrono::steady_clock::now() < end) {
        if (cond()) return true;
        std::this_thread::sleep_for(50ms);
    }
    return cond();
}

inline const json::object* at(const json::object& o, std::initializer_list<std::string_view> path) {
    const json::object* cur = &o;
    for (auto k : path) {
        auto* v = cur->if_contains(k);
        if (!v || !v->is_object()) return nullptr;
        cur = &v->get_object();
    }
    return cur;
}

inline std::string str(const json::object& o, std::initializer_list<std::string_view> path, std::string_view key) {
    auto* p = at(o, path);
    auto* v = p ? p->if_contains(key) : nullptr;
    return v && v->is_string() ? std::string(v->get_string()) : std::string();
}

inline std::string phase(const json::object& pod) { return str(pod, {"status"}, "phase"); }

// containerStatuses[i] (or initContainerStatuses), empty when absent.
inline json::object containerStatus(const json::object& pod, size_t i = 0, bool init = false) {
    auto* s = at(pod, {"status"});
    auto* list = s ? s->if_contains(init ? "initContainerStatuses" : "containerStatuses") : nullptr;
    if (!list || !list->is_array() || list->get_array().size() <= i) return {};
    return list->get_array()[i].as_object();
}

inline std::optional<json::object> conditionOf(const json::object& pod, std::string_view type) {
    auto* s = at(pod, {"status"});
    auto* list = s ? s->if_contains("conditions") : nullptr;
    if (!list || !list->is_array()) return std::nullopt;
    for (auto const& c : list->get_array())
        if (c.is_object() && c.get_object().if_contains("type") && c.get_object().at("type") == json::value(type)) return c.get_object();
    return std::nullopt;
}

struct KubeletFixture {
    fs::path dir;
    MemoryStore store;
    controller::FakeClock clock;
    std::unique_ptr<executor::Kubelet> kubelet;

    KubeletFixture() {
        BOOST_REQUIRE_MESSAGE(::geteuid() == 0,
                              "the local kubelet tests need root (network namespaces, bridges, mounts): run "
                              "test_core_executor_kubelet as root");
        BOOST_REQUIRE_MESSAGE(fs::exists(binary()), "missing the operator binary " + binary());
        BOOST_REQUIRE_MESSAGE(fs::exists(helper()), "missing the container init helper " + helper());
        std::string tmpl = (fs::temp_directory_path() / "kubelet-test-XXXXXX").string();
        BOOST_REQUIRE(::mkdtemp(tmpl.data()));
        dir = tmpl;
    }
    ~KubeletFixture() {
        if (kubelet) kubelet->stop();
        kubelet.reset();
        std::error_code ec;
        fs::remove_all(dir, ec);
    }

    static std::string binary() { return TRAINER_BINARY_DIR "/bin/trainer-operator"; }
    // What a kubelet left to choose runs (core/executor/container_init_binary.hpp): this test's
    // binary is in bin/ of the build tree, as the operator's is.
    static std::string helper() { return TRAINER_BINARY_DIR "/libexec/trainer-operator/trainer-container-init"; }
    fs::path stateDir() const { return dir / "state"; }

    // `executable` runs the container inits; "" leaves the choice to the kubelet, as the operator does.
    // `durable` and `progress` (both default to `store`) are the kubelet's two write paths
    // (core/executor/kubelet_context.hpp).
    void start(std::chrono::milliseconds pollInterval = 20ms, const std::string& executable = "",
               Store* durable = nullptr, Store* progress = nullptr) {
        executor::KubeletOptions o;
        o.pollInterval = pollInterval;
        o.stateDir = stateDir();
        o.executable = executable;
        kubelet = std::make_unique<executor::Kubelet>(durable ? *durable : store, progress ? *progress : store, clock,
                                                      log::Logger("kubelet-test"), o);
        auto err = kubelet->start();
        BOOST_REQUIRE_MESSAGE(err.empty(), "Kubelet::start: " + err);
    }

    // Creates Pod `name` in namespace "team" with `spec` (JSON text); returns the stored object.
    json::object createPod(const std::string& name, std::string_view spec) {
        json::object p{{"apiVersion", "v1"}, {"kind", "Pod"}, {"metadata", {{"namespace", kNs}, {"name", name}}}};
        p["spec"] = json::parse(spec);
        auto r = store.create(p);
        BOOST_REQUIRE_MESSAGE(r.ok(), "create pod " + name + ": " + r.message);
        return r.object;
    }

    void putConfigMap(const std::string& name, json::object data) {
        json::object cm{{"apiVersion", "v1"}, {"kind", "ConfigMap"}, {"metadata", {{"namespace", kNs}, {"name", name}}}};
        cm["data"] = std::move(data);
        auto r = store.apply(cm, "kubelet-test");
        BOOST_REQUIRE_MESSAGE(r.ok(), "apply configmap: " + r.message);
    }

    json::object pod(const std::string& name) const {
        auto p = store.get(ObjectKey{"v1", "Pod", kNs, name});
        return p.object;  // empty unless found
    }

    // Waits (bounded) until `cond` holds for the Pod; fails with its last status otherwise.
    json::object waitPod(const std::string& name, const std::function<bool(const json::object&)>& cond,
                         const std::string& what, std::chrono::milliseconds bound = 60s) {
        json::object last;
        bool ok = eventually([&] {
            last = pod(name);
            return cond(last);
        }, bound);
        BOOST_REQUIRE_MESSAGE(ok, "pod " + name + " never got " + what + "; last: " + json::serialize(last));
        return last;
    }

    json::object waitPhase(const std::string& name, const std::string& want, std::chrono::milliseconds bound = 60s) {
        return waitPod(name, [&](const json::object& p) { return phase(p) == want; }, "phase " + want, bound);
    }

    json::object waitRunning(const std::string& name) {
        return waitPod(name, [](const json::object& p) {
            return at(containerStatus(p), {"state", "running"}) != nullptr;
        }, "a running container");
    }

    std::string log(const json::object& pod, const std::string& container = "c", int restart = 0) const {
        return readFile(executor::containerLogPath(stateDir(), kNs, str(pod, {"metadata"}, "name"),
                                                   str(pod, {"metadata"}, "uid"), container, restart));
    }
};

// A unique string for a process's command line.
inline std::string marker(const std::string& tag) {
    return "kubelet-test-" + tag + "-" + std::to_string(::getpid()) + "-" + std::to_string(std::rand());
}

}  // namespace kubelet_test
