#include "core/executor/pod_logs.hpp"

#include <algorithm>

namespace trainer::core::executor {

namespace fs = std::filesystem;

namespace {

const json::object* objectAt(const json::object& o, std::string_view key) {
    auto* v = o.if_contains(key);
    return v && v->is_object() ? &v->as_object() : nullptr;
}

const json::array* arrayAt(const json::object& o, std::string_view key) {
    auto* v = o.if_contains(key);
    return v && v->is_array() ? &v->as_array() : nullptr;
}

std::string stringAt(const json::object& o, std::string_view key) {
    auto* v = o.if_contains(key);
    return v && v->is_string() ? std::string(v->as_string()) : std::string();
}

void appendNames(const json::object& spec, std::string_view key, std::vector<std::string>& out) {
    if (auto* list = arrayAt(spec, key))
        for (auto const& c : *list)
            if (c.is_object()) out.push_back(stringAt(c.as_object(), "name"));
}

// The status of `container` among status.containerStatuses and status.initContainerStatuses.
const json::object* containerStatus(const json::object& pod, const std::string& container) {
    auto* status = objectAt(pod, "status");
    if (!status) return nullptr;
    for (auto key : {"containerStatuses", "initContainerStatuses"})
        if (auto* list = arrayAt(*status, key))
            for (auto const& s : *list)
                if (s.is_object() && stringAt(s.as_object(), "name") == container) return &s.as_object();
    return nullptr;
}

int64_t restartCountOf(const json::object& status) {
    auto* v = status.if_contains("restartCount");
    return v && v->is_int64() ? v->as_int64() : v && v->is_uint64() ? static_cast<int64_t>(v->as_uint64()) : 0;
}

// "running", "terminated" or "waiting" (the first present), or "".
std::string stateOf(const json::object& status, std::string_view which = "state") {
    auto* state = objectAt(status, which);
    if (!state) return {};
    for (auto s : {"running", "terminated", "waiting"})
        if (objectAt(*state, s)) return s;
    return {};
}

std::string inQuotes(const std::string& s) { return "\"" + s + "\""; }

std::string waitingReason(const json::object* status) {
    const json::object* state = status ? objectAt(*status, "state") : nullptr;
    const json::object* waiting = state ? objectAt(*state, "waiting") : nullptr;
    std::string reason = waiting ? stringAt(*waiting, "reason") : "";
    return reason.empty() ? "ContainerCreating" : reason;
}

}  // namespace

fs::path executorStateDir(const std::string& storePath) { return fs::path(storePath + ".local"); }

fs::path podLogDirectory(const fs::path& stateDir, const std::string& ns, const std::string& pod,
                         const std::string& uid) {
    return stateDir / "pods" / (ns + "_" + pod + "_" + uid);
}

fs::path containerLogPath(const fs::path& stateDir, const std::string& ns, const std::string& pod,
                          const std::string& uid, const std::string& container, int64_t restartCount) {
    return podLogDirectory(stateDir, ns, pod, uid) / container / (std::to_string(restartCount) + ".log");
}

std::vector<std::string> podContainerNames(const json::object& pod) {
    std::vector<std::string> out;
    if (auto* spec = objectAt(pod, "spec")) {
        appendNames(*spec, "initContainers", out);
        appendNames(*spec, "containers", out);
    }
    return out;
}

std::vector<std::string> podMainContainerNames(const json::object& pod) {
    std::vector<std::string> out;
    if (auto* spec = objectAt(pod, "spec")) appendNames(*spec, "containers", out);
    return out;
}

std::string chooseContainer(const json::object& pod, const std::string& requested, LogError& error) {
    const std::string name = keyOf(pod).name;
    auto all = podContainerNames(pod);
    if (!requested.empty()) {
        if (std::find(all.begin(), all.end(), requested) != all.end()) return requested;
        error = {LogErrorKind::BadRequest, "container " + requested + " is not valid for pod " + name};
        return {};
    }
    auto main = podMainContainerNames(pod);
    if (main.size() == 1) return main.front();
    std::string message = "a container name must be specified for pod " + name;
    if (!main.empty()) {
        std::string list;
        for (auto const& c : all) list += (list.empty() ? "" : " ") + c;
        message += ", choose one of: [" + list + "]";
    }
    error = {LogErrorKind::BadRequest, message};
    return {};
}

ContainerLog findContainerLog(const json::object& pod, const fs::path& stateDir, const std::string& container,
                              bool previous, LogError& error) {
    auto key = keyOf(pod);
    auto* meta = objectAt(pod, "metadata");
    ContainerLog log{key.ns, key.name, meta ? stringAt(*meta, "uid") : "", container, 0, {}};
    auto* status = containerStatus(pod, container);
    const std::string state = status ? stateOf(*status) : "";
    const bool ranBefore = status && stateOf(*status, "lastState") == "terminated";
    const int64_t restarts = status ? restartCountOf(*status) : 0;
    if (previous) {
        // In a back-off (waiting after a run) the last run is still instance <restartCount>.
        if (state == "waiting" && ranBefore) log.restartCount = restarts;
        else if (restarts > 0) log.restartCount = restarts - 1;
        else {
            error = {LogErrorKind::BadRequest,
                     "previous terminated container " + inQuotes(container) + " in pod " + inQuotes(key.name) + " not found"};
            return log;
        }
    } else if (state == "running" || state == "terminated" || (state == "waiting" && ranBefore)) {
        log.restartCount = restarts;
    } else {
        error = {LogErrorKind::NotStarted, "container " + inQuotes(container) + " in pod " + inQuotes(key.name) +
                                               " is waiting to start: " + waitingReason(status)};
        return log;
    }
    log.path = containerLogPath(stateDir, log.ns, log.pod, log.uid, container, log.restartCount);
    return log;
}

bool containerInstanceEnded(const std::optional<json::object>& pod, const ContainerLog& log) {
    if (!pod) return true;
    auto* meta = objectAt(*pod, "metadata");
    if (!meta || stringAt(*meta, "uid") != log.uid) return true;
    auto* status = containerStatus(*pod, log.container);
    if (!status) return false;
    if (restartCountOf(*status) != log.restartCount) return true;
    const std::string state = stateOf(*status);
    return state == "terminated" || (state == "waiting" && stateOf(*status, "lastState") == "terminated");
}

}  // namespace trainer::core::executor
