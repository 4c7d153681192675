// PodWorker's container loop: start, watch, probe, restart, stop (pod_worker.hpp).
#include "core/executor/pod_worker.hpp"

#include <algorithm>
#include <csignal>
#include <poll.h>
#include <unistd.h>

namespace trainer::core::executor {

namespace {

using Steady = std::chrono::steady_clock;
using namespace std::chrono_literals;

std::chrono::milliseconds until(Steady::time_point t) {
    return std::max(0ms, std::chrono::duration_cast<std::chrono::milliseconds>(t - Steady::now()));
}

}  // namespace

void PodWorker::supervise(std::vector<Slot>& slots) {
    for (auto& s : slots) startSlot(s);
    bool terminating = false;
    Steady::time_point killAt{};
    for (;;) {
        if (stopping() && !terminating) {
            terminating = true;
            killAt = Steady::now() + std::chrono::milliseconds(graceMs_.load());
        }
        // SIGTERM once each init can forward it (a just-started one may not have its handler yet).
        if (terminating)
            for (auto& s : slots)
                if (s.process && !s.termSent && s.process->catches(SIGTERM)) {
                    s.process->signal(SIGTERM);
                    s.termSent = true;
                }
        if (terminating && Steady::now() >= killAt)
            for (auto& s : slots)
                if (s.process) s.process->signal(SIGKILL);
        if (!terminating) refreshTokens();
        auto wake = Steady::now() + (terminating ? 50ms : 10s);
        bool anyRunning = false, allFinished = true;
        for (auto& s : slots) {
            if (s.process)
                if (auto code = s.process->poll()) onExit(s, *code);
            if (!terminating && (s.retry || s.restartPending) && Steady::now() >= s.retryAt) startSlot(s);
            if (!terminating && s.process && s.probe.kind != ProbeSpec::Kind::None && Steady::now() >= s.nextProbe)
                runProbe(s);
            if (s.retry || s.restartPending) wake = std::min(wake, s.retryAt);
            if (s.process && s.probe.kind != ProbeSpec::Kind::None) wake = std::min(wake, s.nextProbe);
            anyRunning = anyRunning || s.process.has_value();
            allFinished = allFinished && s.finished;
        }
        if (!terminating || publishOnStop_) publish();
        if (allFinished || (terminating && !anyRunning)) return;
        waitEvents(slots, until(wake));
    }
}

void PodWorker::startSlot(Slot& s) {
    if (stopping()) return;
    auto& rec = record(s);
    if (s.restartPending) rec.restartCount++;
    s.retry = s.restartPending = false;
    if (auto fresh = ctx_.store.get(key_); fresh.found()) pod_ = std::move(fresh.object);  // else: the last one read
    refreshVolumes(ctx_, pod_, sandbox_);
    auto out = launchContainer(ctx_, pod_, containerOf(s), sandbox_, rec.restartCount);
    if (!out.process) {
        if (out.cgroup.size()) ctx_.limits.release(out.cgroup);
        onStartProblem(s, out.problem.value_or(StartProblem{"StartError", "unknown"}), out.retry);
        return;
    }
    s.process = std::move(out.process);
    s.cgroup = out.cgroup;
    s.resultFile = out.resultFile;
    rec.state = ContainerRecord::State::Running;
    rec.startedAt = now();
    rec.containerId = "local://" + std::to_string(s.process->pid());
    std::string probeError;
    s.probe = readinessProbeOf(containerOf(s), probeError);
    if (!probeError.empty())
        ctx_.logger.warn("Readiness probe is invalid", {{"pod", key_.ns + "/" + key_.name}, {"error", probeError}});
    s.successes = s.failures = 0;
    s.nextProbe = Steady::now() + std::chrono::seconds(s.probe.initialDelaySeconds);
    rec.ready = s.probe.kind == ProbeSpec::Kind::None && !s.init;
    if (!s.init) record_.phase = "Running";
}

void PodWorker::onStartProblem(Slot& s, const StartProblem& p, bool retry) {
    auto& rec = record(s);
    if (retry) {
        // CreateContainerConfigError: the container waits; the kubelet tries again.
        rec.state = ContainerRecord::State::Waiting;
        rec.waitingReason = p.reason;
        rec.waitingMessage = p.message;
        s.retry = true;
        s.retryAt = Steady::now() + 2s;
        return;
    }
    rec.state = ContainerRecord::State::Terminated;
    rec.terminated = TerminatedState{128, p.reason, p.message, now(), now(), ""};
    rec.ready = false;
    scheduleRestart(s);
}

void PodWorker::onExit(Slot& s, int exitCode) {
    auto& rec = record(s);
    TerminatedState t = terminationOf(exitCode, s.resultFile);
    t.startedAt = rec.startedAt;
    t.finishedAt = now();
    t.containerId = rec.containerId;
    s.process.reset();
    ctx_.limits.release(s.cgroup);
    s.cgroup.clear();
    rec.state = ContainerRecord::State::Terminated;
    rec.terminated = t;
    rec.ready = false;
    if (!stopping()) scheduleRestart(s);
    else s.finished = true;
}

// restartPolicy: init containers restart on failure unless Never; containers always (Always) or
// on failure (OnFailure). The container waits in CrashLoopBackOff meanwhile.
void PodWorker::scheduleRestart(Slot& s) {
    auto& rec = record(s);
    const bool failed = rec.terminated.exitCode != 0;
    const bool restart = s.init ? (failed && restartPolicy_ != "Never")
                                : (restartPolicy_ == "Always" || (restartPolicy_ == "OnFailure" && failed));
    if (!restart || stopping()) {
        s.finished = true;
        return;
    }
    s.backoffSeconds = s.backoffSeconds == 0 ? 10 : std::min(300, s.backoffSeconds * 2);
    s.restartPending = true;
    s.retryAt = Steady::now() + std::chrono::seconds(s.backoffSeconds);
    rec.lastState = rec.terminated;
    rec.state = ContainerRecord::State::Waiting;
    rec.waitingReason = "CrashLoopBackOff";
    rec.waitingMessage = "back-off " + std::to_string(s.backoffSeconds) + "s restarting failed container=" + rec.name +
                         " pod=" + key_.name + "_" + key_.ns + "(" + sandbox_.uid + ")";
}

void PodWorker::runProbe(Slot& s) {
    const bool ok = executor::runProbe(s.probe, sandbox_.endpoint ? sandbox_.endpoint->ip : "", s.process->pid());
    s.nextProbe = Steady::now() + std::chrono::seconds(s.probe.periodSeconds);
    auto& rec = record(s);
    if (ok) {
        s.failures = 0;
        if (++s.successes >= s.probe.successThreshold) rec.ready = true;
    } else {
        s.successes = 0;
        if (++s.failures >= s.probe.failureThreshold) rec.ready = false;
    }
}

// The kubelet's token manager replaces a token at 80% of its lifetime (token_manager.hpp); the
// volumes are rewritten then (the atomic writer touches only what changed), as its periodic
// volume sync would.
void PodWorker::refreshTokens() {
    if (!ctx_.tokens || !ctx_.tokens->refreshDue(sandbox_.uid)) return;
    if (auto fresh = ctx_.store.get(key_); fresh.found()) pod_ = std::move(fresh.object);  // else: the last one read
    if (auto problem = refreshVolumes(ctx_, pod_, sandbox_))
        ctx_.logger.warn("Unable to refresh the pod's volumes", {{"pod", key_.ns + "/" + key_.name}, {"reason", problem->message}});
}

void PodWorker::waitEvents(const std::vector<Slot>& slots, std::chrono::milliseconds timeout) {
    std::vector<pollfd> fds{{wakeFd_, POLLIN, 0}};
    for (auto const& s : slots)
        if (s.process) fds.push_back({s.process->pidfd(), POLLIN, 0});
    ::poll(fds.data(), fds.size(), static_cast<int>(std::min<int64_t>(timeout.count(), 60000)));
    uint64_t drained = 0;
    (void)!::read(wakeFd_, &drained, sizeof drained);
}

// The statuses a power failure must not lose (KubeletContext::store): the first that carries the
// startTime, which lands before any container starts (run()), and those of a finished pod.
bool PodWorker::mustSurvive(const json::object& status) const {
    if (!startTimeDurable_ && status.contains("startTime")) return true;
    auto* phase = status.if_contains("phase");
    return phase && (*phase == "Succeeded" || *phase == "Failed");
}

void PodWorker::publish() {
    if (gone_) return;
    for (int attempt = 0; attempt < 5; ++attempt) {
        auto read = ctx_.store.get(key_);
        if (read.failed()) {  // not gone: read again in a moment (the final status must land)
            ctx_.logger.error("Reading the pod to write its status failed", {{"pod", key_.ns + "/" + key_.name}, {"error", read.message}});
            waitEvents({}, std::chrono::seconds(1));
            continue;
        }
        auto* cur = &read.object;
        if (read.notFound() || keyOf(*cur).name.empty() || (*cur)["metadata"].as_object()["uid"] != json::value(sandbox_.uid)) {
            gone_ = true;
            return;
        }
        json::object status = renderPodStatus(record_, times_, now());
        std::string text = json::serialize(status);
        if (text == lastPublished_) return;
        const bool durable = mustSurvive(status), started = status.contains("startTime");
        (*cur)["status"] = std::move(status);
        auto r = (durable ? ctx_.store : ctx_.progress).updateStatus(*cur);
        if (r.ok()) {
            lastPublished_ = std::move(text);
            startTimeDurable_ = startTimeDurable_ || (durable && started);
            return;
        }
        if (r.status != StoreStatus::Conflict) {
            ctx_.logger.error("Unable to write the pod status", {{"pod", key_.ns + "/" + key_.name}, {"error", r.message}});
            return;
        }
    }
}

}  // namespace trainer::core::executor
