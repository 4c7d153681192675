#include "core/cli/cli.hpp"
#include "core/cli/command_config.hpp"
#include "core/cli/embedded_api.hpp"
#include "core/cli/run_backend.hpp"
#include "core/cli/run_safety.hpp"
#include "core/plugin/registry_internal.hpp"

#include <boost/dll/runtime_symbol_info.hpp>
#include <boost/version.hpp>

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <cstdlib>
#include <iomanip>
#include <sstream>

namespace trainer::core::cli {

namespace {

const FlagSpec kFile{"filename", 'f', true, true, "a file or directory of YAML/JSON objects (repeatable)", ""};
const FlagSpec kPluginDir{"plugin-dir", 0, true, false, "directory of plugin .so files", ""};
const FlagSpec kOutput{"output", 'o', true, false, "output format", ""};
const FlagSpec kStore{"store", 0, true, false, "the embedded store file (created if absent)", "./trainer-operator.db"};
// Adds the embedded API's flags (embedded_api.cpp) to a command's.
std::vector<FlagSpec> withApiFlags(std::vector<FlagSpec> flags, std::vector<FlagSpec> more = {}) {
    for (auto& f : embeddedApiFlags()) flags.push_back(std::move(f));
    for (auto& f : more) flags.push_back(std::move(f));
    return flags;
}

const FlagSpec kNamespace{"namespace", 'n', true, false, "namespace", "default"};

}  // namespace

const std::vector<Command>& commands() {
    static const std::vector<Command> table = {
        {"render", "render -f PATH [-f PATH ...] [--plugin-dir DIR] [--config FILE] [--feature-gates GATES] [-o json|yaml|info]",
         "Run admission and one reconcile's build for every TrainJob in the inputs and print the objects",
         {kFile, kPluginDir, configFlag(), featureGatesFlag(),
          {"output", 'o', true, false, "json, yaml, or info (the Info documents the first plugin phase receives)", "json"}},
         0, 0, &cmdRender},
        {"validate", "validate -f PATH [-f PATH ...] [--plugin-dir DIR] [--config FILE] [--feature-gates GATES]",
         "Run admission (CRD schema, CEL rules, validation plugins) on every TrainJob and runtime in the inputs",
         {kFile, kPluginDir, configFlag(), featureGatesFlag()}, 0, 0, &cmdValidate},
        {"plugins", "plugins [--plugin-dir DIR] [--config FILE] [-o json] [--print-pins] [--allow-rejected]",
         "Show the plugins that were loaded and the files that were rejected, with the reason",
         {kPluginDir, configFlag(), {"output", 'o', true, false, "table or json", "table"},
          {"print-pins", 0, false, false,
           "print the loaded plugins' hashes as a Configuration block (plugins.sha256) ready to paste", ""},
          {"allow-rejected", 0, false, false, "exit 0 even when something was rejected (otherwise exit 1)", ""}},
         0, 0, &cmdPlugins},
        {"run",
         "run --plugin-dir DIR [--store PATH] [--config FILE] [--feature-gates GATES] [--health-probe-bind-address ADDR] "
         "[--metrics-bind-address ADDR] [--webhook-port N] [--webhook-cert-dir DIR] [--workers N] [--zap-* ...] "
         "[--api-bind-address ADDR] [--write-kubeconfig PATH] [--api-cert-dir DIR] [--local-executor=false] | [--kubeconfig PATH] "
         "[--context NAME]",
         "Run the operator: controllers on the embedded store (with its Kubernetes API) or against a cluster's API "
         "server, admission webhooks, health and metrics",
         withApiFlags({kPluginDir,
          {"store", 0, true, false, "the embedded store file, created if absent (default ./trainer-operator.db)", ""},
          {"config", 0, true, false,
           "a config.trainer.kubeflow.org/v1alpha1 Configuration file (leader election on a Lease is on by default; "
           "leaderElection.leaderElect: false turns it off)",
           ""},
          featureGatesFlag(),
          {"health-probe-bind-address", 0, true, false, "address of /healthz and /readyz (0 disables)", ""},
          {"metrics-bind-address", 0, true, false, "address of /metrics (0 disables)", ""},
          {"webhook-port", 0, true, false, "port of the admission webhooks (default 9443)", ""},
          {"webhook-cert-dir", 0, true, false, "directory with tls.crt and tls.key; webhooks are served only with it", ""},
          {"workers", 0, true, false, "concurrent TrainJob reconciles (default 1)", ""},
          {"local-executor", 0, true, false,
           "true or false: run the TrainJobs' pods as local processes (default true with --store; needs root; "
           "cluster mode never does)",
           ""},
          {"zap-log-level", 0, true, false, "debug, info, warn, error or an integer", ""},
          {"zap-encoder", 0, true, false, "json or console", ""},
          {"zap-devel", 0, false, false, "development defaults (console encoder, debug level)", ""}},
                      runSafetyFlags(clusterFlags())),
         0, 0, &cmdRun},
        {"apiserver",
         "apiserver [--store PATH] [--plugin-dir DIR] [--api-bind-address ADDR] [--write-kubeconfig PATH] "
         "[--api-cert-dir DIR]",
         "Serve the Kubernetes API over the embedded store, without the controller",
         withApiFlags({kStore, kPluginDir,
                       {"watch-retention", 0, true, false,
                        "change-feed entries kept for watches; a watch from an older version gets 410 Expired",
                        "100000"},
                       {"zap-log-level", 0, true, false, "debug, info, warn, error or an integer", ""},
                       {"zap-encoder", 0, true, false, "json or console", ""},
                       {"zap-devel", 0, false, false, "development defaults (console encoder, debug level)", ""}}),
         0, 0, &cmdApiserver},
        {"apply", "apply -f PATH [-f PATH ...] [--store PATH] [--plugin-dir DIR]",
         "Admit objects as the webhooks do and create or update them in the embedded store",
         {kFile, kStore, kPluginDir}, 0, 0, &cmdApply},
        {"get", "get KIND [NAME] [-o json|yaml|wide|name] [-n NS | -A] [--store PATH] [--plugin-dir DIR]",
         "Show objects of the embedded store as a table, JSON or YAML",
         {kStore, kNamespace, kPluginDir, {"all-namespaces", 'A', false, false, "list across every namespace", ""},
          {"output", 'o', true, false, "json, yaml, wide or name", ""}},
         1, 2, &cmdGet},
        {"delete", "delete KIND NAME [-n NS] [--store PATH] [--plugin-dir DIR]",
         "Delete an object of the embedded store and everything it owns",
         {kStore, kNamespace, kPluginDir}, 2, 2, &cmdDelete},
        {"logs",
         "logs (POD | trainjob/NAME) [-c CONTAINER] [-f] [-p] [--tail N] [--limit-bytes N] [-n NS] [--store PATH]",
         "Print a pod container's output; trainjob/NAME: every container of its pods, lines prefixed [<pod>] "
         "([<pod>/<container>] in pods with several containers)",
         {kStore, kNamespace, {"container", 'c', true, false, "the container (needed when the pod has several)", ""},
          {"follow", 'f', false, false, "keep printing until the containers end", ""},
          {"previous", 'p', false, false, "the previous instance of a restarted container", ""},
          {"tail", 0, true, false, "only the last N lines of each container (-1: all)", ""},
          {"limit-bytes", 0, true, false, "at most N bytes of each container", ""}},
         1, 1, &cmdLogs},
        {"certs", "certs --service-name NAME --namespace NS --out-dir DIR",
         "Generate a CA and a webhook serving certificate (ca.crt, tls.crt, tls.key)",
         {{"service-name", 0, true, false, "the webhook Service name", "kubeflow-trainer-controller-manager"},
          {"namespace", 'n', true, false, "the Service namespace", "kubeflow-system"},
          {"out-dir", 0, true, false, "where to write the files", ""}},
         0, 0, &cmdCerts},
        {"test-plugins", "test-plugins [--plugin-dir DIR ...] [--config FILE] [--feature-gates GATES] [-v] CASES...",
         "Run golden cases on the real host with the plugins under test beside the shipped ones",
         {{"plugin-dir", 0, true, true,
           "a directory of plugins under test, loaded after the shipped plugins (repeatable)", ""},
          configFlag(), featureGatesFlag(),
          {"verbose", 'v', false, false, "print every difference of a failed case (default: the first 20)", ""}},
         1, SIZE_MAX, &cmdTestPlugins, 2,
         "CASES are case files (YAML or JSON, one case each) or directories of them (*.yaml, *.yml, *.json).\n"
         "Each case runs admission (stage: admission) or admission and one reconcile's build (stage: build)\n"
         "and is compared with its expectations; the format is sdk/docs/golden-tests.md (installed in\n"
         "<prefix>/share/trainer-operator/sdk/docs/). The shipped plugins load first, then each --plugin-dir's;\n"
         "a plugin that is rejected (a name or claim already taken ...) stops the run.\n"
         "Prints PASS <file>, or FAIL <file>: <name> with one line per difference, and 'N passed, M failed' last.\n"
         "Exit status: 0 every case passed, 1 a case failed or is not a valid case, 2 the run could not start\n"
         "(flags, --config, a CASES path, a plugin that did not load)."},
        {"new-plugin", "new-plugin NAME --kind ml-policy|pod-group [--dir DIR]",
         "Write a standalone CMake project for a new plugin: sources, unit and golden tests, example, CI script",
         {{"kind", 0, true, false, "ml-policy (mlPolicy.NAME) or pod-group (podGroupPolicy.NAME)", ""},
          {"dir", 0, true, false, "the directory to write (default ./NAME; must not exist, or be empty)", ""}},
         1, 1, &cmdNewPlugin, 2,
         "NAME names the plugin, its policy (mlPolicy.NAME or podGroupPolicy.NAME) and its module NAME.so:\n"
         "lowercase letters and digits starting with a letter, words joined by single '-' (my-policy), at most\n"
         "40 characters. The C++ namespace (my_policy_plugin), class (MyPolicyPlugin) and, for an ML policy,\n"
         "the env var prefix (MY_POLICY_*) derive from it. A name the plugins of the default plugin directory\n"
         "already hold (a plugin or policy of that name, an overlapping env claim) is refused, as the\n"
         "operator would refuse to load the plugin.\n"
         "The project builds with find_package(TrainerSDK) against an installed prefix P: ./ci.sh P configures,\n"
         "builds, runs the unit tests (TrainerSDK::testing) and the golden cases (test-plugins); its README.md\n"
         "says what to change. Existing files are never overwritten.\n"
         "Exit status: 0 written, 1 a file could not be written, 2 a usage error (NAME, --kind, --dir)."},
        {"plugin-host", "plugin-host --socket-fd N --file-fd N --path PATH [--memory-limit BYTES] [--parent-pid PID]",
         "Run one process-isolated plugin for the operator (started by the operator only, README \"Plugin isolation\")",
         {{"socket-fd", 0, true, false, "the socket to the operator", "3"},
          {"file-fd", 0, true, false, "the plugin file, opened and checked by the operator", "4"},
          {"path", 0, true, false, "the plugin file's path, for messages", ""},
          {"memory-limit", 0, true, false, "the plugin's memory limit in bytes (an address-space backstop)", "0"},
          {"parent-pid", 0, true, false, "exit when this process is gone", "0"}},
         0, 0, &cmdPluginHost},
    };
    return table;
}

std::optional<int64_t> parseInt(const std::string& s) {
    int64_t v = 0;
    auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (s.empty() || ec != std::errc() || p != s.data() + s.size()) return std::nullopt;
    return v;
}

std::string suggest(const std::string& word, const std::vector<std::string>& candidates) {
    auto distance = [](const std::string& a, const std::string& b) {
        std::vector<size_t> prev(b.size() + 1), cur(b.size() + 1);
        for (size_t j = 0; j <= b.size(); ++j) prev[j] = j;
        for (size_t i = 1; i <= a.size(); ++i) {
            cur[0] = i;
            for (size_t j = 1; j <= b.size(); ++j)
                cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)});
            std::swap(prev, cur);
        }
        return prev[b.size()];
    };
    std::string best;
    size_t bestD = std::max<size_t>(2, word.size() / 3) + 1;
    for (auto const& c : candidates) {
        size_t d = distance(word, c);
        if (c.rfind(word, 0) == 0 && !word.empty()) d = std::min<size_t>(d, 1);
        if (d < bestD) {
            bestD = d;
            best = c;
        }
    }
    return best;
}

std::string installedPluginDir() {
    auto exe = boost::dll::program_location();
    return (exe.parent_path().parent_path() / "lib" / "trainer-operator" / "plugins").lexically_normal().string();
}

std::string defaultPluginDir() {
    if (const char* env = std::getenv("TRAINER_PLUGIN_DIR"); env && *env) return env;
    return installedPluginDir();
}

std::string pluginDir(const Args& args) { return args.has("plugin-dir") ? args.get("plugin-dir") : defaultPluginDir(); }

PluginOptions withShippedHashes(PluginOptions options) {
    for (auto const& h : readShippedManifest(installedPluginDir())) options.shippedHashes.insert(h);
    return options;
}

namespace {

std::string compilerName() {
#if defined(__clang__)
    return "Clang " __clang_version__;
#elif defined(__GNUC__)
    return "GCC " + std::to_string(__GNUC__) + "." + std::to_string(__GNUC_MINOR__) + "." +
           std::to_string(__GNUC_PATCHLEVEL__);
#else
    return "an unknown compiler";
#endif
}

void printCommandHelp(const Command& c, std::ostream& os) {
    os << c.summary << ".\n\nUsage:\n  trainer-operator " << c.usage << "\n\n";
    if (!c.details.empty()) os << c.details << "\n\n";
    os << "Flags:\n";
    for (auto const& f : c.flags) {
        std::string lhs = (f.shortName ? std::string("-") + f.shortName + ", " : std::string("    ")) + "--" + f.name;
        if (f.takesValue) lhs += " VALUE";
        if (lhs.size() >= 34) lhs += " ";  // a long flag still gets a space before its help
        os << "  " << std::left << std::setw(34) << lhs << f.help;
        if (!f.defaultValue.empty()) os << " (default " << f.defaultValue << ")";
        os << "\n";
    }
    os << "  " << std::left << std::setw(34) << "-h, --help" << "help for " << c.name << "\n";
}

// The operator's version, the plugin ABI range the loader accepts (the handshake's own range,
// registry_library.cpp hostInfo()) and the SDK's version (its CMake package is versioned with the
// project, sdk/CMakeLists.txt), then what it was built with: the compatibility matrix's columns
// (sdk/README.md).
void printVersion(std::ostream& os) {
    const trn_host_info& host = core::detail::hostInfo();
    os << "trainer-operator " << TRAINER_VERSION << "\n"
       << "plugin ABI " << core::detail::abiString(host.abi_min) << "-" << core::detail::abiString(host.abi_max) << "\n"
       << "SDK " << TRAINER_VERSION << "\n"
       << "built with Boost " << BOOST_VERSION / 100000 << "." << BOOST_VERSION / 100 % 1000 << "."
       << BOOST_VERSION % 100 << ", " << compilerName() << "\n";
}

void printUsage(std::ostream& os) {
    os << "trainer-operator: a Kubeflow Trainer v2 compatible operator whose pipeline is made of plugins.\n\n"
          "Usage:\n  trainer-operator COMMAND [flags]\n\nCommands:\n";
    for (auto const& c : commands()) os << "  " << std::left << std::setw(14) << c.name << c.summary << "\n";
    os << "\nGlobal flags:\n  -h, --help     help for trainer-operator or a command\n"
          "      --version  print the version, the plugin ABI range and the SDK version\n"
          "\nRun 'trainer-operator COMMAND --help' for a command's flags.\n";
}

// Parses argv[from..] against a command's flags; returns an error sentence or "".
std::string parseFlags(const Command& c, const std::vector<std::string>& argv, Args& out, bool& help) {
    std::vector<std::string> names;
    for (auto const& f : c.flags) names.push_back("--" + f.name);
    names.push_back("--help");
    for (size_t i = 0; i < argv.size(); ++i) {
        const std::string& a = argv[i];
        if (a == "-h" || a == "--help") {
            help = true;
            continue;
        }
        if (a.size() > 1 && a[0] == '-' && a != "-") {
            const FlagSpec* spec = nullptr;
            std::string value;
            bool inlineValue = false;
            if (a.rfind("--", 0) == 0) {
                std::string name = a.substr(2);
                if (auto eq = name.find('='); eq != std::string::npos) {
                    value = name.substr(eq + 1);
                    name = name.substr(0, eq);
                    inlineValue = true;
                }
                for (auto const& f : c.flags)
                    if (f.name == name) spec = &f;
                if (!spec) {
                    auto s = suggest("--" + name, names);
                    return "unknown flag --" + name + " for \"" + c.name + "\"" +
                           (s.empty() ? "" : "; did you mean " + s + "?");
                }
            } else {
                char sh = a[1];
                for (auto const& f : c.flags)
                    if (f.shortName == sh) spec = &f;
                if (!spec) return "unknown shorthand flag -" + std::string(1, sh) + " for \"" + c.name + "\"";
                if (a.size() > 2) {
                    value = a.substr(a[2] == '=' ? 3 : 2);
                    inlineValue = true;
                }
            }
            if (spec->takesValue && !inlineValue) {
                if (i + 1 >= argv.size()) return "flag --" + spec->name + " needs a value";
                value = argv[++i];
            }
            if (!spec->takesValue && inlineValue) return "flag --" + spec->name + " takes no value";
            if (!spec->repeated && out.has(spec->name)) return "flag --" + spec->name + " given more than once";
            out.values[spec->name].push_back(spec->takesValue ? value : "true");
            continue;
        }
        out.positional.push_back(a);
    }
    if (help) return {};
    if (out.positional.size() < c.minPositional) return "\"" + c.name + "\" needs more arguments: trainer-operator " + c.usage;
    if (out.positional.size() > c.maxPositional)
        return "unexpected argument \"" + out.positional[c.maxPositional] + "\" for \"" + c.name + "\"";
    return {};
}

}  // namespace

int run(int argc, char** argv, Io io) {
    std::vector<std::string> rest(argv + std::min(argc, 1), argv + argc);
    if (rest.empty() || rest[0] == "-h" || rest[0] == "--help" || rest[0] == "help") {
        printUsage(io.out);
        return rest.empty() ? 1 : 0;
    }
    if (rest[0] == "--version" || rest[0] == "version") {
        printVersion(io.out);
        return 0;
    }
    const Command* cmd = nullptr;
    std::vector<std::string> names;
    for (auto const& c : commands()) {
        names.push_back(c.name);
        if (c.name == rest[0]) cmd = &c;
    }
    if (!cmd) {
        auto s = suggest(rest[0], names);
        io.err << "error: unknown command \"" << rest[0] << "\" for \"trainer-operator\""
               << (s.empty() ? "" : "; did you mean \"" + s + "\"?") << "\n";
        return 1;
    }
    Args args;
    bool help = false;
    auto err = parseFlags(*cmd, std::vector<std::string>(rest.begin() + 1, rest.end()), args, help);
    if (help) {
        printCommandHelp(*cmd, io.out);
        return 0;
    }
    if (!err.empty()) {
        io.err << "error: " << err << "\n";
        return cmd->usageExitCode;
    }
    for (auto const& f : cmd->flags)
        if (!f.defaultValue.empty() && !args.has(f.name)) args.values[f.name].push_back(f.defaultValue);
    try {
        return cmd->run(args, io);
    } catch (const std::exception& e) {
        // A bug, not bad input: bad input is reported as field errors before this point.
        io.err << "error: internal error in " << cmd->name << ": " << e.what() << "\n";
        return 2;
    }
}

}  // namespace trainer::core::cli
