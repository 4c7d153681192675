// `trainer-operator test-plugins [--plugin-dir D ...] CASES...`: golden cases on the real host
// (sdk/docs/golden-tests.md). The shipped plugins load first, then each --plugin-dir's, so a
// plugin under test runs beside them exactly as the operator would run it (the registry's
// shipped-first rules decide a name or claim taken twice). Exit 0 when every case passed,
// 1 when one failed (a malformed case file fails), 2 when the run could not start (flags,
// configuration, case paths, a plugin that did not load).
#include "core/cli/cli.hpp"
#include "core/cli/command_config.hpp"
#include "core/cli/golden_host.hpp"
#include "core/golden/case_file.hpp"
#include "core/golden/report.hpp"

namespace trainer::core::cli {

namespace {

constexpr int kSetupError = 2;
constexpr std::size_t kProblemsShown = 20;

// The shipped plugins' directory (the Configuration's plugins.directory, else the default),
// then every --plugin-dir.
std::vector<std::string> pluginDirsOf(const Args& args, const controller::Configuration& cfg) {
    std::vector<std::string> dirs{cfg.pluginDirectory.empty() ? defaultPluginDir() : cfg.pluginDirectory};
    for (auto const& d : args.all("plugin-dir")) dirs.push_back(d);
    return dirs;
}

// Every plugin must load: a rejected plugin under test would make the cases test something else.
bool pluginsLoaded(const Session& s, Io& io) {
    for (auto const& r : s.registry().rejected()) io.err << "error: " << r.reason << "\n";
    if (s.registry().rejected().empty()) return true;
    io.err << "error: no case was run: every plugin must load (loaded: " << s.registry().names() << ")\n";
    return false;
}

}  // namespace

int cmdTestPlugins(const Args& args, Io& io) {
    controller::Configuration cfg;
    if (!loadCommandConfiguration(args, io, cfg)) return kSetupError;
    std::vector<std::string> files;
    Diagnostics found = golden::collectCaseFiles(args.positional, files);
    for (auto const& e : found.errors) io.err << "error: " << e.message << "\n";
    if (!found.ok()) return kSetupError;

    Session session;
    session.configure(cfg.plugins, operatorSettingsOf(cfg, cfg.leaderElectionResourceNamespace));
    const auto dirs = pluginDirsOf(args, cfg);
    session.loadPlugins(dirs);
    if (!pluginsLoaded(session, io)) return kSetupError;

    SessionCaseHost host(session, dirs, cfg.featureGates);
    const std::size_t shown = args.has("verbose") ? 0 : kProblemsShown;
    auto summary = golden::runSuite(files, host, [&](const golden::CaseResult& r) {
        golden::printResult(r, io.out, shown);
        io.out.flush();
    });
    io.out << golden::summaryLine(summary) << "\n";
    return summary.failed == 0 ? 0 : 1;
}

}  // namespace trainer::core::cli
