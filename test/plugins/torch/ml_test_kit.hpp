// Test kit shared by the ML-policy plugin tests (torch, jax, xgboost): builds an Info document
// from a runtime and a TrainJob the way the host does (spec §4.2, without runtime patches),
// applies emitted edit operations (sdk/docs/info.md), and reads conformance cases.
#pragma once

#include <trainer/plugin.hpp>
#include <trainer/testing.hpp>

#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace trainer::plugins::mltest {

namespace json = boost::json;
using sdk::getArray;
using sdk::getInt;
using sdk::getObject;
using sdk::getString;

inline json::value readJsonFile(const std::string& path) {
    std::ifstream in(path);
    if (!in) throw std::runtime_error("cannot open " + path);
    std::stringstream ss;
    ss << in.rdbuf();
    return json::parse(ss.str());
}

// The first file in the shared conformance cases whose name starts with `prefix`.
inline json::object readCase(const std::string& file) {
    return readJsonFile(std::string(TRAINER_GOLDEN_DIR) + "/upstream/" + file).as_object();
}

// A container summary as the host puts it in a PodSet.
inline json::object podSetContainer(const json::object& c) {
    json::object out;
    for (auto key : {"name", "image", "command", "args", "resources"})
        if (auto it = c.find(key); it != c.end()) out[key] = it->value();
    for (auto key : {"env", "ports", "volumeMounts"}) {
        auto it = c.find(key);
        out[key] = it != c.end() ? it->value() : json::array{};
    }
    return out;
}

// Info from a runtime object and a TrainJob (§4.2 steps 1, 3-5; resourcesPerNode merged
// key-wise into the trainer `node` container when the runtime has an mlPolicy).
inline json::object buildInfo(const json::object& runtime, const json::object& trainJob) {
    const json::object& rspec = *getObject(runtime, "spec");
    const json::object* mlPolicy = getObject(rspec, "mlPolicy");
    json::object jobSetSpec = *sdk::getPath(rspec, {"template", "spec"});
    const json::object* trainer = sdk::getPath(trainJob, {"spec", "trainer"});
    const json::object* rpn = trainer ? getObject(*trainer, "resourcesPerNode") : nullptr;
    json::array podSets;
    if (auto* jobs = jobSetSpec.if_contains("replicatedJobs"); jobs && jobs->is_array())
        for (auto& jv : jobs->as_array()) {
            auto& job = jv.as_object();
            json::object ps;
            ps["name"] = job["name"];
            auto* labels = sdk::getPath(job, {"template", "metadata", "labels"});
            // A std::string copy: GCC 12 misreads an optional<string_view> here (-Wmaybe-uninitialized).
            std::optional<std::string> anc;
            if (labels)
                if (auto a = getString(*labels, "trainer.kubeflow.org/trainjob-ancestor-step")) anc = std::string(*a);
            ps["ancestor"] = anc ? json::value(*anc) : json::value(nullptr);
            auto* jspec = sdk::getPath(job, {"template", "spec"});
            int64_t count = jspec ? getInt(*jspec, "parallelism").value_or(1) : 1;
            if (anc && *anc == "trainer" && mlPolicy) count = getInt(*mlPolicy, "numNodes").value_or(1);
            ps["count"] = std::max<int64_t>(count, 1);
            json::object* pod = nullptr;
            if (auto* t = job.if_contains("template"))
                if (auto* s = t->as_object().if_contains("spec"))
                    if (auto* tt = s->as_object().if_contains("template"))
                        if (auto* ss = tt->as_object().if_contains("spec")) pod = &ss->as_object();
            json::array containers, inits;
            if (pod) {
                if (auto* cs = pod->if_contains("containers"))
                    for (auto& c : cs->as_array()) {
                        auto& co = c.as_object();
                        if (rpn && anc && *anc == "trainer" && mlPolicy && getString(co, "name") == "node") {
                            json::object res = co.contains("resources") ? co["resources"].as_object() : json::object{};
                            for (auto key : {"limits", "requests"})
                                if (auto* src = getObject(*rpn, key)) {
                                    json::object merged = res.contains(key) ? res[key].as_object() : json::object{};
                                    for (auto const& kv : *src) merged[kv.key()] = kv.value();
                                    res[key] = merged;
                                }
                            co["resources"] = res;
                        }
                        containers.push_back(podSetContainer(co));
                    }
                if (auto* cs = pod->if_contains("initContainers"))
                    for (auto& c : cs->as_array()) inits.push_back(podSetContainer(c.as_object()));
            }
            ps["containers"] = containers;
            ps["initContainers"] = inits;
            ps["volumes"] = pod && pod->contains("volumes") ? (*pod)["volumes"] : json::array{};
            ps["endpoints"] = json::array{};
            ps["singlePodRequests"] = json::object{};
            podSets.push_back(ps);
        }
    json::object runtimePolicy;
    if (mlPolicy) runtimePolicy["mlPolicy"] = *mlPolicy;
    if (auto* pg = getObject(rspec, "podGroupPolicy")) runtimePolicy["podGroupPolicy"] = *pg;
    auto* meta = sdk::getPath(rspec, {"template", "metadata"});
    return json::object{
        {"infoVersion", 1},
        {"trainJob", trainJob},
        {"runtime", json::object{{"apiVersion", runtime.at("apiVersion")},
                                 {"kind", runtime.at("kind")},
                                 {"metadata", runtime.at("metadata")}}},
        {"labels", meta && meta->contains("labels") ? meta->at("labels") : json::object{}},
        {"annotations", meta && meta->contains("annotations") ? meta->at("annotations") : json::object{}},
        {"runtimePolicy", runtimePolicy},
        {"scheduler", json::object{{"podLabels", json::object{}}, {"podAnnotations", json::object{}}}},
        {"jobSetSpec", jobSetSpec},
        {"podSets", podSets},
    };
}

// Key member of a keyed list's elements (sdk/docs/info.md), or "" for index-addressed lists.
inline std::string listKey(std::string_view list) {
    for (auto n : {"podSets", "replicatedJobs", "containers", "initContainers", "env", "volumes", "imagePullSecrets",
                   "schedulingGates"})
        if (list == n) return "name";
    if (list == "volumeMounts") return "mountPath";
    if (list == "ports") return "containerPort";
    return "";
}

inline bool keyMatches(const json::value& elem, const std::string& key, const std::string& seg) {
    if (!elem.is_object()) return false;
    auto it = elem.as_object().find(key);
    if (it == elem.as_object().end()) return false;
    if (it->value().is_string()) return it->value().as_string() == seg;
    if (it->value().is_int64()) return std::to_string(it->value().as_int64()) == seg;
    return false;
}

// Applies one edit operation to `doc` (upsert semantics for keyed lists). Throws on a bad path.
inline void applyEdit(json::object& doc, const json::object& edit) {
    std::string path(getString(edit, "path").value_or(""));
    bool remove = getString(edit, "op").value_or("") == "remove";
    std::vector<std::string> segs;
    for (size_t pos = 1; pos <= path.size();) {
        size_t next = path.find('/', pos);
        std::string s = path.substr(pos, next == std::string::npos ? std::string::npos : next - pos);
        std::string u;
        for (size_t i = 0; i < s.size(); ++i)
            if (s[i] == '~' && i + 1 < s.size()) u += s[++i] == '1' ? '/' : '~';
            else u += s[i];
        segs.push_back(u);
        if (next == std::string::npos) break;
        pos = next + 1;
    }
    json::value* cur = nullptr;
    json::value root = doc;
    cur = &root;
    std::string parentName;
    for (size_t i = 0; i < segs.size(); ++i) {
        bool last = i + 1 == segs.size();
        const std::string& seg = segs[i];
        if (cur->is_object()) {
            auto& o = cur->as_object();
            if (last) {
                if (remove) o.erase(seg);
                else o[seg] = edit.at("value");
                break;
            }
            if (!o.contains(seg)) throw std::runtime_error("missing parent in " + path);
            cur = &o[seg];
        } else if (cur->is_array()) {
            auto& a = cur->as_array();
            std::string key = listKey(parentName);
            json::value* found = nullptr;
            size_t idx = 0;
            for (size_t k = 0; k < a.size(); ++k)
                if (key.empty() ? std::to_string(k) == seg : keyMatches(a[k], key, seg)) {
                    found = &a[k];
                    idx = k;
                }
            if (last) {
                if (remove) {
                    if (found) a.erase(a.begin() + static_cast<std::ptrdiff_t>(idx));
                } else if (found) *found = edit.at("value");
                else a.push_back(edit.at("value"));
                break;
            }
            if (!found) throw std::runtime_error("missing element in " + path);
            cur = found;
        } else {
            throw std::runtime_error("cannot descend into scalar at " + path);
        }
        parentName = seg;
    }
    doc = root.as_object();
}

// Runs `hook(info, edits, ctx)` against a fake host, applies the edits, returns the new Info.
template <class Plugin>
json::object enforce(Plugin& plugin, const json::object& info, sdk::testing::Host& host) {
    host.clear();
    auto ctx = host.context(Plugin::meta().name);
    sdk::Edits edits(ctx);
    sdk::Info view(info);
    plugin.enforceMLPolicy(view, edits, ctx);
    json::object out = info;
    for (auto const& e : host.emitted) applyEdit(out, e.as_object());
    return out;
}

// The container `c` of PodSet `ps` in an Info document (regular or init).
inline const json::object& container(const json::object& info, std::string_view ps, std::string_view c,
                                     bool init = false) {
    auto* p = sdk::findByKey(getArray(info, "podSets"), "name", ps);
    if (!p) throw std::runtime_error("no podSet " + std::string(ps));
    auto* co = sdk::findByKey(getArray(*p, init ? "initContainers" : "containers"), "name", c);
    if (!co) throw std::runtime_error("no container " + std::string(c));
    return *co;
}
inline int64_t podSetCount(const json::object& info, std::string_view ps) {
    auto* p = sdk::findByKey(getArray(info, "podSets"), "name", ps);
    return p ? getInt(*p, "count").value_or(-1) : -1;
}
// Env names in order.
inline std::vector<std::string> envNames(const json::object& c) {
    std::vector<std::string> out;
    if (auto* env = getArray(c, "env"))
        for (auto const& e : *env) out.emplace_back(getString(e.as_object(), "name").value_or(""));
    return out;
}
// Env value (plain `value`), or "<unset>" when absent, "<valueFrom>" when it uses valueFrom.
inline std::string envValue(const json::object& c, std::string_view name) {
    auto* e = sdk::findByKey(getArray(c, "env"), "name", name);
    if (!e) return "<unset>";
    if (auto v = getString(*e, "value")) return std::string(*v);
    return e->contains("valueFrom") ? "<valueFrom>" : "<empty>";
}
inline std::vector<int64_t> ports(const json::object& c) {
    std::vector<int64_t> out;
    if (auto* p = getArray(c, "ports"))
        for (auto const& e : *p) out.push_back(getInt(e.as_object(), "containerPort").value_or(-1));
    return out;
}
inline std::vector<std::string> strings(const json::value& v) {
    std::vector<std::string> out;
    if (v.is_array())
        for (auto const& s : v.as_array()) out.emplace_back(s.is_string() ? std::string(s.as_string()) : "<non-string>");
    return out;
}

// A runtime object (TrainingRuntime "test-runtime") with one trainer job `node` and the given
// mlPolicy and `node` container.
inline json::object makeRuntime(json::object mlPolicy, json::object nodeContainer, std::string name = "test-runtime") {
    json::object job{{"name", "node"},
                     {"replicas", 1},
                     {"template",
                      json::object{{"metadata",
                                    json::object{{"labels", json::object{{"trainer.kubeflow.org/trainjob-ancestor-step",
                                                                          "trainer"}}}}},
                                   {"spec", json::object{{"template", json::object{{"spec", json::object{{"containers", json::array{nodeContainer}}}}}}}}}}};
    return json::object{{"apiVersion", "trainer.kubeflow.org/v1alpha1"},
                        {"kind", "TrainingRuntime"},
                        {"metadata", json::object{{"name", name}, {"namespace", "default"}}},
                        {"spec", json::object{{"mlPolicy", mlPolicy},
                                              {"template", json::object{{"spec", json::object{{"replicatedJobs", json::array{job}}}}}}}}};
}

// A TrainJob "test-job" on `runtimeName` with the given spec.trainer (omitted when null).
inline json::object makeTrainJob(const json::value& trainer, std::string runtimeName = "test-runtime") {
    json::object spec{{"runtimeRef", json::object{{"name", runtimeName},
                                                  {"apiGroup", "trainer.kubeflow.org"},
                                                  {"kind", "TrainingRuntime"}}},
                      {"suspend", false}};
    if (!trainer.is_null()) spec["trainer"] = trainer;
    return json::object{{"apiVersion", "trainer.kubeflow.org/v1alpha1"},
                        {"kind", "TrainJob"},
                        {"metadata", json::object{{"name", "test-job"}, {"namespace", "default"}, {"uid", "uid"}}},
                        {"spec", spec}};
}

}  // namespace trainer::plugins::mltest
