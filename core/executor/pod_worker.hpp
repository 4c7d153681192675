// One pod on the local kubelet, on its own thread from admission to teardown: binds it to the
// node, makes its sandbox (pod_sandbox.hpp), runs its init containers one after the other and
// then its containers together, restarts them as spec.restartPolicy says (with the kubelet's
// crash-loop back-off, 10 s doubling to 5 min), runs readiness probes, rewrites its volumes when
// a projected service-account token requires a refresh (checked at least every 10 s), and writes
// the Pod's status (pod_status.hpp) as things happen. The thread that starts a container's init outlives
// it, so the init's parent-death signal fires only if the whole operator dies.
//
// stop() is the kubelet's kill: SIGTERM to every container, SIGKILL after the grace period.
#pragma once

#include "core/executor/container_launch.hpp"
#include "core/executor/kubelet_context.hpp"
#include "core/executor/pod_sandbox.hpp"
#include "core/executor/pod_status.hpp"
#include "core/executor/readiness_probe.hpp"

#include <atomic>
#include <chrono>
#include <map>
#include <thread>

namespace trainer::core::executor {

class PodWorker {
public:
    PodWorker(const KubeletContext& ctx, json::object pod);
    ~PodWorker();
    PodWorker(const PodWorker&) = delete;
    PodWorker& operator=(const PodWorker&) = delete;

    void start();
    // Stops every container (SIGTERM, SIGKILL after `grace`). With `publish` false the Pod object
    // is gone and nothing more is written.
    void stop(std::chrono::milliseconds grace, bool publish);
    // The thread has finished: containers reaped, sandbox removed.
    bool done() const { return done_.load(); }
    const std::string& uid() const { return sandbox_.uid; }

private:
    using SteadyTime = std::chrono::steady_clock::time_point;
    struct Slot {
        size_t index = 0;
        bool init = false;
        std::optional<ContainerProcess> process;
        std::string cgroup, resultFile;
        ProbeSpec probe;
        int successes = 0, failures = 0;
        SteadyTime nextProbe{}, retryAt{};
        bool retry = false;          // waiting: start again at retryAt
        bool restartPending = false; // crash-loop back-off until retryAt
        int backoffSeconds = 0;
        bool finished = false;
        bool termSent = false;
    };

    void run();
    bool bind();
    bool prepare();
    bool runInitContainers();
    void runContainers();
    void supervise(std::vector<Slot>& slots);
    void startSlot(Slot& s);
    void onExit(Slot& s, int exitCode);
    void onStartProblem(Slot& s, const StartProblem& p, bool retry);
    void scheduleRestart(Slot& s);
    void runProbe(Slot& s);
    void refreshTokens();
    void waitEvents(const std::vector<Slot>& slots, std::chrono::milliseconds timeout);
    void publish();
    bool mustSurvive(const json::object& status) const;
    bool stopping() const { return stop_.load(); }
    ContainerRecord& record(const Slot& s);
    const json::object& containerOf(const Slot& s) const;
    std::string now() const;

    const KubeletContext& ctx_;
    json::object pod_;
    ObjectKey key_;
    std::string restartPolicy_;
    PodRecord record_;
    std::map<std::string, std::pair<bool, std::string>> times_;
    std::string lastPublished_;
    bool startTimeDurable_ = false;  // a status with startTime went through ctx_.store
    PodSandbox sandbox_;
    std::thread thread_;
    int wakeFd_ = -1;
    std::atomic<bool> stop_{false}, publishOnStop_{true}, done_{false};
    std::atomic<int64_t> graceMs_{30000};
    bool gone_ = false;
};

}  // namespace trainer::core::executor
