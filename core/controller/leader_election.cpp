#include "core/controller/leader_election.hpp"

#include <unistd.h>

#include <array>
#include <cstdio>

namespace trainer::core::controller {

namespace {

using namespace std::chrono;

// metav1.MicroTime: RFC 3339 with exactly six fractional digits.
std::string formatMicroTime(Clock::time_point t) {
    auto secs = floor<seconds>(t);
    auto micros = duration_cast<microseconds>(t - secs).count();
    std::string text = formatRfc3339(secs);  // "...:SSZ"
    std::array<char, 24> frac{};  // micros is in [0, 999999]: ".dddddd"
    std::snprintf(frac.data(), frac.size(), ".%06lld", static_cast<long long>(micros));
    text.insert(text.size() - 1, frac.data());
    return text;
}

std::optional<Clock::time_point> timeAt(const json::object& spec, std::string_view key) {
    auto* v = spec.if_contains(key);
    if (!v || !v->is_string()) return std::nullopt;
    auto t = parseRfc3339(v->get_string());
    if (!t) return std::nullopt;
    return time_point_cast<Clock::duration>(*t);
}

int64_t intAt(const json::object& spec, std::string_view key) {
    auto* v = spec.if_contains(key);
    if (v && v->is_int64()) return v->get_int64();
    if (v && v->is_uint64() && v->get_uint64() <= uint64_t(INT64_MAX)) return static_cast<int64_t>(v->get_uint64());
    return 0;
}

}  // namespace

LeaseRecord leaseRecordOf(const json::object& lease) {
    LeaseRecord r;
    auto* sv = lease.if_contains("spec");
    if (!sv || !sv->is_object()) return r;
    const json::object& spec = sv->get_object();
    if (auto* h = spec.if_contains("holderIdentity"); h && h->is_string()) r.holderIdentity = std::string(h->get_string());
    r.leaseDurationSeconds = intAt(spec, "leaseDurationSeconds");
    r.acquireTime = timeAt(spec, "acquireTime");
    r.renewTime = timeAt(spec, "renewTime");
    r.leaseTransitions = intAt(spec, "leaseTransitions");
    return r;
}

json::object leaseSpecOf(const LeaseRecord& r) {
    json::object spec;  // the field order of coordination/v1 LeaseSpec
    spec["holderIdentity"] = r.holderIdentity;
    spec["leaseDurationSeconds"] = r.leaseDurationSeconds;
    if (r.acquireTime) spec["acquireTime"] = formatMicroTime(*r.acquireTime);
    if (r.renewTime) spec["renewTime"] = formatMicroTime(*r.renewTime);
    spec["leaseTransitions"] = r.leaseTransitions;
    return spec;
}

bool leaseHeld(const LeaseRecord& r, Clock::time_point now) {
    return !r.holderIdentity.empty() && r.renewTime && *r.renewTime + seconds(r.leaseDurationSeconds) > now;
}

std::string newLeaderIdentity() {
    std::array<char, 256> host{};
    if (::gethostname(host.data(), host.size() - 1) != 0 || host[0] == '\0') return "localhost_" + newUuid();
    return std::string(host.data()) + "_" + newUuid();
}

StopWait stopWaitOn(std::shared_future<void> stopped) {
    return [stopped = std::move(stopped)](nanoseconds d) { return stopped.wait_for(d) == std::future_status::ready; };
}

LeaderElector::LeaderElector(Store& store, const Clock& clock, LeaderElectionOptions options, log::Logger logger,
                             server::Registry* metrics)
    : store_(store), clock_(clock), options_(std::move(options)), logger_(std::move(logger)), metrics_(metrics) {
    if (options_.identity.empty()) options_.identity = newLeaderIdentity();
    setLeading(false);
}

std::string LeaderElector::describe() const { return options_.ns + "/" + options_.name; }

ObjectKey LeaderElector::leaseKey() const {
    return ObjectKey{std::string(kLeaseApiVersion), std::string(kLeaseKind), options_.ns, options_.name};
}

bool LeaderElector::isLeader() const {
    std::lock_guard lk(mu_);
    return state_ == LeaderState::Leading;
}

LeaderState LeaderElector::state() const {
    std::lock_guard lk(mu_);
    return state_;
}

void LeaderElector::setLeading(bool leading) {
    if (metrics_) metrics_->set(kLeaderMetric, {options_.name}, leading ? 1 : 0);
}

void LeaderElector::observe(const LeaseRecord& record) {
    bool changed = !observed_ || observed_->holderIdentity != record.holderIdentity;
    if (changed && !record.holderIdentity.empty() && record.holderIdentity != options_.identity)
        logger_.info("new leader elected", {{"lease", describe()}, {"leader", record.holderIdentity}});
    observed_ = record;
}

bool LeaderElector::tryAcquireOrRenew() {
    std::lock_guard lk(mu_);
    return tryAcquireOrRenewLocked(clock_.now());
}

bool LeaderElector::tryAcquireOrRenewLocked(Clock::time_point now) {
    LeaseRecord mine{options_.identity, duration_cast<seconds>(options_.leaseDuration).count(), now, now, 0};
    auto current = store_.get(leaseKey());
    if (current.failed()) {  // not "no lease": creating one now could only be refused
        logger_.error("error retrieving resource lock", {{"lease", describe()}, {"error", current.message}});
        return false;
    }
    if (current.notFound()) {
        json::object lease{{"apiVersion", kLeaseApiVersion},
                           {"kind", kLeaseKind},
                           {"metadata", {{"name", options_.name}, {"namespace", options_.ns}}},
                           {"spec", leaseSpecOf(mine)}};
        auto created = store_.create(lease);
        if (!created.ok()) {
            logger_.debug("error initially creating leader election record",
                          {{"lease", describe()}, {"reason", toString(created.status)}, {"error", created.message}});
            return false;
        }
        observe(mine);
        return true;
    }
    LeaseRecord old = leaseRecordOf(current.object);
    observe(old);
    const bool ours = old.holderIdentity == options_.identity;
    if (!ours && leaseHeld(old, now)) return false;
    if (ours) {
        mine.acquireTime = old.acquireTime ? old.acquireTime : mine.acquireTime;
        mine.leaseTransitions = old.leaseTransitions;
    } else {
        mine.leaseTransitions = old.leaseTransitions + 1;
    }
    json::object next = current.object;  // keeps metadata.resourceVersion: the write is conditional on it
    auto* spec = next["spec"].if_object();
    if (!spec) spec = &next["spec"].emplace_object();
    for (auto& [k, v] : leaseSpecOf(mine)) (*spec)[k] = v;
    if (!mine.acquireTime) spec->erase("acquireTime");
    auto updated = store_.update(next);
    if (!updated.ok()) {
        logger_.debug("failed to update lock",
                      {{"lease", describe()}, {"reason", toString(updated.status)}, {"error", updated.message}});
        return false;
    }
    observe(mine);
    return true;
}

LeaderState LeaderElector::step() {
    std::lock_guard lk(mu_);
    if (state_ == LeaderState::Lost) return state_;
    auto now = clock_.now();
    if (tryAcquireOrRenewLocked(now)) {
        lastRenew_ = now;
        if (state_ != LeaderState::Leading) {
            state_ = LeaderState::Leading;
            setLeading(true);
            logger_.info("successfully acquired lease", {{"lease", describe()}, {"identity", options_.identity}});
        }
        return state_;
    }
    if (state_ != LeaderState::Leading) return state_;
    std::string reason;
    if (observed_ && observed_->holderIdentity != options_.identity)
        reason = observed_->holderIdentity.empty() ? "the lease was released by another process"
                                                   : "the lease is held by " + observed_->holderIdentity;
    else if (now - lastRenew_ >= options_.renewDeadline)
        reason = "failed to renew the lease within renewDeadline";
    if (reason.empty()) return state_;
    state_ = LeaderState::Lost;
    setLeading(false);
    logger_.error("lost lease", {{"lease", describe()}, {"identity", options_.identity}, {"reason", reason}});
    return state_;
}

bool LeaderElector::release() {
    std::lock_guard lk(mu_);
    if (state_ != LeaderState::Leading) return true;
    auto standby = [&] {
        state_ = LeaderState::Standby;
        setLeading(false);
        return true;
    };
    auto current = store_.get(leaseKey());
    if (current.failed()) {
        logger_.error("failed to release lease", {{"lease", describe()}, {"error", current.message}});
        return false;
    }
    if (current.notFound()) return standby();
    LeaseRecord old = leaseRecordOf(current.object);
    if (old.holderIdentity != options_.identity) return standby();
    auto now = clock_.now();
    LeaseRecord released{"", 1, now, now, old.leaseTransitions};
    json::object next = current.object;
    auto* spec = next["spec"].if_object();
    if (!spec) spec = &next["spec"].emplace_object();
    for (auto& [k, v] : leaseSpecOf(released)) (*spec)[k] = v;
    auto updated = store_.update(next);
    if (!updated.ok()) {
        logger_.error("failed to release lease",
                      {{"lease", describe()}, {"reason", toString(updated.status)}, {"error", updated.message}});
        return false;
    }
    observe(released);
    logger_.info("released lease", {{"lease", describe()}, {"identity", options_.identity}});
    return standby();
}

bool LeaderElector::acquire(const StopWait& wait) {
    if (state() == LeaderState::Lost) return false;
    logger_.info("attempting to acquire leader lease", {{"lease", describe()}, {"identity", options_.identity}});
    while (true) {
        auto s = step();
        if (s != LeaderState::Standby) return s == LeaderState::Leading;
        if (wait(options_.retryPeriod)) return false;
    }
}

bool LeaderElector::renew(const StopWait& wait) {
    if (state() != LeaderState::Leading) return false;
    while (true) {
        if (wait(options_.retryPeriod)) return true;
        if (step() != LeaderState::Leading) return false;
    }
}

}  // namespace trainer::core::controller
