// One controller: a work queue and N workers (Boost.Asio thread pool) calling a reconcile
// function, with controller-runtime's metrics and one structured log line per reconcile
// (controller, reconcileID and the object under its lower-camel kind, e.g. `trainJob`).
#pragma once

#include "core/controller/clock.hpp"
#include "core/controller/trainjob_reconciler.hpp"
#include "core/controller/work_queue.hpp"
#include "core/log/log.hpp"

#include <atomic>
#include <functional>
#include <memory>
#include <string>

namespace boost::asio {
class thread_pool;
}

namespace trainer::core::controller {

using ReconcileFn = std::function<ReconcileResult(const ObjectKey&, const log::Logger&)>;

class Controller {
public:
    // `name` is controller-runtime's (the lower-case kind: "trainjob"); `kind` names the log key.
    Controller(std::string name, std::string kind, ReconcileFn fn, const Clock& clock, server::Registry* metrics,
               log::Logger logger, int workers = 1);
    ~Controller();
    Controller(const Controller&) = delete;
    Controller& operator=(const Controller&) = delete;

    WorkQueue& queue() { return queue_; }
    const std::string& name() const { return name_; }
    int workers() const { return workers_; }

    // Starts the workers.
    void start();
    // Stops handing out work and waits for in-flight reconciles to finish.
    void stop();
    // Processes one ready item without waiting (tests drive the controller this way); false when none.
    bool processNextReady();
    // Reconciles every ready item, also those re-queued with no delay, until none is left; returns how many.
    size_t drain(size_t limit = 10000);
    // Reconciles done since start (any result).
    uint64_t reconciles() const { return reconciles_.load(); }

private:
    void process(const ObjectKey& key);
    void workerLoop();

    std::string name_;
    std::string logKey_;
    ReconcileFn fn_;
    const Clock& clock_;
    server::Registry* metrics_;
    log::Logger logger_;
    int workers_;
    WorkQueue queue_;
    std::unique_ptr<boost::asio::thread_pool> pool_;
    std::atomic<int> active_{0};
    std::atomic<uint64_t> reconciles_{0};
};

}  // namespace trainer::core::controller
