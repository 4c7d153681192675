// Loading and rejection: the registry's directory scan and the per-file load sequence
// (trust checks and the single open, ELF check, hash and pins, dlopen through the open
// descriptor, entry point, descriptor checks, claims, create()). Each refusal is one
// sentence naming the file and the reason (ABI rule 15).
#include "core/plugin/registry.hpp"

#include "core/plugin/call.hpp"
#include "core/plugin/registry_internal.hpp"

#include <boost/dll/shared_library.hpp>

#include <dlfcn.h>

#include <algorithm>
#include <filesystem>
#include <regex>

namespace trainer::core {

namespace fs = std::filesystem;
using detail::Refusal;

const char* hookName(Hook h) {
    for (auto const& i : kHooks)
        if (i.hook == h) return i.name;
    return "?";
}

std::vector<std::string> LoadedPlugin::extensionPoints() const {
    std::vector<std::string> out;
    for (auto const& i : kHooks)
        if (implements(i.hook)) out.emplace_back(i.name);
    return out;
}

namespace {

using EntryFn = const trn_plugin_descriptor*(const trn_host_info*);

// Libraries are never unloaded (rule 8): handles move here and live until process exit, and
// so does the descriptor each was loaded through, so that no later file gets the same
// /proc/self/fd/<n> name (the dynamic loader would hand back the earlier library by name).
struct KeptLibrary {
    boost::dll::shared_library library;
    int fd;
};
void keep(boost::dll::shared_library lib, int fd) {
    static auto* libs = new std::vector<KeptLibrary>();
    static std::mutex m;
    std::lock_guard<std::mutex> g(m);
    libs->push_back(KeptLibrary{std::move(lib), fd});
}

std::string replaceAll(std::string s, const std::string& from, const std::string& to) {
    for (size_t at = s.find(from); !from.empty() && at != std::string::npos; at = s.find(from, at + to.size()))
        s.replace(at, from.size(), to);
    return s;
}

// dlopen through the open descriptor, so what runs is what was checked and hashed.
std::optional<Refusal> loadLibrary(detail::TrustedFile& file, const std::string& path, EntryFn*& entry) {
    boost::dll::shared_library lib;
    boost::dll::fs::error_code dlErr;
    const std::string via = file.procPath();
    lib.load(via, boost::dll::load_mode::rtld_now | boost::dll::load_mode::rtld_local, dlErr);
    if (dlErr || !lib.is_loaded()) {
        const char* why = dlerror();
        return Refusal{"it cannot be loaded (" + replaceAll(why ? why : dlErr.message(), via, path) + ")", "load_failed"};
    }
    if (!lib.has(TRN_ENTRY_SYMBOL)) {
        keep({}, file.release());  // the library is unloaded, its descriptor number stays taken
        return Refusal{std::string("it has no entry point ") + TRN_ENTRY_SYMBOL, "no_entry_point"};
    }
    entry = &lib.get<EntryFn>(TRN_ENTRY_SYMBOL);
    keep(std::move(lib), file.release());
    return std::nullopt;
}

std::optional<Refusal> callEntry(EntryFn* entry, const trn_host_info& host, const trn_plugin_descriptor*& d) {
    try {
        d = entry(&host);
    } catch (...) {
        return Refusal{"its entry point threw an exception (ABI rule 7)", "entry_threw"};
    }
    if (!d) return Refusal{"its entry point returned no descriptor", "no_descriptor"};
    return std::nullopt;
}

std::optional<Refusal> headerProblem(const trn_plugin_descriptor* d, const trn_host_info& host) {
    const size_t minimum = offsetof(trn_plugin_descriptor, destroy) + sizeof(d->destroy);
    if (d->struct_size < minimum)
        return Refusal{"its descriptor is " + std::to_string(d->struct_size) + " bytes, smaller than the " +
                           std::to_string(minimum) + " bytes every ABI 1.x descriptor has",
                       "descriptor_too_small"};
    if ((d->abi_version >> 16) != TRN_ABI_MAJOR || d->abi_version < host.abi_min || d->abi_version > host.abi_max)
        return Refusal{"it was built for ABI " + detail::abiString(d->abi_version) + ", not in the host's range " +
                           detail::abiString(host.abi_min) + "-" + detail::abiString(host.abi_max),
                       "abi_out_of_range"};
    static const std::regex nameRe("^[a-z0-9]([-a-z0-9]*[a-z0-9])?$");
    std::string name = d->name ? d->name : "";
    if (!std::regex_match(name, nameRe))
        return Refusal{"its name \"" + name + "\" is not a lowercase DNS label", "bad_name"};
    return std::nullopt;
}

// The configuration's choice (enabled, disabled), uniqueness, pins and create/destroy.
std::optional<Refusal> admissionProblem(const PluginRegistry& reg, const trn_plugin_descriptor* d,
                                        const PluginOptions& options, const std::string& sha256) {
    const std::string name = d->name;
    auto listed = [&](const std::vector<std::string>& v) { return std::find(v.begin(), v.end(), name) != v.end(); };
    if (!options.enabled.empty() && !listed(options.enabled))
        return Refusal{"plugin " + name + " is not in the configuration's enabled list", "disabled"};
    if (listed(options.disabled)) return Refusal{"plugin " + name + " is disabled by the configuration", "disabled"};
    if (auto* other = reg.find(name))
        return Refusal{"a plugin named " + name + " is already loaded from " + other->path, "duplicate_name"};
    if (auto r = detail::pinMismatch(options.sha256, name, sha256)) return r;
    if (!d->create || !d->destroy) return Refusal{"its descriptor has no create or destroy function", "bad_descriptor"};
    return std::nullopt;
}

std::unique_ptr<LoadedPlugin> makePlugin(const trn_plugin_descriptor* d, const std::string& path,
                                         const std::string& sha256, const PluginOptions& options) {
    auto p = std::make_unique<LoadedPlugin>();
    p->name = d->name;
    p->version = d->version ? d->version : "";
    p->description = d->description ? d->description : "";
    p->path = fs::absolute(path).lexically_normal().string();
    p->sha256 = sha256;
    p->abi = d->abi_version;
    p->priority = options.priorities.count(p->name) ? options.priorities.at(p->name) : d->priority;
    p->threadSafe = (d->flags & TRN_PLUGIN_THREAD_SAFE) != 0;
    p->descriptor = d;
    if (!p->threadSafe) p->serial = std::make_unique<std::mutex>();
    return p;
}

// Claims (rule 12): one owner per claim; the TrainJob status is an implicit claim.
std::optional<Refusal> conflictProblem(const PluginRegistry& reg, const LoadedPlugin& p) {
    for (auto const& c : p.claims)
        if (auto* owner = reg.claimOwner(c))
            return Refusal{"its claim \"" + c + "\" is already held by plugin " + owner->name + " (" + owner->path + ")",
                           "conflicting_claim"};
    if (!p.implements(Hook::TrainJobStatus)) return std::nullopt;
    for (auto const& o : reg.plugins())
        if (o->implements(Hook::TrainJobStatus))
            return Refusal{"it implements TrainJobStatus, which plugin " + o->name + " (" + o->path +
                               ") already implements; too many TrainJob status plugins are registered",
                           "conflicting_claim"};
    return std::nullopt;
}

// Instance creation with the plugin's configuration.
std::optional<Refusal> createInstance(LoadedPlugin& p, const PluginOptions& options, const PluginLogSink& sink) {
    std::string config = options.configs.count(p.name) ? options.configs.at(p.name) : "{}";
    trn_call call;
    call.plugin = &p;
    call.logSink = &sink;
    trn_instance* inst = nullptr;
    try {
        inst = p.descriptor->create(&call, trn_str{config.data(), config.size()});
    } catch (...) {
        return Refusal{"its create function threw an exception (ABI rule 7)", "create_failed"};
    }
    if (inst) {
        p.instance = inst;
        return std::nullopt;
    }
    std::string why;
    for (auto const& dg : call.diagnostics)
        if (dg.severity == TRN_SEVERITY_ERROR) why += (why.empty() ? "" : "; ") + dg.message;
    return Refusal{"its create function failed" + (why.empty() ? std::string() : ": " + why), "create_failed"};
}

const trn_host_info& hostInfo() {
    static const std::string hostVersion = TRAINER_VERSION;
    static const trn_host_info host{sizeof(trn_host_info), TRN_ABI_ENCODE(TRN_ABI_MAJOR, 0), TRN_ABI_VERSION,
                                    trn_str{hostVersion.data(), hostVersion.size()}, PluginRegistry::hostApi()};
    return host;
}

bool isHidden(const fs::path& p) { return p.filename().string().rfind('.', 0) == 0; }

}  // namespace

PluginRegistry::PluginRegistry() = default;

PluginRegistry::~PluginRegistry() {
    // Instances die before the registry; libraries stay mapped (rule 8).
    for (auto& p : plugins_)
        if (p->instance && p->descriptor && p->descriptor->destroy) {
            try {
                p->descriptor->destroy(p->instance);
            } catch (...) {
            }
            p->instance = nullptr;
        }
}

void PluginRegistry::reject(const std::string& path, std::string reason, std::string code) {
    rejected_.push_back(Rejection{path, std::move(reason), std::move(code)});
}

const LoadedPlugin* PluginRegistry::find(std::string_view name) const {
    for (auto const& p : plugins_)
        if (p->name == name) return p.get();
    return nullptr;
}

const LoadedPlugin* PluginRegistry::claimOwner(std::string_view claim) const {
    for (auto const& p : plugins_)
        if (std::find(p->claims.begin(), p->claims.end(), claim) != p->claims.end()) return p.get();
    return nullptr;
}

std::string PluginRegistry::names() const {
    std::string out;
    for (auto const& p : plugins_) out += (out.empty() ? "" : ", ") + p->name;
    return out.empty() ? "none" : out;
}

void PluginRegistry::sortPlugins() {
    std::stable_sort(plugins_.begin(), plugins_.end(), [](auto const& a, auto const& b) {
        return a->priority != b->priority ? a->priority < b->priority : a->name < b->name;
    });
}

void PluginRegistry::loadDirectory(const std::string& dir, const PluginOptions& options) {
    std::error_code ec;
    if (!fs::is_directory(dir, ec)) {
        reject(dir, "plugin directory " + dir + " does not exist or is not a directory", "no_directory");
        return;
    }
    if (auto r = detail::untrustedDirectory(dir)) {
        reject(dir, "plugin directory " + dir + " was rejected: " + r->why + ".", r->code);
        return;
    }
    std::vector<std::string> files;
    for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec))
        if (it->path().extension() == ".so") files.push_back(it->path().string());
    if (ec) {
        reject(dir, "plugin directory " + dir + " cannot be read: " + ec.message(), "no_directory");
        return;
    }
    std::sort(files.begin(), files.end());
    for (auto const& f : files) {
        if (isHidden(f)) reject(f, "plugin " + f + " was rejected: it is a hidden file (its name starts with a dot).", "hidden_file");
        else loadFile(f, options);
    }
}

bool PluginRegistry::loadFile(const std::string& path, const PluginOptions& options) {
    auto refuse = [&](const Refusal& r) {
        reject(path, "plugin " + path + " was rejected: " + r.why + ".", r.code);
        return false;
    };
    detail::TrustedFile file;
    if (auto r = detail::TrustedFile::open(path, file)) return refuse(*r);
    if (auto problem = detail::elfProblem(file.fd()); !problem.empty()) return refuse({problem, "not_elf"});
    const std::string sha256 = detail::sha256Fd(file.fd());
    if (sha256.empty()) return refuse({"it cannot be read", "read_failed"});
    if (auto r = detail::pinMismatch(options.sha256, fs::path(path).filename().string(), sha256)) return refuse(*r);

    EntryFn* entry = nullptr;
    if (auto r = loadLibrary(file, path, entry)) return refuse(*r);
    const trn_plugin_descriptor* d = nullptr;
    if (auto r = callEntry(entry, hostInfo(), d)) return refuse(*r);
    if (auto r = headerProblem(d, hostInfo())) return refuse(*r);
    if (auto r = admissionProblem(*this, d, options, sha256)) return refuse(*r);

    auto p = makePlugin(d, path, sha256, options);
    if (auto r = detail::readDescriptor(d, *p)) return refuse(*r);
    if (auto r = conflictProblem(*this, *p)) return refuse(*r);
    if (auto r = createInstance(*p, options, logSink_)) return refuse(*r);
    plugins_.push_back(std::move(p));
    sortPlugins();
    return true;
}

std::vector<std::pair<std::string, std::string>> PluginRegistry::pluginKinds() const {
    std::vector<std::pair<std::string, std::string>> out;
    auto add = [&](std::string apiVersion, std::string kind) {
        std::pair<std::string, std::string> k{std::move(apiVersion), std::move(kind)};
        if (!k.second.empty() && std::find(out.begin(), out.end(), k) == out.end()) out.push_back(std::move(k));
    };
    for (auto const& p : plugins_) {
        for (auto const& c : p->claims)
            if (c.rfind("kind:", 0) == 0)
                if (auto slash = c.rfind('/'); slash != std::string::npos && slash > 5)
                    add(c.substr(5, slash - 5), c.substr(slash + 1));
        for (auto const& w : p->watches) add(w.apiVersion, w.kind);
    }
    return out;
}

std::string pinsYaml(const PluginRegistry& reg) {
    std::string out = "plugins:\n  sha256:";
    if (reg.plugins().empty()) return out + " {}\n";
    out += "\n";
    std::vector<const LoadedPlugin*> sorted;
    for (auto const& p : reg.plugins()) sorted.push_back(p.get());
    // Keyed by file name: such a pin is checked before any of the file's code runs.
    auto file = [](const LoadedPlugin* p) { return fs::path(p->path).filename().string(); };
    std::sort(sorted.begin(), sorted.end(), [&](auto* a, auto* b) { return file(a) < file(b); });
    for (auto* p : sorted) out += "    " + file(p) + ": \"" + p->sha256 + "\"  # " + p->name + "\n";
    return out;
}

}  // namespace trainer::core
