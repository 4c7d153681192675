#include "core/cli/run_safety.hpp"

#include "core/controller/configuration.hpp"
#include "core/log/log.hpp"

#include <unistd.h>

#include <filesystem>

namespace trainer::core::cli {

std::vector<FlagSpec> runSafetyFlags(std::vector<FlagSpec> more) {
    std::vector<FlagSpec> flags{
        {"graceful-shutdown-timeout", 0, true, false,
         "how long SIGTERM waits for in-flight reconciles and plugin calls before exiting anyway (default 30s)", ""},
        {"in-flight-file", 0, true, false,
         "where the controller records the TrainJob each reconcile works on, so a TrainJob whose build crashes the "
         "operator is marked failed after the restart (default <store>.inflight; cluster mode <temp dir>/"
         "trainer-operator.inflight)",
         ""}};
    for (auto& f : more) flags.push_back(std::move(f));
    return flags;
}

std::optional<std::chrono::milliseconds> gracefulShutdownTimeout(const Args& args, std::string& error) {
    if (!args.has("graceful-shutdown-timeout")) return kDefaultGracefulShutdown;
    const std::string text = args.get("graceful-shutdown-timeout");
    auto d = controller::parseGoDuration(text);
    if (!d || d->count() < 0) {
        error = "--graceful-shutdown-timeout: not a duration such as \"30s\": \"" + text + "\"";
        return std::nullopt;
    }
    return std::chrono::duration_cast<std::chrono::milliseconds>(*d);
}

std::string inFlightFile(const Args& args, bool cluster) {
    if (args.has("in-flight-file")) return args.get("in-flight-file");
    if (!cluster) return args.get("store", kDefaultStorePath) + ".inflight";
    std::error_code ec;
    auto tmp = std::filesystem::temp_directory_path(ec);
    return ((ec ? std::filesystem::path("/tmp") : tmp) / "trainer-operator.inflight").string();
}

void addStuckCallCheck(server::Health& health, StuckLimit limit) {
    health.addReadyzCheck(
        kStuckCallCheck, [limit = std::move(limit)] { return stuckCalls(limit); }, /*serveReason=*/true);
}

void ShutdownWatchdog::arm(std::chrono::milliseconds grace) {
    std::lock_guard g(mu_);
    if (thread_.joinable() || done_) return;
    thread_ = std::thread([this, grace] {
        std::unique_lock lock(mu_);
        if (cv_.wait_for(lock, grace, [this] { return done_; })) return;
        log::Logger logger("setup");
        auto calls = inFlightCalls();
        for (auto const& c : calls)
            logger.error("Plugin call still running at the end of the shutdown grace period",
                         {{"plugin", c.plugin},
                          {"hook", c.hook},
                          {"trainJob", c.trainJob},
                          {"seconds", std::chrono::duration<double>(c.running).count()}});
        logger.error("Shutdown grace period expired; exiting without waiting any longer",
                     {{"gracePeriodSeconds", std::chrono::duration<double>(grace).count()},
                      {"pluginCallsRunning", static_cast<int64_t>(calls.size())}});
        ::_exit(1);  // destructors would wait on the calls still running
    });
}

ShutdownWatchdog::~ShutdownWatchdog() {
    {
        std::lock_guard g(mu_);
        done_ = true;
    }
    cv_.notify_all();
    if (thread_.joinable()) thread_.join();
}

}  // namespace trainer::core::cli
