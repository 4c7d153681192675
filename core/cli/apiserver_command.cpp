// apiserver: the embedded Kubernetes API alone (no controller), on the store; SIGTERM/SIGINT
// stop it. Cluster-mode tests point an operator at it.
#include "core/cli/cli.hpp"
#include "core/cli/embedded_api.hpp"
#include "core/cli/log_flags.hpp"
#include "core/log/log.hpp"
#include "core/plugin/log_sink.hpp"
#include "core/store/sqlite_store.hpp"

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/signal_set.hpp>

#include <charconv>
#include <csignal>
#include <thread>

namespace trainer::core::cli {

int cmdApiserver(const Args& args, Io& io) {
    log::Options logOpts;
    if (!parseLogFlags(args, io, logOpts)) return 1;
    log::init(logOpts);
    log::Logger setup("setup");
    const std::string storePath = args.get("store", kDefaultStorePath);
    SqliteStoreOptions storeOptions;
    if (args.has("watch-retention")) {
        const std::string text = args.get("watch-retention");
        int64_t n = 0;
        auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
        if (ec != std::errc() || p != text.data() + text.size() || n < 1) {
            io.err << "error: --watch-retention: must be a positive integer, got \"" << text << "\"\n";
            return 1;
        }
        storeOptions.keepChanges = n;
    }
    auto opened = SqliteStore::open(storePath, storeOptions);
    if (!opened.store) {
        setup.error("Unable to open the store", {{"store", storePath}, {"error", opened.error}});
        return 1;
    }
    PluginRegistry registry;
    registry.setLogSink(loggerSink(log::Logger("plugin")));
    registry.loadDirectory(pluginDir(args));
    for (auto const& r : registry.rejected()) setup.warn("Rejected plugin", {{"path", r.path}, {"reason", r.reason}});
    Framework framework(registry);

    boost::asio::io_context ioc;
    auto guard = boost::asio::make_work_guard(ioc);
    boost::asio::signal_set signals(ioc, SIGINT, SIGTERM);
    signals.async_wait([&](const boost::system::error_code& ec, int sig) {
        if (ec) return;
        setup.info("Received signal; stopping", {{"signal", sig}});
        guard.reset();
        ioc.stop();
    });
    EmbeddedApi api(*opened.store, registry, framework);
    if (auto err = api.start(ioc, embeddedApiOptions(args, storePath)); !err.empty()) {
        setup.error("Unable to serve the Kubernetes API", {{"error", err}});
        return 1;
    }
    std::vector<std::thread> threads;
    for (int i = 0; i < 2; ++i) threads.emplace_back([&] { ioc.run(); });
    for (auto& t : threads) t.join();
    api.stop();
    setup.info("Stopped");
    return 0;
}

}  // namespace trainer::core::cli
