// The local kubelet: runs every Pod in the store on this machine (embedded mode). It watches the
// store's change feed for Pods; a new Pod gets a PodWorker (pod_worker.hpp); a deleted Pod's
// containers are stopped with its terminationGracePeriodSeconds (default 30 s); a Pod with a
// deletionTimestamp is stopped and its final status written.
//
// A restart is a node reboot: on start, Pods this node had started (status.startTime set) that
// are not Succeeded or Failed are marked Failed (reason Terminated, condition DisruptionTarget),
// because their processes died with the previous operator process; their Jobs replace them as
// for any failed Pod. Nothing of the previous process's sandboxes survives (pod_network.hpp).
#pragma once

#include "core/executor/kubelet_context.hpp"
#include "core/executor/pod_worker.hpp"
#include "core/executor/token_manager.hpp"
#include "core/store/poll_waiter.hpp"

#include <atomic>
#include <condition_variable>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <thread>

namespace trainer::core::executor {

struct KubeletOptions {
    std::filesystem::path stateDir;
    std::string nodeName = "trainer-local";
    std::chrono::milliseconds pollInterval{20};
    // The longest a stop() waits for a Pod's grace period before SIGKILL.
    std::chrono::milliseconds maxStopGrace{10000};
    // The binary run as each container's init; default: chooseContainerInit(this binary)
    // (container_init_binary.hpp), the installed trainer-container-init when it is trusted.
    std::string executable;
    // Mints the tokens of projected serviceAccountToken volume sources (token_manager.hpp);
    // without one, a pod with such a source waits with a FailedMount problem.
    std::shared_ptr<const auth::ServiceAccountTokenIssuer> tokenIssuer;
    // Extra names every pod's /etc/hosts maps to the node's address on the pod network (the
    // bridge, PodNetwork::hostIp), where a server of the operator bound on all interfaces is
    // reachable from the pods (e.g. "<service>.<namespace>.svc"). Each must be a DNS subdomain.
    std::vector<std::string> nodeHostNames;
};

class Kubelet {
public:
    Kubelet(Store& store, const controller::Clock& clock, log::Logger logger, KubeletOptions options);
    // `progress` takes the writes a power failure may lose (KubeletContext::progress); the
    // other constructor writes everything to `store`.
    Kubelet(Store& store, Store& progress, const controller::Clock& clock, log::Logger logger, KubeletOptions options);
    ~Kubelet();
    Kubelet(const Kubelet&) = delete;
    Kubelet& operator=(const Kubelet&) = delete;

    // Claims the pod network, recovers Pods of a previous run, starts watching. "" or the error.
    std::string start();
    // Stops every Pod's containers (grace capped by maxStopGrace) and waits for them.
    void stop();
    size_t activePods() const;

private:
    // A store read that fails is never "no pods": each step below returns false (logged) and
    // the watcher retries it on its next poll; no pod is started or stopped on a failed read.
    void watchLoop();
    void pollOnce();
    // Starts the pod's worker when it should run here; false when reading its current state failed.
    bool sync(const json::object& pod);
    void forget(const std::string& uid, std::chrono::milliseconds grace);
    // The feed position, then every Pod synced and workers of Pods now gone stopped.
    bool resync();
    bool relist();
    bool recover();
    void reap();

    Store& store_;
    Store& progress_;
    const controller::Clock& clock_;
    log::Logger logger_;
    KubeletOptions options_;
    std::unique_ptr<PodNetwork> network_;
    ClusterDns dns_;
    std::unique_ptr<ResourceLimits> limits_;
    std::unique_ptr<TokenManager> tokens_;
    std::unique_ptr<KubeletContext> ctx_;
    mutable std::mutex mu_;
    std::map<std::string, std::unique_ptr<PodWorker>> workers_;  // by Pod uid
    std::map<std::string, ObjectKey> keys_;                       // uid -> key
    std::vector<std::unique_ptr<PodWorker>> stopping_;
    std::set<std::string> started_;  // uids this process ran (until the Pod is deleted)
    int64_t seen_ = 0;
    bool recoverPending_ = false;  // the previous run's Pods are not marked yet (a failed read)
    bool resync_ = false;          // a re-list is owed and has not succeeded yet
    std::atomic<bool> running_{false};
    PollWaiter waiter_;  // between the watcher's polls
    std::thread watcher_;
};

// A Pod's terminationGracePeriodSeconds (default 30 s).
std::chrono::milliseconds gracePeriodOf(const json::object& pod);

}  // namespace trainer::core::executor
