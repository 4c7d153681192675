#include "core/controller/manager.hpp"

#include "core/api/kinds.hpp"
#include "core/api/read_error_latch.hpp"
#include "core/runtime/info_builder.hpp"

#include <set>

namespace trainer::core::controller {

namespace {

std::string stringAt(const json::object* o, std::string_view k) {
    auto* v = o ? o->if_contains(k) : nullptr;
    return v && v->is_string() ? std::string(v->get_string()) : std::string();
}

const json::object* objectAt(const json::object* o, std::string_view k) {
    auto* v = o ? o->if_contains(k) : nullptr;
    return v && v->is_object() ? &v->get_object() : nullptr;
}

bool suspended(const json::object& trainJob) {
    auto* s = objectAt(&trainJob, "spec");
    auto* v = s ? s->if_contains("suspend") : nullptr;
    return v && v->is_bool() && v->get_bool();
}

// Whether `field: value` appears anywhere inside `v` (pod templates nest at several depths).
bool carries(const json::value& v, std::string_view field, std::string_view value) {
    if (v.is_object()) {
        for (auto const& [k, child] : v.get_object()) {
            if (k == field && child.is_string() && child.get_string() == value) return true;
            if (carries(child, field, value)) return true;
        }
    } else if (v.is_array()) {
        for (auto const& child : v.get_array())
            if (carries(child, field, value)) return true;
    }
    return false;
}

constexpr std::string_view kTrainJob = "TrainJob";
constexpr std::string_view kTrainingRuntime = "TrainingRuntime";
constexpr std::string_view kClusterTrainingRuntime = "ClusterTrainingRuntime";

}  // namespace

ObjectKey trainJobKey(std::string ns, std::string name) {
    return ObjectKey{std::string(kTrainerApiVersion), std::string(kTrainJob), std::move(ns), std::move(name)};
}

ChangeMapper::ChangeMapper(const PluginRegistry& registry) {
    for (auto const& p : registry.plugins())
        for (auto const& w : p->watches) watches_.push_back(w);
}

ReadValue<std::vector<ObjectKey>> ChangeMapper::trainJobsFor(const Change& change, const ClusterReader& state) const {
    ReadErrorLatch cluster(state);  // any failed read below fails the whole mapping
    std::set<ObjectKey> out;
    const auto& k = change.key;
    const json::object& obj = change.object;
    const bool trainerGroup = k.apiVersion == kTrainerApiVersion;
    if (trainerGroup && k.kind == kTrainJob) out.insert(trainJobKey(k.ns, k.name));

    // The controlling TrainJob.
    if (auto* refs = objectAt(&obj, "metadata") ? objectAt(&obj, "metadata")->if_contains("ownerReferences") : nullptr;
        refs && refs->is_array())
        for (auto const& r : refs->get_array()) {
            if (!r.is_object()) continue;
            auto const& ro = r.get_object();
            auto* c = ro.if_contains("controller");
            if (c && c->is_bool() && c->get_bool() && stringAt(&ro, "kind") == kTrainJob &&
                groupOf(stringAt(&ro, "apiVersion")) == kTrainerGroup)
                out.insert(trainJobKey(k.ns, stringAt(&ro, "name")));
        }

    auto trainJobsIn = [&](const std::optional<std::string>& ns) {
        return cluster.list(std::string(kTrainerApiVersion), std::string(kTrainJob), ns).value;
    };
    // A runtime appearing or changing: the TrainJobs that name it (those waiting for it).
    if (trainerGroup && (k.kind == kTrainingRuntime || k.kind == kClusterTrainingRuntime)) {
        auto candidates = k.kind == kTrainingRuntime ? trainJobsIn(k.ns) : trainJobsIn(std::nullopt);
        for (auto const& tj : candidates) {
            auto* ref = objectAt(objectAt(&tj, "spec"), "runtimeRef");
            std::string kind = stringAt(ref, "kind");
            if (kind.empty()) kind = kClusterTrainingRuntime;
            if (kind == k.kind && stringAt(ref, "name") == k.name) {
                auto tk = keyOf(tj);
                out.insert(trainJobKey(tk.ns, tk.name));
            }
        }
    }

    for (auto const& w : watches_) {
        if (w.apiVersion != k.apiVersion || w.kind != k.kind) continue;
        if (w.mode == TRN_WATCH_SUSPENDED_IN_NAMESPACE) {
            for (auto const& tj : trainJobsIn(k.ns))
                if (suspended(tj)) out.insert(trainJobKey(keyOf(tj).ns, keyOf(tj).name));
        } else if (w.mode == TRN_WATCH_SUSPENDED_MATCHING && !w.matchField.empty()) {
            for (auto const& tj : trainJobsIn(std::nullopt)) {
                if (!suspended(tj)) continue;
                Diagnostics ignored;
                auto runtime = resolveRuntime(tj, cluster, ignored, /*useSnapshot=*/true);
                bool match = (runtime && carries(*runtime, w.matchField, k.name)) ||
                             carries(tj.at("spec"), w.matchField, k.name);
                if (match) out.insert(trainJobKey(keyOf(tj).ns, keyOf(tj).name));
            }
        }
        // TRN_WATCH_OWNED is the controller ownerReference handled above.
    }
    if (auto error = cluster.firstError()) return ReadValue<std::vector<ObjectKey>>::failure(*error);
    return ReadValue<std::vector<ObjectKey>>::of({out.begin(), out.end()});
}

Manager::Manager(Store& store, const PluginRegistry& registry, const Framework& framework, const Clock& clock,
                 server::Registry* metrics, log::Logger logger, ManagerOptions options)
    : store_(store), clock_(clock), logger_(std::move(logger)), options_(options), mapper_(registry),
      trainJobReconciler_(store, registry, framework, clock), runtimeReconciler_(store), waiter_(store) {
    trainJobReconciler_.useOwnWrites(&ownWrites_);
    trainJobs_ = std::make_unique<Controller>(
        "trainjob", std::string(kTrainJob),
        [this](const ObjectKey& key, const log::Logger& log) { return trainJobReconciler_.reconcile(key, log); }, clock,
        metrics, logger_, options.trainJobWorkers);
    auto runtimeFn = [this](const ObjectKey& key, const log::Logger& log) { return runtimeReconciler_.reconcile(key, log); };
    trainingRuntimes_ = std::make_unique<Controller>("trainingruntime", std::string(kTrainingRuntime), runtimeFn, clock,
                                                     metrics, logger_, options.runtimeWorkers);
    clusterTrainingRuntimes_ = std::make_unique<Controller>("clustertrainingruntime", std::string(kClusterTrainingRuntime),
                                                            runtimeFn, clock, metrics, logger_, options.runtimeWorkers);
}

Manager::~Manager() { stop(); }

bool Manager::relist() {
    const std::pair<std::string_view, Controller*> kinds[] = {{kTrainJob, trainJobs_.get()},
                                                              {kTrainingRuntime, trainingRuntimes_.get()},
                                                              {kClusterTrainingRuntime, clusterTrainingRuntimes_.get()}};
    bool complete = true;
    for (auto const& [kind, controller] : kinds) {
        auto listed = store_.listKeys(std::string(kTrainerApiVersion), std::string(kind));
        if (!listed.ok()) {
            logger_.error("Listing failed; the re-list is retried", {{"kind", kind}, {"error", *listed.error}});
            complete = false;
            continue;
        }
        for (auto const& k : listed.value) controller->queue().add(k);
    }
    return complete;
}

bool Manager::enqueue(const Change& change) {
    auto keys = mapper_.trainJobsFor(change, store_);
    if (!keys.ok()) {
        logger_.error("Mapping a change to its TrainJobs failed on a read; retrying it",
                      {{"revision", change.revision}, {"object", change.key.display()}, {"error", *keys.error}});
        return false;
    }
    // The event of a child its own reconcile wrote and read back does not queue that TrainJob.
    const auto writer = ownWrites_.take(change);
    for (auto const& k : keys.value)
        if (k != writer) trainJobs_->queue().add(k);
    if (change.key.apiVersion == kTrainerApiVersion && change.type != ChangeType::Deleted) {
        if (change.key.kind == kTrainingRuntime) trainingRuntimes_->queue().add(change.key);
        if (change.key.kind == kClusterTrainingRuntime) clusterTrainingRuntimes_->queue().add(change.key);
    }
    return true;
}

void Manager::resync() {
    resync_ = true;
    ownWrites_.clear();  // the re-list queues every TrainJob
    auto revision = store_.revision();
    if (!revision.ok()) {
        logger_.error("Reading the store's revision failed; the re-list is retried", {{"error", *revision.error}});
        return;
    }
    if (!relist()) return;
    seen_ = revision.value;
    resync_ = false;
}

size_t Manager::pollOnce() {
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
        // Fell behind the feed: everything may have changed.
        logger_.info("Change feed compacted past our position; re-listing", {{"revision", seen_}});
        resync();
        return 0;
    }
    auto changes = store_.changesSince(seen_, options_.batch);
    if (!changes.ok()) {
        logger_.error("Reading the change feed failed; retrying", {{"error", *changes.error}});
        return 0;
    }
    size_t handled = 0;
    for (auto const& c : changes.value) {
        if (!enqueue(c)) return handled;  // this change again on the next poll
        seen_ = c.revision;
        ++handled;
    }
    return handled;
}

void Manager::settle(int rounds) {
    for (int i = 0; i < rounds; ++i) {
        size_t n = pollOnce();
        n += trainJobs_->drain() + trainingRuntimes_->drain() + clusterTrainingRuntimes_->drain();
        if (n == 0) return;
    }
}

void Manager::start() {
    if (running_.exchange(true)) return;
    waiter_.restart();  // after a stop(), its waits would end at once and the watch loop with them
    {
        std::lock_guard lk(pollMu_);
        resync();  // on a failed read, the watcher's first poll tries again
    }
    trainJobs_->start();
    trainingRuntimes_->start();
    clusterTrainingRuntimes_->start();
    watcher_ = std::thread([this] { watchLoop(); });
}

void Manager::watchLoop() {
    while (!waiter_.stopped()) {
        try {
            // Drain a backlog quickly; otherwise wait one interval.
            while (pollOnce() == options_.batch) {
            }
        } catch (const std::exception& e) {
            logger_.error("Watch poll failed", {{"error", e.what()}});
        }
        // Until the next interval, or sooner when this process writes to the store.
        if (!waiter_.wait(options_.pollInterval)) break;
    }
}

void Manager::stop() {
    waiter_.stop();
    if (watcher_.joinable()) watcher_.join();
    trainJobs_->stop();
    trainingRuntimes_->stop();
    clusterTrainingRuntimes_->stop();
    running_ = false;
}

}  // namespace trainer::core::controller
