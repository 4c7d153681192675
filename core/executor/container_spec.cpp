#include "core/executor/container_spec.hpp"

#include <boost/json.hpp>

namespace trainer::core::executor {

namespace json = boost::json;

namespace {

json::array strings(const std::vector<std::string>& v) {
    json::array a;
    for (auto const& s : v) a.emplace_back(s);
    return a;
}

std::string str(const json::object& o, std::string_view key) {
    auto* v = o.if_contains(key);
    return v && v->is_string() ? std::string(v->get_string()) : std::string();
}

bool readStrings(const json::object& o, std::string_view key, std::vector<std::string>& out) {
    auto* v = o.if_contains(key);
    if (!v) return true;
    if (!v->is_array()) return false;
    for (auto const& e : v->get_array()) {
        if (!e.is_string()) return false;
        out.emplace_back(e.get_string());
    }
    return true;
}

}  // namespace

std::string encodeSpec(const ContainerSpec& s) {
    json::array mounts;
    for (auto const& m : s.mounts)
        mounts.push_back(json::object{{"source", m.source}, {"target", m.target}, {"readOnly", m.readOnly}});
    json::object o{{"argv", strings(s.argv)},       {"env", strings(s.env)},         {"workingDir", s.workingDir}, {"scratchDir", s.scratchDir},
                   {"hostname", s.hostname},        {"netns", s.netns},             {"hostsFile", s.hostsFile},
                   {"mounts", std::move(mounts)},   {"logFile", s.logFile},         {"resultFile", s.resultFile},
                   {"cgroup", s.cgroup}};
    return json::serialize(o);
}

std::optional<ContainerSpec> decodeSpec(const std::string& text, std::string& error) {
    boost::system::error_code ec;
    auto v = json::parse(text, ec);
    if (ec || !v.is_object()) {
        error = "container spec is not a JSON object";
        return std::nullopt;
    }
    auto const& o = v.get_object();
    ContainerSpec s;
    if (!readStrings(o, "argv", s.argv) || !readStrings(o, "env", s.env) || s.argv.empty()) {
        error = "container spec: argv and env must be lists of strings, argv not empty";
        return std::nullopt;
    }
    s.workingDir = str(o, "workingDir");
    s.scratchDir = str(o, "scratchDir");
    s.hostname = str(o, "hostname");
    s.netns = str(o, "netns");
    s.hostsFile = str(o, "hostsFile");
    s.logFile = str(o, "logFile");
    s.resultFile = str(o, "resultFile");
    s.cgroup = str(o, "cgroup");
    if (auto* m = o.if_contains("mounts"); m && m->is_array()) {
        for (auto const& e : m->get_array()) {
            if (!e.is_object()) continue;
            auto const& mo = e.get_object();
            auto* ro = mo.if_contains("readOnly");
            s.mounts.push_back({str(mo, "source"), str(mo, "target"), ro && ro->is_bool() && ro->get_bool()});
        }
    }
    return s;
}

std::string encodeFailure(const StartFailure& f) {
    return json::serialize(json::object{{"reason", f.reason}, {"message", f.message}, {"exitCode", f.exitCode}});
}

std::optional<StartFailure> decodeFailure(const std::string& text) {
    boost::system::error_code ec;
    auto v = json::parse(text, ec);
    if (ec || !v.is_object()) return std::nullopt;
    auto const& o = v.get_object();
    StartFailure f{str(o, "reason"), str(o, "message"), 128};
    if (auto* c = o.if_contains("exitCode"); c && c->is_int64()) f.exitCode = static_cast<int>(c->get_int64());
    if (f.reason.empty()) return std::nullopt;
    return f;
}

}  // namespace trainer::core::executor
