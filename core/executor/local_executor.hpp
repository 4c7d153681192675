// The local executor: what runs a TrainJob's objects on this machine in embedded mode. It is the
// JobSet and Job controllers (workload_manager.hpp) and the kubelet (kubelet.hpp) over the same
// store the TrainJob controller writes to; it never names a plugin, the objects are data.
#pragma once

#include "core/controller/clock.hpp"
#include "core/executor/kubelet.hpp"
#include "core/executor/workload_manager.hpp"
#include "core/log/log.hpp"
#include "core/store/store.hpp"

#include <memory>
#include <string>

namespace trainer::core::server {
class Registry;
}

namespace trainer::core::executor {

struct LocalExecutorOptions {
    std::filesystem::path stateDir;  // executorStateDir(store path)
    KubeletOptions kubelet;          // stateDir is filled in from above
    WorkloadManagerOptions workloads;
};

class LocalExecutor {
public:
    // `rederivable` takes the writes a power failure may lose: the JobSet and Job controllers'
    // (the next reconcile makes them again from the stored objects, as the TrainJob controller's)
    // and the kubelet's progress (KubeletContext::progress). Everything else goes to `store`.
    LocalExecutor(Store& store, Store& rederivable, const controller::Clock& clock, server::Registry* metrics,
                  LocalExecutorOptions options);
    ~LocalExecutor();
    // The kubelet first (it may refuse: no privileges), then the controllers. "" or the error.
    std::string start();
    // The controllers first, then every pod's processes.
    void stop();

private:
    std::unique_ptr<Kubelet> kubelet_;
    std::unique_ptr<WorkloadManager> workloads_;
    bool started_ = false;
};

}  // namespace trainer::core::executor
