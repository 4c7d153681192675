// Shared by the workload controller tests: a MemoryStore on a FakeClock, the WorkloadManager
// driven synchronously with settle(), and a hand-played kubelet.
#pragma once

#include "core/controller/clock.hpp"
#include "core/executor/workload_manager.hpp"
#include "core/executor/workload_names.hpp"
#include "core/store/memory_store.hpp"

#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <string>
#include <vector>

namespace workloads_test {

using namespace trainer::core;
namespace ex = trainer::core::executor;

inline json::object parseObject(const std::string& text) { return json::parse(text).as_object(); }

inline std::string str(const json::value* v) { return v && v->is_string() ? std::string(v->get_string()) : std::string(); }

// `o` at a '/'-separated path of object members; nullptr when missing.
inline const json::value* at(const json::object& o, const std::string& path) {
    const json::value* cur = nullptr;
    const json::object* obj = &o;
    size_t start = 0;
    while (start <= path.size()) {
        size_t slash = path.find('/', start);
        std::string part = path.substr(start, slash == std::string::npos ? std::string::npos : slash - start);
        if (!obj) return nullptr;
        cur = obj->if_contains(part);
        if (!cur) return nullptr;
        obj = cur->is_object() ? &cur->get_object() : nullptr;
        if (slash == std::string::npos) break;
        start = slash + 1;
    }
    return cur;
}

inline std::string strAt(const json::object& o, const std::string& path) { return str(at(o, path)); }
inline int64_t intAt(const json::object& o, const std::string& path) {
    auto* v = at(o, path);
    return v && v->is_int64() ? v->get_int64() : (v && v->is_uint64() ? static_cast<int64_t>(v->get_uint64()) : -1);
}

inline const json::object* condition(const json::object& o, const std::string& type) {
    auto* conds = at(o, "status/conditions");
    if (!conds || !conds->is_array()) return nullptr;
    for (auto const& c : conds->get_array())
        if (c.is_object() && str(c.get_object().if_contains("type")) == type) return &c.get_object();
    return nullptr;
}

// "True"/"False" of the condition, "" when absent.
inline std::string conditionStatus(const json::object& o, const std::string& type) {
    auto* c = condition(o, type);
    return c ? str(c->if_contains("status")) : "";
}

struct Env {
    controller::FakeClock clock;
    MemoryStore store{StoreOptions{ResourceTable(), [this] { return clock.now(); }}};
    ex::WorkloadManager manager{store, clock, nullptr, log::Logger("test")};

    void settle() { manager.settle(); }

    void create(const json::object& o) {
        auto r = store.create(o);
        BOOST_REQUIRE_MESSAGE(r.ok(), r.message);
    }
    json::object get(const std::string& apiVersion, const std::string& kind, const std::string& name,
                     const std::string& ns = "default") {
        auto o = store.get(ObjectKey{apiVersion, kind, ns, name});
        BOOST_REQUIRE_MESSAGE(o.found(), kind + " " + name + " not found");
        return o.object;
    }
    bool exists(const std::string& apiVersion, const std::string& kind, const std::string& name) {
        return store.get(ObjectKey{apiVersion, kind, "default", name}).found();
    }
    json::object jobSet(const std::string& name) { return get("jobset.x-k8s.io/v1alpha2", "JobSet", name); }
    json::object job(const std::string& name) { return get("batch/v1", "Job", name); }
    std::vector<json::object> jobs() { return store.list("batch/v1", "Job", std::string("default")).value; }
    // The pods of the Job named `job` (by the job-name label), by completion index then name.
    std::vector<json::object> pods(const std::string& job) {
        std::vector<json::object> out;
        for (auto const& p : store.list("v1", "Pod", std::string("default")).value)
            if (labelOf(p, "batch.kubernetes.io/job-name") == job) out.push_back(p);
        std::stable_sort(out.begin(), out.end(), [](const json::object& a, const json::object& b) {
            return labelOf(a, "batch.kubernetes.io/job-completion-index") < labelOf(b, "batch.kubernetes.io/job-completion-index");
        });
        return out;
    }
    static std::string labelOf(const json::object& o, const std::string& key) {
        auto* l = at(o, "metadata/labels");
        return l && l->is_object() ? str(l->get_object().if_contains(key)) : "";
    }
    static std::string annotationOf(const json::object& o, const std::string& key) {
        auto* a = at(o, "metadata/annotations");
        return a && a->is_object() ? str(a->get_object().if_contains(key)) : "";
    }

    // The kubelet's part: phase, the Ready condition and container restart counts.
    void setPod(const json::object& pod, const std::string& phase, bool ready = false, int restarts = 0) {
        auto read = store.get(keyOf(pod));
        BOOST_REQUIRE(read.found());
        auto* cur = &read.object;
        json::object status{{"phase", phase},
                            {"conditions", json::array{json::object{{"type", "Ready"}, {"status", ready ? "True" : "False"}}}},
                            {"containerStatuses", json::array{json::object{{"name", "main"}, {"restartCount", restarts}}}}};
        (*cur)["status"] = std::move(status);
        auto r = store.updateStatus(*cur);
        BOOST_REQUIRE_MESSAGE(r.ok(), r.message);
    }
    void setPods(const std::string& job, const std::string& phase, bool ready = false) {
        for (auto const& p : pods(job)) setPod(p, phase, ready);
    }
};

// A replicated job entry: `replicas` Jobs of `parallelism` pods (completions = parallelism).
inline std::string replicatedJob(const std::string& name, int replicas, int parallelism, const std::string& extra = "") {
    return R"({"name":")" + name + R"(","replicas":)" + std::to_string(replicas) +
           R"(,"template":{"spec":{"parallelism":)" + std::to_string(parallelism) + R"(,"completions":)" +
           std::to_string(parallelism) + R"(,"backoffLimit":0,"template":{"spec":{"containers":[{"name":"main","image":"busybox"}]}}}})" +
           extra + "}";
}

inline json::object jobSetObject(const std::string& name, const std::string& replicatedJobs, const std::string& extraSpec = "") {
    return parseObject(R"({"apiVersion":"jobset.x-k8s.io/v1alpha2","kind":"JobSet","metadata":{"name":")" + name +
                       R"(","namespace":"default"},"spec":{"replicatedJobs":[)" + replicatedJobs + "]" + extraSpec + "}}");
}

}  // namespace workloads_test
