// What every pod worker of the local kubelet shares: the store, the clock, the node's network,
// names, limits, state directory and service-account tokens. Owned by the Kubelet (kubelet.hpp), which outlives its workers.
#pragma once

#include "core/controller/clock.hpp"
#include "core/executor/cluster_dns.hpp"
#include "core/executor/pod_network.hpp"
#include "core/executor/resource_limits.hpp"
#include "core/executor/token_manager.hpp"
#include "core/log/log.hpp"
#include "core/store/store.hpp"

#include <filesystem>
#include <string>

namespace trainer::core::executor {

struct KubeletContext {
    // What must survive a power failure: the first status of a pod that carries its startTime
    // (written before any of its containers starts, so that no pod runs twice) and every status
    // of a finished pod. Reads, the change feed and recovery use it too.
    Store& store;
    // The rest of a pod's progress (its binding, waiting reasons, containers started, ready or
    // restarted): a power failure may lose these writes (SqliteStore::rederivableWriter in `run`),
    // since it ends the pod's processes too and the next start marks the pod Failed from its
    // durable startTime (kubelet.hpp). The same store as `store` where nothing is cheaper.
    Store& progress;
    const controller::Clock& clock;
    log::Logger logger;
    PodNetwork& network;
    ClusterDns& dns;
    ResourceLimits& limits;
    std::filesystem::path stateDir;  // logs under pods/, sandboxes under run/
    std::string nodeName;
    std::string executable;  // the binary that runs container inits
    TokenManager* tokens;    // null without a token issuer (KubeletOptions::tokenIssuer)
};

}  // namespace trainer::core::executor
