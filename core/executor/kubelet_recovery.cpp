// Kubelet::recover: the node-reboot rule of kubelet.hpp.
#include "core/executor/kubelet.hpp"

namespace trainer::core::executor {

namespace {

constexpr const char* kRestartMessage =
    "the operator restarted while the pod ran: its processes stopped with the previous operator process";

void terminateStatuses(json::object& status, std::string_view key, const std::string& now) {
    auto* list = status.if_contains(key);
    if (!list || !list->is_array()) return;
    for (auto& c : list->get_array()) {
        if (!c.is_object()) continue;
        auto& o = c.get_object();
        auto* state = o.if_contains("state");
        if (!state || !state->is_object() || !state->get_object().contains("running")) continue;
        json::value startedAt = state->get_object()["running"].as_object()["startedAt"];
        o["state"] = json::object{{"terminated", json::object{{"exitCode", 137}, {"reason", "Error"},
                                                              {"message", kRestartMessage}, {"startedAt", startedAt},
                                                              {"finishedAt", now}}}};
        o["ready"] = false;
        o["started"] = false;
    }
}

}  // namespace

bool Kubelet::recover() {
    const std::string now = formatRfc3339(clock_.now());
    auto pods = store_.list("v1", "Pod");
    if (!pods.ok()) {
        logger_.error("Listing the pods of the previous operator process failed; retrying", {{"error", *pods.error}});
        return false;
    }
    for (auto pod : pods.value) {
        auto* spec = pod.if_contains("spec");
        auto* node = spec && spec->is_object() ? spec->get_object().if_contains("nodeName") : nullptr;
        auto* status = pod.if_contains("status");
        if (!node || *node != json::value(options_.nodeName) || !status || !status->is_object()) continue;
        auto& st = status->get_object();
        auto phase = st.if_contains("phase");
        if (!st.contains("startTime") || (phase && (*phase == "Succeeded" || *phase == "Failed"))) continue;
        st["phase"] = "Failed";
        st["reason"] = "Terminated";
        st["message"] = kRestartMessage;
        terminateStatuses(st, "initContainerStatuses", now);
        terminateStatuses(st, "containerStatuses", now);
        json::array conds{json::object{{"type", "DisruptionTarget"}, {"status", "True"}, {"reason", "TerminationByKubelet"},
                                       {"message", kRestartMessage}, {"lastTransitionTime", now}}};
        if (auto* old = st.if_contains("conditions"); old && old->is_array())
            for (auto const& c : old->get_array())
                if (c.is_object() && c.get_object().if_contains("type") && c.get_object().at("type") != "DisruptionTarget") {
                    json::object copy = c.get_object();
                    if (copy["type"] == "Ready" || copy["type"] == "ContainersReady") copy["status"] = "False";
                    conds.push_back(std::move(copy));
                }
        st["conditions"] = std::move(conds);
        auto r = store_.updateStatus(pod);
        logger_.info("Pod of the previous operator process marked Failed",
                     {{"pod", keyOf(pod).ns + "/" + keyOf(pod).name}, {"result", std::string(toString(r.status))}});
    }
    return true;
}

}  // namespace trainer::core::executor
