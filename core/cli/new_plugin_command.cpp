// `trainer-operator new-plugin NAME --kind ml-policy|pod-group [--dir D]`: writes a standalone
// CMake project for a plugin built against the installed SDK (the templates: scaffold.hpp).
// Exit 0 written, 1 a file could not be written, 2 a usage error (NAME, --kind, --dir, or a
// name the loaded shipped plugins already hold); nothing is ever overwritten.
#include "core/cli/cli.hpp"
#include "core/cli/scaffold.hpp"
#include "core/cli/session.hpp"

#include <filesystem>
#include <fstream>
#include <system_error>

namespace trainer::core::cli {

namespace fs = std::filesystem;

namespace {

constexpr int kUsageError = 2;

int usageError(Io& io, const std::string& message) {
    io.err << "error: " << message << "\n(trainer-operator new-plugin --help)\n";
    return kUsageError;
}

std::string kindList() {
    std::string out;
    for (auto const& k : scaffold::kinds()) out += (out.empty() ? "" : ", ") + std::string(k.name);
    return out;
}

// The generated plugin's claims, substituted.
std::vector<std::string> claimsOf(const scaffold::Kind& kind, const scaffold::Names& names) {
    std::vector<std::string> out;
    for (auto c : kind.claims) out.push_back(scaffold::substitute(c, names));
    return out;
}

// Why the plugins of the default plugin directory (the shipped ones) would refuse the generated
// plugin at load, or "" (core names no plugin: the registry says which are there).
std::string shippedConflict(const scaffold::Kind& kind, const scaffold::Names& names) {
    Session session;
    session.configure(withShippedHashes(PluginOptions{}), OperatorSettings{});
    session.loadPlugins(defaultPluginDir());
    const auto ours = claimsOf(kind, names);
    for (auto const& p : session.registry().plugins())
        if (auto why = scaffold::claimConflict(names, ours, p->name, p->claims))
            return "plugin " + p->name + " (" + p->path + ") holds it: " + *why;
    return "";
}

// An error when `dir` exists and is not an empty directory.
std::string directoryProblem(const fs::path& dir) {
    std::error_code ec;
    if (!fs::exists(dir, ec)) return "";
    if (!fs::is_directory(dir, ec)) return "exists and is not a directory";
    if (!fs::is_empty(dir, ec)) return "exists and is not empty; new-plugin never overwrites files";
    return "";
}

bool writeFile(const fs::path& path, const std::string& text, bool executable, Io& io) {
    std::error_code ec;
    fs::create_directories(path.parent_path(), ec);
    std::ofstream out(path, std::ios::binary);
    out << text;
    out.close();
    if (ec || !out) {
        io.err << "error: cannot write " << path.string() << (ec ? ": " + ec.message() : "") << "\n";
        return false;
    }
    if (executable)
        fs::permissions(path, fs::perms::owner_exec | fs::perms::group_exec | fs::perms::others_exec,
                        fs::perm_options::add, ec);
    return true;
}

void printNextSteps(const fs::path& dir, const scaffold::Names& names, Io& io) {
    const std::string d = dir.string();
    io.out << "\nNext, with P the trainer-operator install prefix (bin/trainer-operator, lib/cmake/TrainerSDK):\n"
           << "  cd " << d << "\n"
           << "  ./ci.sh P                                          # configure, build, unit tests, golden cases\n"
           << "  P/bin/trainer-operator plugins --plugin-dir build/plugins\n"
           << "  cmake --install build --prefix P                   # beside the shipped plugins\n"
           << "  P/bin/trainer-operator render -f " << names.name << ".yaml\n"
           << "README.md in " << d << " says what to change.\n";
}

}  // namespace

int cmdNewPlugin(const Args& args, Io& io) {
    const std::string name = args.positional.at(0);
    if (auto why = scaffold::nameProblem(name)) return usageError(io, "NAME \"" + name + "\": " + *why);
    if (!args.has("kind")) return usageError(io, "--kind is required (" + kindList() + ")");
    const auto* kind = scaffold::findKind(args.get("kind"));
    if (!kind) return usageError(io, "--kind \"" + args.get("kind") + "\": unknown kind (" + kindList() + ")");
    const fs::path dir = args.get("dir", name);
    if (auto why = directoryProblem(dir); !why.empty()) return usageError(io, "--dir \"" + dir.string() + "\": " + why);
    const auto names = scaffold::namesOf(name);
    if (auto why = shippedConflict(*kind, names); !why.empty())
        return usageError(io, "NAME \"" + name + "\": the operator would refuse to load the plugin; " + why);

    io.out << "Writing " << kind->name << " plugin " << name << " (" << kind->summary << ") to " << dir.string()
           << ":\n";
    for (auto const& table : {scaffold::templateFiles("common"), kind->files})
        for (auto const& f : table) {
            const fs::path path = dir / scaffold::substitute(f.path, names);
            if (!writeFile(path, scaffold::substitute(f.text, names), f.executable, io)) return 1;
            io.out << "  " << path.string() << "\n";
        }
    printNextSteps(dir, names, io);
    return 0;
}

}  // namespace trainer::core::cli
