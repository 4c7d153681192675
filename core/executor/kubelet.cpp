#include "core/executor/kubelet.hpp"

#include "core/executor/container_init_binary.hpp"
#include "core/executor/process_launcher.hpp"

#include <algorithm>
#include <filesystem>

namespace trainer::core::executor {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

namespace {

std::string str(const json::object& o, std::string_view a, std::string_view b) {
    auto* x = o.if_contains(a);
    auto* y = x && x->is_object() ? x->get_object().if_contains(b) : nullptr;
    return y && y->is_string() ? std::string(y->get_string()) : std::string();
}

bool isPod(const ObjectKey& k) { return k.apiVersion == "v1" && k.kind == "Pod"; }

// k8s.io/apimachinery/pkg/util/validation IsDNS1123Subdomain.
bool isDnsSubdomain(std::string_view s) {
    if (s.empty() || s.size() > 253) return false;
    auto alnum = [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); };
    size_t start = 0;
    for (size_t dot = 0; start <= s.size(); start = dot + 1) {
        dot = std::min(s.find('.', start), s.size());
        std::string_view label = s.substr(start, dot - start);
        if (label.empty() || !alnum(label.front()) || !alnum(label.back())) return false;
        for (char c : label)
            if (!alnum(c) && c != '-') return false;
    }
    return true;
}

bool terminal(const json::object& pod) {
    auto phase = str(pod, "status", "phase");
    return phase == "Succeeded" || phase == "Failed";
}

}  // namespace

std::chrono::milliseconds gracePeriodOf(const json::object& pod) {
    auto* spec = pod.if_contains("spec");
    auto* g = spec && spec->is_object() ? spec->get_object().if_contains("terminationGracePeriodSeconds") : nullptr;
    if (g && g->is_int64() && g->get_int64() >= 0) return std::chrono::seconds(g->get_int64());
    return 30s;
}

Kubelet::Kubelet(Store& store, const controller::Clock& clock, log::Logger logger, KubeletOptions options)
    : Kubelet(store, store, clock, std::move(logger), std::move(options)) {}

Kubelet::Kubelet(Store& store, Store& progress, const controller::Clock& clock, log::Logger logger,
                 KubeletOptions options)
    : store_(store), progress_(progress), clock_(clock), logger_(std::move(logger)), options_(std::move(options)),
      waiter_(store) {
    if (!options_.executable.empty()) return;
    auto init = chooseContainerInit(selfExecutable());
    options_.executable = init.path;
    if (init.helperPresent && !init.notUsed.empty())  // installed but refused: say so
        logger_.warn("not using the container init helper; containers start through the operator's binary",
                     {{"reason", init.notUsed}, {"binary", init.path}});
    else if (!init.notUsed.empty())
        logger_.info("no container init helper; containers start through the operator's binary",
                     {{"reason", init.notUsed}, {"binary", init.path}});
}

Kubelet::~Kubelet() { stop(); }

std::string Kubelet::start() {
    std::string error;
    for (auto const& name : options_.nodeHostNames)
        if (!isDnsSubdomain(name))
            return "the local executor's node host name \"" + name + "\" is not a DNS subdomain (RFC 1123)";
    network_ = PodNetwork::open(error);
    if (!network_) return "the local executor cannot make its pod network (it needs root: CAP_NET_ADMIN and CAP_SYS_ADMIN): " + error;
    dns_.setNodeNames(network_->hostIp(), options_.nodeHostNames);
    limits_ = std::make_unique<ResourceLimits>(logger_);
    if (options_.tokenIssuer) tokens_ = std::make_unique<TokenManager>(options_.tokenIssuer, clock_);
    ctx_ = std::make_unique<KubeletContext>(KubeletContext{store_, progress_, clock_, logger_, *network_, dns_,
                                                           *limits_, options_.stateDir, options_.nodeName,
                                                           options_.executable, tokens_.get()});
    std::error_code ec;
    fs::remove_all(options_.stateDir / "run", ec);  // sandboxes of a previous process
    fs::create_directories(options_.stateDir / "run", ec);
    if (ec) return "create " + (options_.stateDir / "run").string() + ": " + ec.message();
    recoverPending_ = !recover();
    resync_ = true;
    if (!recoverPending_) resync();
    running_ = true;
    waiter_.restart();
    watcher_ = std::thread([this] { watchLoop(); });
    logger_.info("Started the local executor", {{"node", options_.nodeName}, {"podNetwork", network_->hostIp() + "/16"},
                                                  {"stateDir", options_.stateDir.string()}, {"containerInit", options_.executable}});
    if (!limits_->unavailable().empty())
        logger_.info("Container resource limits will not be enforced", {{"reason", limits_->unavailable()}});
    return "";
}

void Kubelet::stop() {
    if (running_.exchange(false)) {
        waiter_.stop();
        watcher_.join();
    }
    std::map<std::string, std::unique_ptr<PodWorker>> workers;
    {
        std::lock_guard lock(mu_);
        workers.swap(workers_);
        for (auto& w : stopping_) workers.emplace("stopping-" + std::to_string(workers.size()), std::move(w));
        stopping_.clear();
    }
    for (auto& [uid, w] : workers) w->stop(options_.maxStopGrace, false);
    workers.clear();  // joins every worker: containers reaped, sandboxes removed
    network_.reset();
}

size_t Kubelet::activePods() const {
    std::lock_guard lock(mu_);
    return workers_.size() + stopping_.size();
}

void Kubelet::watchLoop() {
    // Between polls: the interval, or less when this process writes to the store (a pod created).
    do {
        pollOnce();
        reap();
    } while (waiter_.wait(options_.pollInterval));
}

void Kubelet::pollOnce() {
    if (recoverPending_) {
        recoverPending_ = !recover();
        return;
    }
    if (resync_) {
        resync();
        return;
    }
    auto compacted = store_.compactedRevision();
    if (!compacted.ok()) {
        logger_.error("Reading the change feed failed; retrying", {{"error", *compacted.error}});
        return;
    }
    if (seen_ < compacted.value) {
        resync();
        return;
    }
    auto changes = store_.changesSince(seen_, 1000);
    if (!changes.ok()) {
        logger_.error("Reading the change feed failed; retrying", {{"error", *changes.error}});
        return;
    }
    for (auto const& c : changes.value) {
        if (isPod(c.key) && c.type == ChangeType::Deleted) {
            forget(str(c.object, "metadata", "uid"), gracePeriodOf(c.object));
            std::lock_guard lock(mu_);
            started_.erase(str(c.object, "metadata", "uid"));
        } else if (isPod(c.key) && !sync(c.object)) {
            return;  // this change again on the next poll
        }
        seen_ = c.revision;
    }
}

bool Kubelet::sync(const json::object& pod) {
    const std::string uid = str(pod, "metadata", "uid"), node = str(pod, "spec", "nodeName");
    if (uid.empty() || (!node.empty() && node != options_.nodeName)) return true;
    const bool deleting = !str(pod, "metadata", "deletionTimestamp").empty();
    std::lock_guard lock(mu_);
    auto it = workers_.find(uid);
    if (it != workers_.end()) {
        if (deleting) it->second->stop(gracePeriodOf(pod), true);
        return true;
    }
    if (deleting || terminal(pod) || !str(pod, "status", "startTime").empty() || started_.count(uid)) return true;
    // A lagging change feed may still deliver this pod's older versions after its worker ended:
    // a pod runs once, so the current object decides.
    auto read = store_.get(keyOf(pod));
    if (read.failed()) {
        logger_.error("Reading a pod to start failed; retrying", {{"pod", keyOf(pod).display()}, {"error", read.message}});
        return false;
    }
    const json::object& current = read.object;
    if (read.notFound() || str(current, "metadata", "uid") != uid || terminal(current) ||
        !str(current, "status", "startTime").empty() || !str(current, "metadata", "deletionTimestamp").empty())
        return true;
    started_.insert(uid);
    auto w = std::make_unique<PodWorker>(*ctx_, current);
    w->start();
    keys_[uid] = keyOf(pod);
    workers_.emplace(uid, std::move(w));
    return true;
}

void Kubelet::forget(const std::string& uid, std::chrono::milliseconds grace) {
    std::lock_guard lock(mu_);
    auto it = workers_.find(uid);
    if (it == workers_.end()) return;
    it->second->stop(grace, false);
    stopping_.push_back(std::move(it->second));
    workers_.erase(it);
    keys_.erase(uid);
}

bool Kubelet::resync() {
    resync_ = true;
    auto revision = store_.revision();
    if (!revision.ok()) {
        logger_.error("Reading the store's revision failed; the re-list is retried", {{"error", *revision.error}});
        return false;
    }
    if (!relist()) return false;
    seen_ = revision.value;
    resync_ = false;
    return true;
}

// After compaction or at start: every Pod is synced; workers whose Pod is gone are stopped.
bool Kubelet::relist() {
    auto pods = store_.list("v1", "Pod");
    if (!pods.ok()) {  // an empty answer here would stop every running pod
        logger_.error("Listing the pods failed; the re-list is retried", {{"error", *pods.error}});
        return false;
    }
    std::set<std::string> present;
    bool synced = true;
    for (auto const& pod : pods.value) {
        present.insert(str(pod, "metadata", "uid"));
        synced = sync(pod) && synced;
    }
    std::vector<std::string> gone;
    {
        std::lock_guard lock(mu_);
        for (auto const& [uid, w] : workers_)
            if (!present.count(uid)) gone.push_back(uid);
    }
    for (auto const& uid : gone) forget(uid, 30s);
    return synced;
}

void Kubelet::reap() {
    std::vector<std::unique_ptr<PodWorker>> finished;
    {
        std::lock_guard lock(mu_);
        for (auto it = stopping_.begin(); it != stopping_.end();) {
            if ((*it)->done()) {
                finished.push_back(std::move(*it));
                it = stopping_.erase(it);
            } else {
                ++it;
            }
        }
        for (auto it = workers_.begin(); it != workers_.end();) {
            if (it->second->done()) {
                finished.push_back(std::move(it->second));
                keys_.erase(it->first);
                it = workers_.erase(it);
            } else {
                ++it;
            }
        }
    }
    finished.clear();  // joins outside the lock
}

}  // namespace trainer::core::executor
