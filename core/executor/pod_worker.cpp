#include "core/executor/pod_worker.hpp"

#include <algorithm>
#include <csignal>
#include <poll.h>
#include <sys/eventfd.h>
#include <unistd.h>

namespace trainer::core::executor {

namespace {

using Steady = std::chrono::steady_clock;
using namespace std::chrono_literals;

const json::array* containersAt(const json::object& pod, std::string_view key) {
    auto* spec = pod.if_contains("spec");
    auto* list = spec && spec->is_object() ? spec->get_object().if_contains(key) : nullptr;
    return list && list->is_array() ? &list->get_array() : nullptr;
}

std::string restartPolicyOf(const json::object& pod) {
    auto* spec = pod.if_contains("spec");
    auto* p = spec && spec->is_object() ? spec->get_object().if_contains("restartPolicy") : nullptr;
    return p && p->is_string() ? std::string(p->get_string()) : "Always";
}

}  // namespace

PodWorker::PodWorker(const KubeletContext& ctx, json::object pod)
    : ctx_(ctx), pod_(std::move(pod)), key_(keyOf(pod_)), restartPolicy_(restartPolicyOf(pod_)),
      record_(initialRecord(pod_)) {
    if (auto* md = pod_.if_contains("metadata"); md && md->is_object())
        if (auto* uid = md->get_object().if_contains("uid"); uid && uid->is_string()) sandbox_.uid = uid->get_string();
    wakeFd_ = ::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    record_.hostIP = ctx_.network.hostIp();
}

PodWorker::~PodWorker() {
    stop(0ms, false);
    if (thread_.joinable()) thread_.join();
    if (wakeFd_ >= 0) ::close(wakeFd_);
}

void PodWorker::start() { thread_ = std::thread([this] { run(); }); }

void PodWorker::stop(std::chrono::milliseconds grace, bool publish) {
    if (!publish) publishOnStop_ = false;
    if (!stop_.exchange(true)) graceMs_ = grace.count();
    else graceMs_ = std::min<int64_t>(graceMs_.load(), grace.count());
    uint64_t one = 1;
    (void)!::write(wakeFd_, &one, sizeof one);
}

std::string PodWorker::now() const { return formatRfc3339(ctx_.clock.now()); }

ContainerRecord& PodWorker::record(const Slot& s) {
    return s.init ? record_.initContainers[s.index] : record_.containers[s.index];
}

const json::object& PodWorker::containerOf(const Slot& s) const {
    return containersAt(pod_, s.init ? "initContainers" : "containers")->at(s.index).get_object();
}

void PodWorker::run() {
    if (bind() && prepare()) {
        record_.sandboxReady = true;
        record_.podIP = sandbox_.endpoint->ip;
        record_.startTime = now();
        publish();
        if (runInitContainers()) runContainers();
    }
    destroySandbox(ctx_, sandbox_);
    done_ = true;
}

// The scheduler's part: the pod is bound to this node.
bool PodWorker::bind() {
    for (int attempt = 0; attempt < 10 && !stopping();) {
        auto read = ctx_.store.get(key_);
        if (read.failed()) {  // not "the pod is gone": read again in a moment
            ctx_.logger.error("Reading the pod to bind failed; retrying", {{"pod", key_.ns + "/" + key_.name}, {"error", read.message}});
            waitEvents({}, 1s);
            continue;
        }
        if (read.notFound()) return false;
        ++attempt;
        auto* cur = &read.object;
        auto& spec = (*cur)["spec"];
        if (!spec.is_object()) return false;
        spec.get_object()["nodeName"] = ctx_.nodeName;
        auto r = ctx_.progress.update(*cur);  // lost with a power failure: bound again, nothing ran yet
        if (r.ok()) {
            pod_ = r.object;
            return true;
        }
        if (r.status != StoreStatus::Conflict) {
            ctx_.logger.error("Unable to bind the pod", {{"pod", key_.ns + "/" + key_.name}, {"error", r.message}});
            return false;
        }
    }
    return false;
}

// The sandbox and the volumes, waiting (ContainerCreating) while a ConfigMap or Secret is missing.
bool PodWorker::prepare() {
    while (!stopping()) {
        std::string error;
        std::optional<StartProblem> problem;
        if (!createSandbox(ctx_, pod_, sandbox_, error)) problem = StartProblem{"ContainerCreating", error};
        else problem = refreshVolumes(ctx_, pod_, sandbox_);
        if (!problem) return true;
        for (auto* list : {&record_.initContainers, &record_.containers})
            for (auto& c : *list) c.waitingMessage = problem->message;
        publish();
        ctx_.logger.info("Pod sandbox not ready", {{"pod", key_.ns + "/" + key_.name}, {"reason", problem->message}});
        waitEvents({}, 2s);
        if (auto fresh = ctx_.store.get(key_); fresh.found()) pod_ = std::move(fresh.object);  // else: the last one read
    }
    return false;
}

bool PodWorker::runInitContainers() {
    for (size_t i = 0; i < record_.initContainers.size(); ++i) {
        std::vector<Slot> one(1);
        one[0].index = i;
        one[0].init = true;
        supervise(one);
        if (stopping()) return false;
        auto const& t = record_.initContainers[i].terminated;
        if (t.exitCode != 0) {
            record_.phase = "Failed";
            for (auto& c : record_.containers) c.waitingReason = "PodInitializing";
            publish();
            return false;
        }
    }
    record_.initialized = true;
    for (auto& c : record_.containers) c.waitingReason = "ContainerCreating";
    publish();
    return true;
}

void PodWorker::runContainers() {
    std::vector<Slot> slots(record_.containers.size());
    for (size_t i = 0; i < slots.size(); ++i) slots[i].index = i;
    supervise(slots);
    if (stopping() && !publishOnStop_) return;
    bool allZero = !record_.containers.empty();
    for (auto const& c : record_.containers)
        allZero = allZero && c.state == ContainerRecord::State::Terminated && c.terminated.exitCode == 0;
    record_.phase = allZero ? "Succeeded" : "Failed";
    publish();
}

}  // namespace trainer::core::executor
