#include "core/executor/local_executor.hpp"

namespace trainer::core::executor {

LocalExecutor::LocalExecutor(Store& store, Store& rederivable, const controller::Clock& clock,
                             server::Registry* metrics, LocalExecutorOptions options) {
    options.kubelet.stateDir = options.stateDir;
    kubelet_ = std::make_unique<Kubelet>(store, rederivable, clock, log::Logger("kubelet"), options.kubelet);
    workloads_ = std::make_unique<WorkloadManager>(rederivable, clock, metrics, log::Logger(""), options.workloads);
}

LocalExecutor::~LocalExecutor() { stop(); }

std::string LocalExecutor::start() {
    if (auto err = kubelet_->start(); !err.empty()) return err;
    workloads_->start();
    started_ = true;
    return "";
}

void LocalExecutor::stop() {
    if (!started_) return;
    started_ = false;
    workloads_->stop();
    kubelet_->stop();
}

}  // namespace trainer::core::executor
