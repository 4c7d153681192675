// Lease-based leader election as client-go's leaderelection with a LeaseLock does it, on the
// store: one coordination.k8s.io/v1 Lease whose spec is the election record
// {holderIdentity, leaseDurationSeconds, acquireTime, renewTime, leaseTransitions}. Every
// write carries the resourceVersion it read, so of two candidates racing for the same Lease
// the store lets exactly one win (the other gets AlreadyExists or Conflict: lost this round).
//
// Expiry is judged on the record itself (renewTime + leaseDurationSeconds < now) rather than
// client-go's locally observed time: every candidate shares one store, hence one host clock,
// and a restarted process can take a dead holder's stale Lease at once.
#pragma once

#include "core/controller/clock.hpp"
#include "core/log/log.hpp"
#include "core/server/metrics.hpp"
#include "core/store/store.hpp"

#include <chrono>
#include <cstdint>
#include <functional>
#include <future>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

namespace trainer::core::controller {

inline constexpr std::string_view kLeaseApiVersion = "coordination.k8s.io/v1";
inline constexpr std::string_view kLeaseKind = "Lease";
// The gauge client-go reports: 1 while this process leads the named lease, else 0.
inline constexpr std::string_view kLeaderMetric = "leader_election_master_status";

struct LeaderElectionOptions {
    std::string name = "trainer.kubeflow.org";  // upstream's LeaderElectionID
    std::string ns = "kubeflow-system";
    std::string identity;  // empty: newLeaderIdentity()
    std::chrono::nanoseconds leaseDuration = std::chrono::seconds(15);
    std::chrono::nanoseconds renewDeadline = std::chrono::seconds(10);
    std::chrono::nanoseconds retryPeriod = std::chrono::seconds(2);
};

// The Lease spec as client-go's LeaderElectionRecord (times are MicroTime in the object).
struct LeaseRecord {
    std::string holderIdentity;
    int64_t leaseDurationSeconds = 0;
    std::optional<Clock::time_point> acquireTime;
    std::optional<Clock::time_point> renewTime;
    int64_t leaseTransitions = 0;
};

// Reads a Lease's spec; malformed or missing fields read as absent (never throws).
LeaseRecord leaseRecordOf(const json::object& lease);
// The Lease spec for a record, times as MicroTime ("2024-05-01T12:00:00.000000Z").
json::object leaseSpecOf(const LeaseRecord& record);
// Whether someone holds the lease at `now`: a holder and renewTime + leaseDurationSeconds > now.
bool leaseHeld(const LeaseRecord& record, Clock::time_point now);

// "<hostname>_<uuid>", controller-runtime's default identity.
std::string newLeaderIdentity();

// Waits up to `d`; returns true when the process is stopping (then at once).
using StopWait = std::function<bool(std::chrono::nanoseconds d)>;
// A StopWait on a future that becomes ready when the process stops.
StopWait stopWaitOn(std::shared_future<void> stopped);

enum class LeaderState { Standby, Leading, Lost };

// One candidate. Thread-safe; the loops (acquire, renew) run on one thread at a time.
class LeaderElector {
public:
    LeaderElector(Store& store, const Clock& clock, LeaderElectionOptions options, log::Logger logger,
                  server::Registry* metrics = nullptr);

    // client-go's tryAcquireOrRenew: creates the Lease when absent, takes it when it has no
    // holder or expired (leaseTransitions + 1), renews it when ours. True when ours afterwards.
    bool tryAcquireOrRenew();
    // One tick (call every retryPeriod): tryAcquireOrRenew, then the leader's rules: another
    // holder, or no successful renew for renewDeadline, loses the lease. Lost is final.
    LeaderState step();
    // ReleaseOnCancel: when leading, writes holderIdentity "" and leaseDurationSeconds 1 so a
    // standby takes over at its next try. True when released or not held.
    bool release();

    // Logs "attempting to acquire leader lease" and steps every retryPeriod until leading
    // (true) or stopping (false).
    bool acquire(const StopWait& wait);
    // Renews every retryPeriod while leading: true when stopping (still leading), false when
    // the lease was lost.
    bool renew(const StopWait& wait);

    bool isLeader() const;
    LeaderState state() const;
    const std::string& identity() const { return options_.identity; }
    // "namespace/name" of the Lease.
    std::string describe() const;
    ObjectKey leaseKey() const;

private:
    bool tryAcquireOrRenewLocked(Clock::time_point now);
    void setLeading(bool leading);
    void observe(const LeaseRecord& record);

    Store& store_;
    const Clock& clock_;
    LeaderElectionOptions options_;
    log::Logger logger_;
    server::Registry* metrics_;
    mutable std::mutex mu_;
    LeaderState state_ = LeaderState::Standby;
    std::optional<LeaseRecord> observed_;
    Clock::time_point lastRenew_{};
};

}  // namespace trainer::core::controller
