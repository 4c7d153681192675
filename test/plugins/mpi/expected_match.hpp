// The conformance cases' "expected ⊆ actual" matcher (test/fixtures/upstream/conformance/cases/
// README.md "Matching rule"), for the mpi tests' expected objects.
#pragma once

#include <boost/json.hpp>

#include <string>
#include <string_view>
#include <vector>

namespace mpitest {

namespace json = boost::json;

inline bool keyMatches(const json::value& elem, const std::string& key, const std::string& want) {
    if (!elem.is_object()) return false;
    auto it = elem.as_object().find(key);
    if (it == elem.as_object().end()) return false;
    if (it->value().is_string()) return it->value().as_string() == want;
    return json::serialize(it->value()) == want;
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

// A list of "$absent" elements only asserts absences: a missing list holds none (run_cases.py).
inline bool onlyAbsences(const json::value& v) {
    if (!v.is_array() || v.as_array().empty()) return false;
    for (auto const& e : v.as_array())
        if (!e.is_object() || !e.as_object().contains("$absent")) return false;
    return true;
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
                if (!absentMarker && !onlyAbsences(v)) errs.push_back(at + "." + std::string(k) + ": missing");
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
