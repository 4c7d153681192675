#include "core/executor/workload_manager.hpp"

#include "core/executor/job_controller.hpp"
#include "core/executor/jobset_controller.hpp"
#include "core/executor/workload_json.hpp"
#include "core/executor/workload_names.hpp"

namespace trainer::core::executor {

namespace {

using namespace workload;

bool isJobSet(const ObjectKey& k) {
    return k.kind == kJobSetKind && groupOf(k.apiVersion) == groupOf(kJobSetApiVersion);
}
bool isJob(const ObjectKey& k) { return k.kind == kJobKind && groupOf(k.apiVersion) == "batch"; }
bool isPod(const ObjectKey& k) { return k.kind == kPodKind && k.apiVersion == kPodApiVersion; }

}  // namespace

WorkloadManager::WorkloadManager(Store& store, const controller::Clock& clock, server::Registry* metrics,
                                 log::Logger logger, WorkloadManagerOptions options)
    : store_(store), logger_(std::move(logger)), options_(options) {
    jobSets_ = std::make_unique<controller::Controller>(
        lowerJobSetKind(), std::string(kJobSetKind),
        [&store, &clock](const ObjectKey& key, const log::Logger& log) { return reconcileJobSet(store, key, clock, log); },
        clock, metrics, logger_, options.workers);
    jobs_ = std::make_unique<controller::Controller>(
        "job", std::string(kJobKind),
        [&store, &clock](const ObjectKey& key, const log::Logger& log) { return reconcileJob(store, key, clock, log); },
        clock, metrics, logger_, options.workers);
}

WorkloadManager::~WorkloadManager() { stop(); }

void WorkloadManager::relist() {
    for (auto const& js : store_.list(std::string(kJobSetApiVersion), std::string(kJobSetKind)))
        jobSets_->queue().add(keyOf(js));
    for (auto const& job : store_.list(std::string(kJobApiVersion), std::string(kJobKind))) jobs_->queue().add(keyOf(job));
}

void WorkloadManager::enqueue(const Change& change) {
    const auto& k = change.key;
    if (isJobSet(k)) {
        jobSets_->queue().add(k);
        return;
    }
    if (!isJob(k) && !isPod(k)) return;
    if (isJob(k)) jobs_->queue().add(k);
    auto* ref = controllerRefOf(change.object);
    if (!ref) return;
    ObjectKey owner{stringAt(ref, "apiVersion"), stringAt(ref, "kind"), k.ns, stringAt(ref, "name")};
    if (isJob(k) && isJobSet(owner)) jobSets_->queue().add(owner);
    if (isPod(k) && isJob(owner)) jobs_->queue().add(owner);
}

size_t WorkloadManager::pollOnce() {
    std::lock_guard lk(pollMu_);
    if (seen_ < store_.compactedRevision()) {
        logger_.info("Change feed compacted past our position; re-listing", {{"revision", seen_}});
        seen_ = store_.revision();
        relist();
        return 0;
    }
    auto changes = store_.changesSince(seen_, options_.batch);
    for (auto const& c : changes) {
        enqueue(c);
        seen_ = c.revision;
    }
    return changes.size();
}

void WorkloadManager::settle(int rounds) {
    for (int i = 0; i < rounds; ++i) {
        size_t n = pollOnce();
        n += jobSets_->drain() + jobs_->drain();
        if (n == 0) return;
    }
}

void WorkloadManager::start() {
    if (running_.exchange(true)) return;
    {
        std::lock_guard lk(pollMu_);
        seen_ = store_.revision();
    }
    {
        std::lock_guard lk(stopMu_);
        stopping_ = false;
    }
    relist();
    jobSets_->start();
    jobs_->start();
    watcher_ = std::thread([this] { watchLoop(); });
}

void WorkloadManager::watchLoop() {
    std::unique_lock lk(stopMu_);
    while (!stopping_) {
        lk.unlock();
        try {
            while (pollOnce() == options_.batch) {
            }
        } catch (const std::exception& e) {
            logger_.error("Watch poll failed", {{"error", e.what()}});
        }
        lk.lock();
        stopCv_.wait_for(lk, options_.pollInterval, [this] { return stopping_; });
    }
}

void WorkloadManager::stop() {
    {
        std::lock_guard lk(stopMu_);
        stopping_ = true;
    }
    stopCv_.notify_all();
    if (watcher_.joinable()) watcher_.join();
    jobSets_->stop();
    jobs_->stop();
    running_ = false;
}

}  // namespace trainer::core::executor
