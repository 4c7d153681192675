#include "core/executor/pod_status.hpp"

namespace trainer::core::executor {

namespace {

json::object terminatedJson(const TerminatedState& t) {
    json::object o{{"exitCode", t.exitCode}, {"reason", t.reason}, {"startedAt", t.startedAt},
                   {"finishedAt", t.finishedAt}, {"containerID", t.containerId}};
    if (!t.message.empty()) o["message"] = t.message;
    return o;
}

json::object stateJson(const ContainerRecord& c) {
    switch (c.state) {
        case ContainerRecord::State::Running:
            return {{"running", json::object{{"startedAt", c.startedAt}}}};
        case ContainerRecord::State::Terminated:
            return {{"terminated", terminatedJson(c.terminated)}};
        case ContainerRecord::State::Waiting: break;
    }
    json::object w{{"reason", c.waitingReason}};
    if (!c.waitingMessage.empty()) w["message"] = c.waitingMessage;
    return {{"waiting", std::move(w)}};
}

json::array containerStatuses(const std::vector<ContainerRecord>& records) {
    json::array out;
    for (auto const& c : records) {
        json::object s{{"name", c.name},
                       {"image", c.image},
                       {"imageID", ""},
                       {"ready", c.ready},
                       {"restartCount", c.restartCount},
                       {"started", c.state == ContainerRecord::State::Running},
                       {"state", stateJson(c)},
                       {"lastState", c.lastState ? json::object{{"terminated", terminatedJson(*c.lastState)}} : json::object{}}};
        if (!c.containerId.empty()) s["containerID"] = c.containerId;
        out.push_back(std::move(s));
    }
    return out;
}

bool allReady(const PodRecord& p) {
    if (p.containers.empty()) return false;
    for (auto const& c : p.containers)
        if (!c.ready) return false;
    return true;
}

json::object condition(const std::string& type, bool status, const std::string& reason,
                       std::map<std::string, std::pair<bool, std::string>>& times, const std::string& now) {
    auto& t = times[type];
    if (t.second.empty() || t.first != status) t = {status, now};
    json::object c{{"type", type}, {"status", status ? "True" : "False"}, {"lastProbeTime", nullptr},
                   {"lastTransitionTime", t.second}};
    if (!reason.empty()) c["reason"] = reason;
    return c;
}

}  // namespace

json::object renderPodStatus(const PodRecord& p, std::map<std::string, std::pair<bool, std::string>>& times,
                             const std::string& now) {
    const bool done = p.phase == "Succeeded" || p.phase == "Failed";
    const bool ready = !done && allReady(p);
    json::array conds;
    if (p.disrupted) conds.push_back(condition("DisruptionTarget", true, "TerminationByKubelet", times, now));
    conds.push_back(condition("PodReadyToStartContainers", p.sandboxReady && !done, "", times, now));
    conds.push_back(condition("Initialized", p.initialized, p.initialized ? "" : "ContainersNotInitialized", times, now));
    conds.push_back(condition("Ready", ready, ready ? "" : done ? "PodCompleted" : "ContainersNotReady", times, now));
    conds.push_back(condition("ContainersReady", ready, ready ? "" : done ? "PodCompleted" : "ContainersNotReady", times, now));
    conds.push_back(condition("PodScheduled", true, "", times, now));
    json::object s{{"phase", p.phase}, {"conditions", std::move(conds)}, {"qosClass", "BestEffort"}};
    if (!p.reason.empty()) s["reason"] = p.reason;
    if (!p.message.empty()) s["message"] = p.message;
    if (!p.hostIP.empty()) {
        s["hostIP"] = p.hostIP;
        s["hostIPs"] = json::array{json::object{{"ip", p.hostIP}}};
    }
    if (!p.podIP.empty()) {
        s["podIP"] = p.podIP;
        s["podIPs"] = json::array{json::object{{"ip", p.podIP}}};
    }
    if (!p.startTime.empty()) s["startTime"] = p.startTime;
    if (!p.initContainers.empty()) s["initContainerStatuses"] = containerStatuses(p.initContainers);
    s["containerStatuses"] = containerStatuses(p.containers);
    return s;
}

PodRecord initialRecord(const json::object& pod) {
    PodRecord r;
    auto* spec = pod.if_contains("spec");
    auto fill = [&](std::string_view key, std::vector<ContainerRecord>& out, const char* waiting) {
        auto* list = spec && spec->is_object() ? spec->get_object().if_contains(key) : nullptr;
        if (!list || !list->is_array()) return;
        for (auto const& c : list->get_array()) {
            if (!c.is_object()) continue;
            ContainerRecord rec;
            if (auto* n = c.get_object().if_contains("name"); n && n->is_string()) rec.name = n->get_string();
            if (auto* i = c.get_object().if_contains("image"); i && i->is_string()) rec.image = i->get_string();
            rec.waitingReason = waiting;
            out.push_back(std::move(rec));
        }
    };
    fill("initContainers", r.initContainers, "PodInitializing");
    fill("containers", r.containers, "ContainerCreating");
    if (r.initContainers.empty()) r.initialized = true;
    return r;
}

}  // namespace trainer::core::executor
