// The command line (README.md "Command line"): one table of subcommands, each with its flags; parsing,
// --help, --version and suggestions for unknown commands and flags.
#pragma once

#include "core/plugin/registry.hpp"

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

namespace trainer::core::cli {

struct FlagSpec {
    std::string name;      // "plugin-dir" (used as --plugin-dir)
    char shortName = 0;    // 'f' for -f, or 0
    bool takesValue = true;
    bool repeated = false;
    std::string help;
    std::string defaultValue;
};

// Parsed flags of one invocation.
struct Args {
    std::map<std::string, std::vector<std::string>> values;
    std::vector<std::string> positional;
    bool has(const std::string& n) const { return values.count(n) > 0; }
    std::string get(const std::string& n, const std::string& def = "") const {
        auto it = values.find(n);
        return it == values.end() || it->second.empty() ? def : it->second.back();
    }
    const std::vector<std::string>& all(const std::string& n) const {
        static const std::vector<std::string> none;
        auto it = values.find(n);
        return it == values.end() ? none : it->second;
    }
};

struct Io {
    std::ostream& out;
    std::ostream& err;
};

struct Command {
    std::string name;
    std::string usage;    // "render -f PATH [-f PATH ...] [--plugin-dir DIR] [-o json|yaml]"
    std::string summary;  // one line
    std::vector<FlagSpec> flags;
    size_t minPositional = 0;
    size_t maxPositional = 0;
    std::function<int(const Args&, Io&)> run;
    int usageExitCode = 1;  // exit code of a flag or argument error (test-plugins: 2, 1 is "a case failed")
    std::string details{};  // more paragraphs for --help (exit codes, formats), or empty
};

// The command table (cli.cpp).
const std::vector<Command>& commands();

// Entry point of the binary: returns the exit code.
int run(int argc, char** argv, Io io);

// A flag's whole value as a decimal integer ("12", "-1"); nullopt for "", "1x" or out of range.
std::optional<int64_t> parseInt(const std::string& s);

// Closest candidate by edit distance, or "" when nothing is close.
std::string suggest(const std::string& word, const std::vector<std::string>& candidates);

// The plugin directory: --plugin-dir, else defaultPluginDir().
std::string pluginDir(const Args& args);
// $TRAINER_PLUGIN_DIR, else installedPluginDir().
std::string defaultPluginDir();
// <binary>/../lib/trainer-operator/plugins: where the operator's own plugins are installed.
std::string installedPluginDir();
// `options` plus the hashes of the installed plugin directory's shipped manifest, so copies of
// the shipped plugins in another --plugin-dir still run in-process by default.
PluginOptions withShippedHashes(PluginOptions options);

// Command implementations (render.cpp, ...).
int cmdRender(const Args& args, Io& io);
int cmdValidate(const Args& args, Io& io);
int cmdPlugins(const Args& args, Io& io);
// The operator and kubectl-like access to its embedded store (run_command.cpp, store_commands.cpp).
inline constexpr const char* kDefaultStorePath = "./trainer-operator.db";
int cmdRun(const Args& args, Io& io);
int cmdApply(const Args& args, Io& io);
int cmdGet(const Args& args, Io& io);
int cmdDelete(const Args& args, Io& io);
// Container logs of the local executor (logs_command.cpp).
int cmdLogs(const Args& args, Io& io);
// The embedded Kubernetes API alone (apiserver_command.cpp).
int cmdApiserver(const Args& args, Io& io);
// CA + webhook serving certificate (certs_command.cpp).
int cmdCerts(const Args& args, Io& io);
int cmdPluginHost(const Args& args, Io& io);
// Golden cases on the real host (test_plugins_command.cpp).
int cmdTestPlugins(const Args& args, Io& io);
// A standalone CMake project for a new plugin (new_plugin_command.cpp).
int cmdNewPlugin(const Args& args, Io& io);

}  // namespace trainer::core::cli
