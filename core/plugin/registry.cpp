// Loading and rejection: the registry's directory scan and the per-file load sequence
// (trust checks and the single open, ELF check, hash and pins; then either dlopen through the
// open descriptor, entry point, descriptor checks, claims, create() here, or the same in a
// plugin-host child first, for files not shipped with the operator). Each refusal is one
// sentence naming the file and the reason (ABI rule 15).
#include "core/plugin/registry.hpp"

#include "core/plugin/call.hpp"
#include "core/plugin/claims.hpp"
#include "core/plugin/crash_context.hpp"
#include "core/plugin/hash_cache.hpp"
#include "core/plugin/isolation_client.hpp"
#include "core/plugin/registry_internal.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <functional>
#include <tuple>

namespace trainer::core {

namespace fs = std::filesystem;
using detail::EntryFn;
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

// The configuration's choice (enabled, disabled), uniqueness, pins and create/destroy.
std::optional<Refusal> admissionProblem(const PluginRegistry& reg, const std::string& name, bool lifecycle,
                                        const PluginOptions& options, const std::string& sha256) {
    auto listed = [&](const std::vector<std::string>& v) { return std::find(v.begin(), v.end(), name) != v.end(); };
    if (!options.enabled.empty() && !listed(options.enabled))
        return Refusal{"plugin " + name + " is not in the configuration's enabled list", "disabled"};
    if (listed(options.disabled)) return Refusal{"plugin " + name + " is disabled by the configuration", "disabled"};
    if (auto* other = reg.find(name))
        return Refusal{"a plugin named " + name + " is already loaded from " + other->path, "duplicate_name"};
    if (auto r = detail::pinMismatch(options.sha256, name, sha256)) return r;
    if (!lifecycle) return Refusal{"its descriptor has no create or destroy function", "bad_descriptor"};
    return std::nullopt;
}

// Claims (rule 12): one owner per claim (claims.hpp: a name pattern conflicts with every claim
// it shares a name with); the TrainJob status is an implicit claim.
std::optional<Refusal> conflictProblem(const PluginRegistry& reg, const ClaimIndex& held, const LoadedPlugin& p) {
    for (auto const& c : p.claims)
        if (auto* h = held.find(c)) {
            auto* owner = static_cast<const LoadedPlugin*>(h->owner);
            return Refusal{"its claim \"" + c + "\" " + (c == h->claim ? "is already held" : "overlaps \"" + std::string(h->claim) + "\", held") +
                               " by plugin " + owner->name + " (" + owner->path + ")",
                           "conflicting_claim"};
        }
    if (!p.implements(Hook::TrainJobStatus)) return std::nullopt;
    for (auto const& o : reg.plugins())
        if (o->implements(Hook::TrainJobStatus))
            return Refusal{"it implements TrainJobStatus, which plugin " + o->name + " (" + o->path +
                               ") already implements; too many TrainJob status plugins are registered",
                           "conflicting_claim"};
    return std::nullopt;
}

std::string configOf(const PluginOptions& options, const std::string& name) {
    return options.configs.count(name) ? options.configs.at(name) : "{}";
}

// Instance creation with the plugin's configuration.
std::optional<Refusal> createInstance(LoadedPlugin& p, const PluginOptions& options, const PluginLogSink& sink) {
    std::string config = configOf(options, p.name);
    trn_call call;
    call.plugin = &p;
    call.logSink = &sink;
    trn_instance* inst = nullptr;
    try {
        inst = p.descriptor->create(&call, trn_str{config.data(), config.size()});
    } catch (...) {
        return Refusal{"its create function threw an exception (ABI rule 7)", "create_failed"};
    }
    // Warnings (and any diagnostic) of a successful create() reach the log, as the sink promises.
    for (auto const& dg : call.diagnostics)
        if (inst && sink) sink(p.name, dg.severity == TRN_SEVERITY_ERROR ? TRN_LOG_ERROR : TRN_LOG_WARN,
                               (dg.path.empty() ? "" : dg.path + ": ") + dg.message);
    if (inst) {
        p.instance = inst;
        return std::nullopt;
    }
    std::string why;
    for (auto const& dg : call.diagnostics)
        if (dg.severity == TRN_SEVERITY_ERROR) why += (why.empty() ? "" : "; ") + dg.message;
    return Refusal{"its create function failed" + (why.empty() ? std::string() : ": " + why), "create_failed"};
}

// The file name of a path (what follows its last slash).
std::string_view fileNameOf(std::string_view path) { return path.substr(path.rfind('/') + 1); }  // npos + 1 == 0

bool isHidden(std::string_view path) { return fileNameOf(path).starts_with('.'); }

// Appends the path of every `*.so` entry of `dir` (a name with more than the extension, as
// std::filesystem's extension() sees it), in directory order; the error's text when the
// directory cannot be read. readdir, not std::filesystem: no path object per entry.
std::optional<std::string> soFilesIn(const std::string& dir, std::vector<std::string>& files) {
    std::unique_ptr<DIR, int (*)(DIR*)> d(::opendir(dir.c_str()), &::closedir);
    if (!d) return std::strerror(errno);
    const std::string prefix = dir.ends_with('/') ? dir : dir + '/';
    for (errno = 0; const dirent* e = ::readdir(d.get()); errno = 0) {
        const std::string_view name = e->d_name;
        if (name.size() > 3 && name.ends_with(".so")) files.push_back(prefix + e->d_name);
    }
    if (errno != 0) return std::strerror(errno);
    return std::nullopt;
}

// The directory of a file's path (no trailing slash: listDirectory's and loadFile's paths).
std::string_view directoryOf(std::string_view path) {
    const size_t slash = path.rfind('/');
    return slash == std::string_view::npos ? "." : slash == 0 ? "/" : path.substr(0, slash);
}

// The operator itself (`plugin-host` is one of its commands) unless the options name another.
std::string hostExecutable(const PluginOptions& options) {
    if (!options.isolation.hostExecutable.empty()) return options.isolation.hostExecutable;
    if (const char* env = std::getenv("TRAINER_PLUGIN_HOST"); env && *env) return env;
    std::error_code ec;
    auto self = fs::read_symlink("/proc/self/exe", ec);
    return ec ? std::string("/proc/self/exe") : self.string();
}

}  // namespace

PluginRegistry::PluginRegistry() : hashes_(std::make_unique<detail::HashCache>()) {}

int PluginRegistry::filesHashed() const { return hashes_->filesRead(); }

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
    auto it = byName_.find(name);
    return it == byName_.end() ? nullptr : it->second;
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

// Ordered by (priority, name), equal keys in load order: inserted after every plugin that does
// not come after it, which is where a stable sort of the whole list would put it (O(N) per load,
// not a sort of the list after each of N loads).
void PluginRegistry::insertSorted(std::unique_ptr<LoadedPlugin> p) {
    auto before = [](auto const& a, auto const& b) {
        return a->priority != b->priority ? a->priority < b->priority : a->name < b->name;
    };
    for (auto const& c : p->claims) claims_.add(c, p.get());
    byName_.emplace(p->name, p.get());
    if (plugins_.empty() || !before(p, plugins_.back())) {  // files load in name order: usually last
        plugins_.push_back(std::move(p));
        return;
    }
    auto at = std::upper_bound(plugins_.begin(), plugins_.end(), p, before);
    plugins_.insert(at, std::move(p));
}

namespace {

// One manifest line, "<64 lowercase hex>  <file>.so" (sha256sum's format, the file name without
// a slash), as (hash, file name); nullopt for any other line.
std::optional<std::pair<std::string, std::string>> manifestLine(std::string_view l) {
    constexpr size_t kHex = 64;
    if (l.size() < kHex + 2 + 4 || l.substr(kHex, 2) != "  " || !detail::isSha256Hex(l.substr(0, kHex))) return std::nullopt;
    std::string_view file = l.substr(kHex + 2);
    if (file.find('/') != std::string_view::npos || file.substr(file.size() - 3) != ".so") return std::nullopt;
    return std::make_pair(std::string(l.substr(0, kHex)), std::string(file));
}

// The manifest's lines as (hash, file name); empty when absent or untrusted.
std::vector<std::pair<std::string, std::string>> shippedManifest(const std::string& dir) {
    std::vector<std::pair<std::string, std::string>> out;
    detail::TrustedFile file;
    const std::string path = (fs::path(dir) / std::string(kShippedManifest)).string();
    std::error_code ec;
    if (!fs::exists(path, ec) || detail::TrustedFile::open(path, file)) return out;
    constexpr off_t kMaxBytes = 1 << 16;  // a longer manifest is read up to here
    std::string text(static_cast<size_t>(std::clamp<off_t>(file.status().st_size, 0, kMaxBytes)), '\0');
    ssize_t n = ::pread(file.fd(), text.data(), text.size(), 0);
    text.resize(n > 0 ? static_cast<size_t>(n) : 0);
    out.reserve(static_cast<size_t>(std::count(text.begin(), text.end(), '\n')) + 1);
    for (size_t start = 0; start < text.size();) {
        size_t end = text.find('\n', start);
        if (end == std::string::npos) end = text.size();
        if (auto entry = manifestLine(std::string_view(text).substr(start, end - start))) out.push_back(std::move(*entry));
        start = end + 1;
    }
    return out;
}

// Sorts `files` by name, shipped files first, so a claim conflict refuses the other file and
// never a shipped plugin: those the directory's manifest names, and copies of shipped files (by
// hash) in a directory without one. Only the order is decided here; loadFile checks and hashes.
// `hashOf` is the registry's (the hash cache's): a file hashed here is not read again to load it.
void shippedFirst(const std::unordered_set<std::string>& shippedNames, std::vector<std::string>& files, const PluginOptions& options,
                  const std::function<std::string(const std::string&)>& hashOf) {
    // (not shipped, file name, path): shipped sort first; the paths share their directory.
    std::vector<std::tuple<bool, std::string_view, std::string*>> keyed;
    keyed.reserve(files.size());
    for (auto& f : files) {
        const std::string name(fileNameOf(f));  // listDirectory's paths: dir + "/" + name
        const bool shipped = shippedNames.count(name) ||
                             (!options.shippedHashes.empty() && options.shippedHashes.count(hashOf(f)));
        keyed.emplace_back(!shipped, fileNameOf(f), &f);
    }
    std::sort(keyed.begin(), keyed.end());
    std::vector<std::string> sorted;
    sorted.reserve(files.size());
    for (auto& k : keyed) sorted.push_back(std::move(*std::get<2>(k)));
    files = std::move(sorted);
}

}  // namespace

std::unordered_set<std::string> readShippedManifest(const std::string& dir) {
    std::unordered_set<std::string> out;
    for (auto& [h, f] : shippedManifest(dir)) out.insert(std::move(h));
    return out;
}

void PluginRegistry::loadDirectory(const std::string& dir, const PluginOptions& options) {
    loadDirectories({dir}, options);
}

void PluginRegistry::loadDirectories(const std::vector<std::string>& dirs, const PluginOptions& given) {
    PluginOptions options = given;
    std::vector<std::string> unique;
    std::vector<std::unordered_set<std::string>> shippedNames;  // per directory of `unique`: its manifest's files
    std::set<std::string> seen;
    for (auto const& dir : dirs) {
        std::error_code ec;
        auto canonical = fs::weakly_canonical(dir, ec);
        if (!seen.insert(ec ? dir : canonical.string()).second) continue;
        unique.push_back(dir);
        shippedNames.emplace_back();
        auto manifest = shippedManifest(dir);
        options.shippedHashes.reserve(options.shippedHashes.size() + manifest.size());
        shippedNames.back().reserve(manifest.size());
        for (auto& [hash, file] : manifest) {
            options.shippedHashes.insert(std::move(hash));
            shippedNames.back().insert(std::move(file));
        }
    }
    std::vector<std::string> all;
    for (size_t i = 0; i < unique.size(); ++i) {
        const std::string& dir = unique[i];
        std::vector<std::string> files;
        if (!listDirectory(dir, shippedNames[i], options, files)) continue;
        for (auto const& f : files) {
            if (isHidden(f)) reject(f, "plugin " + f + " was rejected: it is a hidden file (its name starts with a dot).", "hidden_file");
            else loadOne(f, options);
        }
        all.insert(all.end(), files.begin(), files.end());
    }
    hashes_->save();
    reportUnmatchedPins(unique, all, options);
}

bool PluginRegistry::listDirectory(const std::string& dir, const std::unordered_set<std::string>& shippedNames,
                                   const PluginOptions& options, std::vector<std::string>& files) {
    std::error_code ec;
    if (!fs::is_directory(dir, ec)) {
        reject(dir, "plugin directory " + dir + " does not exist or is not a directory", "no_directory");
        return false;
    }
    if (auto r = detail::untrustedDirectory(dir)) {
        reject(dir, "plugin directory " + dir + " was rejected: " + r->why + ".", r->code);
        return false;
    }
    if (auto failure = soFilesIn(dir, files)) {
        reject(dir, "plugin directory " + dir + " cannot be read: " + *failure, "no_directory");
        return false;
    }
    shippedFirst(shippedNames, files, options, [this](const std::string& path) {
        detail::TrustedFile file;  // unreadable or untrusted: not shipped (loading it says why)
        return detail::TrustedFile::open(path, file) ? std::string() : hashes_->sha256(directoryOf(path), file.fd(), file.status());
    });
    return true;
}

// A pin that names no file of the directories and no loaded plugin protects nothing: say so.
void PluginRegistry::reportUnmatchedPins(const std::vector<std::string>& dirs, const std::vector<std::string>& files,
                                         const PluginOptions& options) {
    std::string where;
    for (auto const& d : dirs) where += (where.empty() ? "" : " or ") + d;
    for (auto const& [key, hash] : options.sha256) {
        bool matched = find(key) != nullptr;
        for (auto const& f : files) {
            const std::string name = fs::path(f).filename().string();
            matched = matched || name == key || name == key + ".so";
        }
        if (!matched)
            reject(dirs.empty() ? std::string() : dirs.front(),
                   "plugins.sha256[" + key + "] pins a plugin that is not in " + where + " (no file " +
                       (key.size() > 3 && key.substr(key.size() - 3) == ".so" ? key : key + ".so") +
                       ", no loaded plugin of that name).",
                   "pin_unmatched");
    }
}

bool PluginRegistry::loadFile(const std::string& path, const PluginOptions& options) {
    const bool loaded = loadOne(path, options);
    hashes_->save();
    return loaded;
}

bool PluginRegistry::loadOne(const std::string& path, const PluginOptions& options) {
    auto refuse = [&](const Refusal& r) {
        reject(path, "plugin " + path + " was rejected: " + r.why + ".", r.code);
        return false;
    };
    detail::TrustedFile file;
    if (auto r = detail::TrustedFile::open(path, file)) return refuse(*r);
    const std::string sha256 = hashes_->sha256(directoryOf(path), file.fd(), file.status());
    if (sha256.empty()) return refuse({"it cannot be read", "read_failed"});
    const bool shipped = options.shippedHashes.count(sha256) > 0;
    // A shipped file's bytes are the build's (its hash is in the manifest): its header was
    // checked when the build produced it. Every other file's is checked here.
    if (!shipped)
        if (auto problem = detail::elfProblem(file.fd()); !problem.empty()) return refuse({problem, "not_elf"});
    if (!options.sha256.empty())
        if (auto r = detail::pinMismatch(options.sha256, std::string(fileNameOf(path)), sha256)) return refuse(*r);
    // A file not shipped with the operator runs its code in a child first: a constructor or
    // create() that crashes costs the file, never the operator.
    if (!shipped || options.isolation.processPossibleForShipped())
        return loadInChild(path, file, sha256, shipped, options);
    return loadInProcess(path, file, sha256, shipped, options);
}

std::string PluginRegistry::shownPath(const std::string& path) {
    const std::string_view dir = directoryOf(path);
    auto it = shownDirs_.find(dir);
    if (it == shownDirs_.end()) {
        std::string shown = fs::absolute(dir).lexically_normal().string();
        if (shown.empty() || shown.back() != '/') shown += '/';
        it = shownDirs_.emplace(std::string(dir), std::move(shown)).first;
    }
    const std::string_view name = fileNameOf(path);
    std::string out;
    out.reserve(it->second.size() + name.size());
    return out.append(it->second).append(name);
}

bool PluginRegistry::loadInProcess(const std::string& path, detail::TrustedFile& file, const std::string& sha256,
                                   bool shipped, const PluginOptions& options) {
    auto refuse = [&](const Refusal& r) {
        reject(path, "plugin " + path + " was rejected: " + r.why + ".", r.code);
        return false;
    };
    HookScope loading(path, "load");  // its constructors and entry point run here (crash_context.hpp)
    EntryFn* entry = nullptr;
    if (auto r = detail::loadLibrary(file, path, entry)) return refuse(*r);
    return admitEntry(entry, path, shownPath(path), sha256, shipped, options);
}

bool PluginRegistry::admitEntry(EntryFn* entry, const std::string& path, const std::string& shownPath,
                                const std::string& sha256, bool shipped, const PluginOptions& options) {
    auto refuse = [&](const Refusal& r) {
        reject(path, "plugin " + path + " was rejected: " + r.why + ".", r.code);
        return false;
    };
    const trn_plugin_descriptor* d = nullptr;
    if (auto r = detail::callEntry(entry, detail::hostInfo(), d)) return refuse(*r);
    if (auto r = detail::headerProblem(d, detail::hostInfo())) return refuse(*r);
    if (auto r = admissionProblem(*this, d->name, d->create && d->destroy, options, sha256)) return refuse(*r);

    auto p = detail::makePlugin(d, shownPath, sha256, options);
    p->shipped = shipped;
    if (auto r = detail::readDescriptor(d, *p)) return refuse(*r);
    if (auto r = detail::policyHookProblem(*p)) return refuse(*r);
    if (auto r = conflictProblem(*this, claims_, *p)) return refuse(*r);
    HookScope creating(p->name, "create");
    if (auto r = createInstance(*p, options, logSink_)) return refuse(*r);
    insertSorted(std::move(p));
    return true;
}

bool PluginRegistry::loadInChild(const std::string& path, detail::TrustedFile& file, const std::string& sha256,
                                 bool shipped, const PluginOptions& options) {
    auto refuse = [&](const Refusal& r) {
        reject(path, "plugin " + path + " was rejected: " + r.why + ".", r.code);
        return false;
    };
    isolation::ChildSpec spec{hostExecutable(options), ::fcntl(file.fd(), F_DUPFD_CLOEXEC, 0), path, sha256,
                              options.isolation.limits, options.isolation.breaker};
    auto p = std::make_unique<LoadedPlugin>();
    bool lifecycle = false;
    std::unique_ptr<isolation::RemotePlugin> child;
    if (auto r = isolation::RemotePlugin::start(std::move(spec), *p, lifecycle, child)) return refuse(*r);
    if (auto r = admissionProblem(*this, p->name, lifecycle, options, sha256)) return refuse(*r);
    if (auto r = detail::policyHookProblem(*p)) return refuse(*r);  // before its create() runs
    child->setLimits(options.isolation.limitsFor(p->name));
    child->setObserver(&isolationObserver_);
    const bool here = options.isolation.modeFor(p->name, shipped) == Isolation::InProcess;
    // A probe's create() logs nothing: the in-process create() that follows speaks for it.
    if (auto r = child->create(p->name, configOf(options, p->name), here ? nullptr : &logSink_)) return refuse(*r);
    if (here) {
        child->discard();  // the child survived loading and create(): now load it here
        child.reset();
        return loadInProcess(path, file, sha256, shipped, options);
    }
    p->path = shownPath(path);
    p->sha256 = sha256;
    p->shipped = shipped;
    p->isolation = Isolation::Process;
    if (auto it = options.priorities.find(p->name); it != options.priorities.end()) p->priority = it->second;
    if (auto r = conflictProblem(*this, claims_, *p)) return refuse(*r);
    p->remote = std::move(child);
    insertSorted(std::move(p));
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
