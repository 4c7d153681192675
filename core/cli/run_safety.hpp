// What `run` adds around plugin code that may crash or hang (issue 12 item 2; README "Running
// the operator"): where the controller keeps its poison-pill record (in_flight_slots.hpp), the
// /readyz check that reports a stuck plugin call, and the bounded shutdown.
#pragma once

#include "core/cli/cli.hpp"
#include "core/plugin/crash_context.hpp"
#include "core/server/health.hpp"

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

namespace trainer::core::cli {

// controller-runtime's default GracefulShutdownTimeout.
inline constexpr std::chrono::milliseconds kDefaultGracefulShutdown{30'000};
// The readiness check's name: "[-]plugin-calls failed: plugin P, hook H, TrainJob ns/name, ...".
inline constexpr const char* kStuckCallCheck = "plugin-calls";

// --graceful-shutdown-timeout and --in-flight-file, followed by `more`.
std::vector<FlagSpec> runSafetyFlags(std::vector<FlagSpec> more = {});

// --graceful-shutdown-timeout (a Go duration such as "30s"; default kDefaultGracefulShutdown);
// nullopt and `error` when malformed or negative.
std::optional<std::chrono::milliseconds> gracefulShutdownTimeout(const Args& args, std::string& error);

// The in-flight record's file: --in-flight-file; else `<store>.inflight` on the embedded store;
// else (cluster mode) `<temp dir>/trainer-operator.inflight` — $TMPDIR or /tmp, the Deployment's
// emptyDir, which outlives a container restart in its Pod.
std::string inFlightFile(const Args& args, bool cluster);

// Adds the readiness check kStuckCallCheck: failing, with its reason served, while any plugin
// call has run longer than `limit(plugin)`.
void addStuckCallCheck(server::Health& health, StuckLimit limit);

// The shutdown's deadline. After arm(grace), if the process has not finished shutting down
// (this object's destruction) within `grace`, logs every plugin call still running and ends
// the process with exit status 1. Declare it before everything whose teardown may wait on a
// plugin call, so it is destroyed after them.
class ShutdownWatchdog {
public:
    ShutdownWatchdog() = default;
    ~ShutdownWatchdog();
    ShutdownWatchdog(const ShutdownWatchdog&) = delete;
    ShutdownWatchdog& operator=(const ShutdownWatchdog&) = delete;
    void arm(std::chrono::milliseconds grace);

private:
    std::mutex mu_;
    std::condition_variable cv_;
    bool done_ = false;
    std::thread thread_;
};

}  // namespace trainer::core::cli
