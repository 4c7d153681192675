// Test helpers for the mpi plugin: a small stand-in for the host (Info from a runtime and a
// TrainJob, edits applied with keyed JSON Pointers, jobset endpoints) and the conformance
// "expected ⊆ actual" matcher (shared/conformance/cases/README.md).
#pragma once

#include <trainer/testing.hpp>

#include <boost/json.hpp>

#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace mpitest {

namespace json = boost::json;
using trainer::sdk::getArray;
using trainer::sdk::getObject;
using trainer::sdk::getString;

inline json::object readJson(const std::string& path) {
    std::ifstream in(path);
    if (!in) throw std::runtime_error("cannot open " + path);
    std::stringstream ss;
    ss << in.rdbuf();
    return json::parse(ss.str()).as_object();
}

inline json::value parse(std::string_view s) { return json::parse(s); }

// The Info document (sdk/docs/info.md) the host would build for `trainJob` on `runtime`
// (no runtime patches, no resource merge: what these tests need).
inline json::object makeInfo(const json::object& trainJob, const json::object& runtime) {
    const json::object& spec = runtime.at("spec").as_object();
    json::object info{{"infoVersion", 1}, {"trainJob", trainJob}, {"labels", json::object{}},
                      {"annotations", json::object{}}, {"scheduler", json::object{{"podLabels", json::object{}},
                                                                                  {"podAnnotations", json::object{}}}}};
    json::object policy;
    if (auto* ml = getObject(spec, "mlPolicy")) policy["mlPolicy"] = *ml;
    info["runtimePolicy"] = policy;
    json::object jss = spec.at("template").as_object().at("spec").as_object();
    info["jobSetSpec"] = jss;
    json::array podSets;
    for (auto const& rj : jss.at("replicatedJobs").as_array()) {
        const json::object& job = rj.as_object();
        const json::object& tmpl = job.at("template").as_object();
        json::value ancestor = nullptr;
        if (auto* labels = trainer::sdk::getPath(tmpl, {"metadata", "labels"}))
            if (auto a = getString(*labels, "trainer.kubeflow.org/trainjob-ancestor-step")) ancestor = *a;
        const json::object& podSpec = tmpl.at("spec").as_object().at("template").as_object().at("spec").as_object();
        int64_t count = trainer::sdk::getInt(tmpl.at("spec").as_object(), "parallelism").value_or(1);
        if (ancestor.is_string() && ancestor.as_string() == "trainer" && getObject(spec, "mlPolicy"))
            count = trainer::sdk::getInt(spec.at("mlPolicy").as_object(), "numNodes").value_or(1);
        json::array containers;
        if (auto* cs = getArray(podSpec, "containers"))
            for (auto const& c : *cs) {
                json::object co = c.as_object();
                for (auto k : {"env", "ports", "volumeMounts"})
                    if (!co.contains(k)) co[k] = json::array{};
                containers.push_back(co);
            }
        json::object ps{{"name", job.at("name")},
                        {"ancestor", ancestor},
                        {"count", std::max<int64_t>(count, 1)},
                        {"containers", containers},
                        {"initContainers", json::array{}},
                        {"volumes", getArray(podSpec, "volumes") ? *getArray(podSpec, "volumes") : json::array{}},
                        {"endpoints", json::array{}}};
        podSets.push_back(ps);
    }
    info["podSets"] = podSets;
    return info;
}

// Key of the elements of a keyed list named `list`, or "" for index-addressed lists.
inline std::string listKey(std::string_view list) {
    static const std::map<std::string, std::string, std::less<>> keys{
        {"podSets", "name"}, {"replicatedJobs", "name"}, {"containers", "name"}, {"initContainers", "name"},
        {"env", "name"}, {"volumes", "name"}, {"volumeMounts", "mountPath"}, {"ports", "containerPort"}};
    auto it = keys.find(list);
    return it == keys.end() ? "" : it->second;
}

inline std::string unescape(std::string_view seg) {
    std::string out;
    for (size_t i = 0; i < seg.size(); ++i) {
        if (seg[i] == '~' && i + 1 < seg.size()) out += seg[++i] == '1' ? '/' : '~';
        else out += seg[i];
    }
    return out;
}

inline bool keyMatches(const json::value& elem, const std::string& key, const std::string& want) {
    if (!elem.is_object()) return false;
    auto it = elem.as_object().find(key);
    if (it == elem.as_object().end()) return false;
    if (it->value().is_string()) return it->value().as_string() == want;
    return json::serialize(it->value()) == want;
}

// Applies one edit ({"op":"set"|"remove","path","value"}) with keyed-list semantics.
inline void applyEdit(json::value& doc, const json::object& edit) {
    std::string path(edit.at("path").as_string());
    std::vector<std::string> segs;
    for (size_t pos = 1; pos <= path.size();) {
        size_t next = path.find('/', pos);
        if (next == std::string::npos) next = path.size();
        segs.push_back(unescape(std::string_view(path).substr(pos, next - pos)));
        pos = next + 1;
    }
    bool remove = edit.at("op").as_string() == "remove";
    json::value* cur = &doc;
    std::string listName;
    for (size_t i = 0; i < segs.size(); ++i) {
        bool last = i + 1 == segs.size();
        if (cur->is_object()) {
            auto& o = cur->as_object();
            if (last) {
                if (remove) o.erase(segs[i]);
                else o[segs[i]] = edit.at("value");
                return;
            }
            if (!o.contains(segs[i])) throw std::runtime_error("missing parent in " + path);
            listName = segs[i];
            cur = &o[segs[i]];
        } else if (cur->is_array()) {
            auto& a = cur->as_array();
            std::string key = listKey(listName);
            json::value* found = nullptr;
            size_t idx = 0;
            for (size_t k = 0; k < a.size(); ++k)
                if (key.empty() ? std::to_string(k) == segs[i] : keyMatches(a[k], key, segs[i])) {
                    found = &a[k];
                    idx = k;
                    break;
                }
            if (last) {
                if (remove) {
                    if (found) a.erase(a.begin() + idx);
                } else if (found) {
                    *found = edit.at("value");
                } else {
                    a.push_back(edit.at("value"));
                }
                return;
            }
            if (!found) throw std::runtime_error("missing element in " + path);
            cur = found;
        } else {
            throw std::runtime_error("path through a scalar: " + path);
        }
    }
}

inline void applyEdits(json::object& info, const std::vector<json::value>& edits) {
    json::value doc = info;
    for (auto const& e : edits) applyEdit(doc, e.as_object());
    info = doc.as_object();
}

// What the jobset PreComponentBuilder fills in: `<job>-<rjob>-<r>-<p>.<subdomain>`.
inline void fillEndpoints(json::object& info) {
    std::string job(info.at("trainJob").at("metadata").at("name").as_string());
    std::string subdomain = job;
    if (auto* net = getObject(info.at("jobSetSpec").as_object(), "network"))
        if (auto s = getString(*net, "subdomain")) subdomain = *s;
    auto& podSets = info.at("podSets").as_array();
    auto const& jobs = info.at("jobSetSpec").at("replicatedJobs").as_array();
    for (size_t i = 0; i < podSets.size(); ++i) {
        auto& ps = podSets[i].as_object();
        int64_t replicas = trainer::sdk::getInt(jobs[i].as_object(), "replicas").value_or(1);
        int64_t count = trainer::sdk::getInt(ps, "count").value_or(1);
        json::array eps;
        for (int64_t r = 0; r < replicas; ++r)
            for (int64_t p = 0; p < count; ++p)
                eps.push_back(json::string(job + "-" + std::string(ps.at("name").as_string()) + "-" +
                                           std::to_string(r) + "-" + std::to_string(p) + "." + subdomain));
        ps["endpoints"] = eps;
    }
}

// Conformance matching (README "Matching rule"): appends one line per mismatch to `errs`.
inline std::string matcherKey(std::string_view list) {
    if (list == "volumeMounts") return "mountPath";
    if (list == "ports") return "containerPort";
    if (list == "ownerReferences") return "uid";
    if (list == "conditions") return "type";
    if (list == "replicatedJobs" || list == "containers" || list == "initContainers" || list == "env" ||
        list == "volumes" || list == "imagePullSecrets" || list == "schedulingGates" || list == "dependsOn")
        return "name";
    return "";
}

inline void match(const json::value& exp, const json::value* act, const std::string& at, std::string_view listName,
                  std::vector<std::string>& errs) {
    if (exp.is_string() && exp.as_string() == "<any>") {
        if (!act) errs.push_back(at + ": missing");
        return;
    }
    if (exp.is_string() && exp.as_string() == "<absent>") {
        if (act && !act->is_null()) errs.push_back(at + ": expected absent, got " + json::serialize(*act));
        return;
    }
    if (!act) {
        errs.push_back(at + ": missing");
        return;
    }
    if (exp.is_object()) {
        if (!act->is_object()) return errs.push_back(at + ": not an object");
        for (auto const& [k, v] : exp.as_object()) {
            auto it = act->as_object().find(k);
            bool absentMarker = v.is_string() && v.as_string() == "<absent>";
            if (it == act->as_object().end()) {
                if (!absentMarker) errs.push_back(at + "." + std::string(k) + ": missing");
                continue;
            }
            match(v, &it->value(), at + "." + std::string(k), k, errs);
        }
        return;
    }
    if (exp.is_array()) {
        if (!act->is_array()) return errs.push_back(at + ": not a list");
        const auto& ea = exp.as_array();
        const auto& aa = act->as_array();
        std::string key = matcherKey(listName);
        if (key.empty()) {
            if (ea.size() != aa.size())
                return errs.push_back(at + ": length " + std::to_string(aa.size()) + ", want " +
                                      std::to_string(ea.size()));
            for (size_t i = 0; i < ea.size(); ++i) match(ea[i], &aa[i], at + "[" + std::to_string(i) + "]", "", errs);
            return;
        }
        for (auto const& e : ea) {
            const auto& eo = e.as_object();
            std::string want = eo.at(key).is_string() ? std::string(eo.at(key).as_string()) : json::serialize(eo.at(key));
            const json::value* found = nullptr;
            for (auto const& a : aa)
                if (keyMatches(a, key, want)) found = &a;
            std::string here = at + "[" + key + "=" + want + "]";
            if (eo.contains("$absent")) {
                if (found) errs.push_back(here + ": must be absent");
                continue;
            }
            match(e, found, here, "", errs);
        }
        return;
    }
    if (exp.is_number() && act->is_number()) {
        json::error_code ec1, ec2;
        if (exp.to_number<double>(ec1) != act->to_number<double>(ec2))
            errs.push_back(at + ": " + json::serialize(*act) + " != " + json::serialize(exp));
        return;
    }
    if (exp != *act) errs.push_back(at + ": " + json::serialize(*act) + " != " + json::serialize(exp));
}

inline std::string joinErrors(const std::vector<std::string>& errs) {
    std::string s;
    for (auto const& e : errs) s += e + "\n";
    return s;
}

}  // namespace mpitest
