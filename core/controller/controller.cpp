#include "core/controller/controller.hpp"

#include "core/server/metrics.hpp"
#include "core/store/store.hpp"

#include <boost/asio/post.hpp>
#include <boost/asio/thread_pool.hpp>

#include <cctype>

namespace trainer::core::controller {

Controller::Controller(std::string name, std::string kind, ReconcileFn fn, const Clock& clock, server::Registry* metrics,
                       log::Logger logger, int workers)
    : name_(std::move(name)), fn_(std::move(fn)), clock_(clock), metrics_(metrics),
      logger_(logger.withValues({{"controller", name_}})), workers_(std::max(1, workers)),
      queue_(name_, clock, metrics) {
    logKey_ = kind;
    if (!logKey_.empty()) logKey_[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(logKey_[0])));
    if (metrics_) {
        metrics_->set("controller_runtime_active_workers", {name_}, 0);
        metrics_->set("controller_runtime_max_concurrent_reconciles", {name_}, workers_);
        metrics_->add("controller_runtime_reconcile_errors_total", {name_}, 0);
        for (auto const* r : {"success", "error", "requeue", "requeue_after"})
            metrics_->add("controller_runtime_reconcile_total", {name_, r}, 0);
    }
}

Controller::~Controller() { stop(); }

void Controller::start() {
    if (pool_) return;
    queue_.reopen();  // after a stop()
    pool_ = std::make_unique<boost::asio::thread_pool>(workers_);
    for (int i = 0; i < workers_; ++i) boost::asio::post(*pool_, [this] { workerLoop(); });
    logger_.info("Starting workers", {{"worker count", workers_}});
}

void Controller::stop() {
    queue_.shutDown();
    if (pool_) {
        pool_->join();
        pool_.reset();
        logger_.info("All workers finished");
    }
}

void Controller::workerLoop() {
    while (auto key = queue_.get()) process(*key);
}

bool Controller::processNextReady() {
    auto key = queue_.tryGet();
    if (!key) return false;
    process(*key);
    return true;
}

size_t Controller::drain(size_t limit) {
    size_t n = 0;
    while (n < limit && processNextReady()) ++n;
    return n;
}

void Controller::process(const ObjectKey& key) {
    if (metrics_) metrics_->set("controller_runtime_active_workers", {name_}, ++active_);
    auto log = logger_.withValues({{"reconcileID", newUuid()},
                                   {logKey_, json::object{{"name", key.name}, {"namespace", key.ns}}},
                                   {"namespace", key.ns},
                                   {"name", key.name}});
    log.debug("Reconciling");
    auto started = std::chrono::steady_clock::now();
    ReconcileResult r;
    try {
        r = fn_(key, log);
    } catch (const std::exception& e) {
        r.error = std::string("panic: ") + e.what();
        if (metrics_) metrics_->add("controller_runtime_reconcile_panics_total", {name_});
    }
    double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    std::string outcome;
    if (!r.error.empty()) {
        queue_.addRateLimited(key);
        outcome = "error";
        if (metrics_) metrics_->add("controller_runtime_reconcile_errors_total", {name_});
        log.error("Reconciler error", {{"error", r.error}});
    } else if (r.requeue) {
        queue_.addRateLimited(key);
        outcome = "requeue";
    } else if (r.requeueAfter) {
        queue_.forget(key);
        queue_.addAfter(key, *r.requeueAfter);
        outcome = "requeue_after";
    } else {
        queue_.forget(key);
        outcome = "success";
    }
    if (metrics_) {
        metrics_->add("controller_runtime_reconcile_total", {name_, outcome});
        metrics_->observe("controller_runtime_reconcile_time_seconds", {name_}, secs);
        metrics_->set("controller_runtime_active_workers", {name_}, --active_);
    } else {
        --active_;
    }
    ++reconciles_;
    log.info("Reconciled", {{"result", outcome}, {"seconds", secs}});
    queue_.done(key);
}

}  // namespace trainer::core::controller
