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
    : store_(store), logger_(std::move(logger)), options_(options), waiter_(store) {
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

bool WorkloadManager::relist() {
    bool complete = true;
    auto queueAll = [&](const ListResult& listed, controller::Controller& into, std::string_view kind) {
        if (!listed.ok()) {
            logger_.error("Listing failed; the re-list is retried", {{"kind", kind}, {"error", *listed.error}});
            complete = false;
            return;
        }
        for (auto const& o : listed.value) into.queue().add(keyOf(o));
    };
    queueAll(store_.list(std::string(kJobSetApiVersion), std::string(kJobSetKind)), *jobSets_, kJobSetKind);
    queueAll(store_.list(std::string(kJobApiVersion), std::string(kJobKind)), *jobs_, kJobKind);
    return complete;
}

void WorkloadManager::resync() {
    resync_ = true;
    auto revision = store_.revision();
    if (!revision.ok()) {
        logger_.error("Reading the store's revision failed; the re-list is retried", {{"error", *revision.error}});
        return;
    }
    if (!relist()) return;
    seen_ = revision.value;
    resync_ = false;
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
    if (resync_) {
        resync();
        return 0;
    }
    auto compacted = store_.compactedRevision();
    if (!compacted.ok()) {
        logger_.error("Reading the change feed failed; retrying", {{"error", *compacted.error}});
        return 0;
    }
    if (seen_ < compacted.value) {
        logger_.info("Change feed compacted past our position; re-listing", {{"revision", seen_}});
        resync();
        return 0;
    }
    auto changes = store_.changesSince(seen_, options_.batch);
    if (!changes.ok()) {
        logger_.error("Reading the change feed failed; retrying", {{"error", *changes.error}});
        return 0;
    }
    for (auto const& c : changes.value) {
        enqueue(c);
        seen_ = c.revision;
    }
    return changes.value.size();
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
    waiter_.restart();
    {
        std::lock_guard lk(pollMu_);
        resync();  // on a failed read, the watcher's first poll tries again
    }
    jobSets_->start();
    jobs_->start();
    watcher_ = std::thread([this] { watchLoop(); });
}

void WorkloadManager::watchLoop() {
    while (!waiter_.stopped()) {
        try {
            while (pollOnce() == options_.batch) {
            }
        } catch (const std::exception& e) {
            logger_.error("Watch poll failed", {{"error", e.what()}});
        }
        // Until the next interval, or sooner when this process writes to the store.
        if (!waiter_.wait(options_.pollInterval)) break;
    }
}

void WorkloadManager::stop() {
    waiter_.stop();
    if (watcher_.joinable()) watcher_.join();
    jobSets_->stop();
    jobs_->stop();
    running_ = false;
}

}  // namespace trainer::core::executor
