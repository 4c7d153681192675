#include "core/plugin/registry.hpp"

#include "core/plugin/call.hpp"

#include <boost/dll/shared_library.hpp>
#include <openssl/evp.h>

#include <dlfcn.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

namespace trainer::core {

namespace fs = std::filesystem;

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

std::string abiString(uint32_t v) { return std::to_string(v >> 16) + "." + std::to_string(v & 0xffffu); }

// Libraries are never unloaded (rule 8): handles move here and live until process exit.
std::vector<boost::dll::shared_library>& keptLibraries() {
    static auto* libs = new std::vector<boost::dll::shared_library>();
    return *libs;
}
std::mutex& keptLibrariesMutex() {
    static std::mutex m;
    return m;
}

std::string sha256File(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) return {};
    EVP_MD_CTX* ctx = EVP_MD_CTX_new();
    EVP_DigestInit_ex(ctx, EVP_sha256(), nullptr);
    char buf[65536];
    while (in) {
        in.read(buf, sizeof buf);
        if (in.gcount() > 0) EVP_DigestUpdate(ctx, buf, static_cast<size_t>(in.gcount()));
    }
    unsigned char md[EVP_MAX_MD_SIZE];
    unsigned int n = 0;
    EVP_DigestFinal_ex(ctx, md, &n);
    EVP_MD_CTX_free(ctx);
    static const char* hex = "0123456789abcdef";
    std::string out;
    for (unsigned i = 0; i < n; ++i) {
        out += hex[md[i] >> 4];
        out += hex[md[i] & 15];
    }
    return out;
}

// Reads the ELF header: "" when it is a 64-bit shared object for this machine, else why not.
std::string elfProblem(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) return "it cannot be read";
    unsigned char h[20] = {};
    in.read(reinterpret_cast<char*>(h), sizeof h);
    if (in.gcount() < 20 || std::memcmp(h, "\x7f" "ELF", 4) != 0) return "it is not an ELF shared object";
    uint16_t type = static_cast<uint16_t>(h[16] | (h[17] << 8));
    if (type != 3 /* ET_DYN */) return "it is an ELF file but not a shared object";
    return {};
}

// Field `member` of a size-prefixed struct is present when struct_size covers it (rule 4).
template <class S, class M>
bool has(const S* s, M S::*member) {
    auto offset = reinterpret_cast<size_t>(&(static_cast<S*>(nullptr)->*member));
    return s->struct_size >= offset + sizeof(M);
}

void hostLog(trn_call* call, int32_t level, trn_str message) {
    if (!call || !call->logSink || !*call->logSink || !call->plugin) return;
    (*call->logSink)(call->plugin->name, level, std::string_view(message.data ? message.data : "", message.size));
}
void hostDiagnostic(trn_call* call, int32_t severity, trn_str path, trn_str message) {
    if (!call) return;
    call->diagnostics.push_back({severity, std::string(path.data ? path.data : "", path.size),
                                 std::string(message.data ? message.data : "", message.size)});
}
void hostEmit(trn_call* call, trn_str doc) {
    if (!call) return;
    call->emitted.emplace_back(doc.data ? doc.data : "", doc.size);
}
int32_t hostLookup(trn_call* call, trn_str apiVersion, trn_str kind, trn_str ns, trn_str name, trn_str* out) {
    if (!call || !call->cluster || !out) return TRN_LOOKUP_NOT_FOUND;
    auto s = [](trn_str x) { return std::string(x.data ? x.data : "", x.size); };
    auto obj = call->cluster->get(ObjectKey{s(apiVersion), s(kind), s(ns), s(name)});
    if (!obj) return TRN_LOOKUP_NOT_FOUND;
    call->lookups.push_back(boost::json::serialize(*obj));
    *out = trn_str{call->lookups.back().data(), call->lookups.back().size()};
    return TRN_LOOKUP_FOUND;
}

const trn_host_api kHostApi{sizeof(trn_host_api), &hostLog, &hostDiagnostic, &hostEmit, &hostLookup};

}  // namespace

const trn_host_api* PluginRegistry::hostApi() { return &kHostApi; }

bool CallResult::ok() const {
    if (status != TRN_OK) return false;
    return std::none_of(diagnostics.begin(), diagnostics.end(),
                        [](auto const& d) { return d.severity == TRN_SEVERITY_ERROR; });
}

CallResult invokeHook(const LoadedPlugin& plugin, Hook hook, std::string_view input, const ClusterReader* cluster,
                      const PluginLogSink* logSink, const HookObserver* observer) {
    CallResult r;
    auto it = plugin.hooks.find(hook);
    if (it == plugin.hooks.end()) return r;
    trn_call call;
    call.plugin = &plugin;
    call.logSink = logSink;
    call.cluster = cluster;
    auto start = std::chrono::steady_clock::now();
    {
        std::unique_lock<std::mutex> lock;
        if (plugin.serial) lock = std::unique_lock<std::mutex>(*plugin.serial);
        try {
            r.status = it->second(plugin.instance, &call, trn_str{input.data(), input.size()});
        } catch (...) {
            // A plugin built without the SDK let an exception escape (rule 7 broken).
            r.status = TRN_ERROR;
            call.diagnostics.push_back({TRN_SEVERITY_ERROR, "",
                                        "plugin " + plugin.name + " let an exception escape from " + hookName(hook) +
                                            " (ABI rule 7); its result is discarded"});
        }
    }
    double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (r.status != TRN_OK && std::none_of(call.diagnostics.begin(), call.diagnostics.end(),
                                           [](auto const& d) { return d.severity == TRN_SEVERITY_ERROR; }))
        call.diagnostics.push_back({TRN_SEVERITY_ERROR, "",
                                    "plugin " + plugin.name + " failed in " + hookName(hook) + " without a message"});
    r.diagnostics = std::move(call.diagnostics);
    r.emitted = std::move(call.emitted);
    if (observer && *observer) (*observer)(plugin, hook, secs, r.ok());
    return r;
}

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
    std::vector<std::string> files;
    for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec))
        if (it->path().extension() == ".so") files.push_back(it->path().string());
    if (ec) {
        reject(dir, "plugin directory " + dir + " cannot be read: " + ec.message(), "no_directory");
        return;
    }
    std::sort(files.begin(), files.end());
    for (auto const& f : files) loadFile(f, options);
}

bool PluginRegistry::loadFile(const std::string& path, const PluginOptions& options) {
    const std::string file = fs::path(path).filename().string();
    auto refuse = [&](std::string why, std::string code) {
        reject(path, "plugin " + path + " was rejected: " + why + ".", std::move(code));
        return false;
    };
    std::error_code ec;
    if (!fs::is_regular_file(path, ec)) return refuse("it is not a regular file", "not_a_file");
    if (auto problem = elfProblem(path); !problem.empty()) return refuse(problem, "not_elf");

    boost::dll::shared_library lib;
    boost::dll::fs::error_code dlErr;
    lib.load(path, boost::dll::load_mode::rtld_now | boost::dll::load_mode::rtld_local, dlErr);
    if (dlErr || !lib.is_loaded()) {
        const char* why = dlerror();
        return refuse(std::string("it cannot be loaded (") + (why ? why : dlErr.message()) + ")", "load_failed");
    }
    if (!lib.has(TRN_ENTRY_SYMBOL))
        return refuse(std::string("it has no entry point ") + TRN_ENTRY_SYMBOL, "no_entry_point");
    auto entry = lib.get<const trn_plugin_descriptor*(const trn_host_info*)>(TRN_ENTRY_SYMBOL);
    {
        std::lock_guard<std::mutex> g(keptLibrariesMutex());
        keptLibraries().push_back(lib);
    }

    static const std::string hostVersion = TRAINER_VERSION;
    trn_host_info host{sizeof(trn_host_info), TRN_ABI_ENCODE(TRN_ABI_MAJOR, 0), TRN_ABI_VERSION,
                       trn_str{hostVersion.data(), hostVersion.size()}, &kHostApi};
    const trn_plugin_descriptor* d = nullptr;
    try {
        d = entry(&host);
    } catch (...) {
        return refuse("its entry point threw an exception (ABI rule 7)", "entry_threw");
    }
    if (!d) return refuse("its entry point returned no descriptor", "no_descriptor");
    if (d->struct_size < offsetof(trn_plugin_descriptor, destroy) + sizeof(d->destroy))
        return refuse("its descriptor is " + std::to_string(d->struct_size) + " bytes, smaller than the " +
                          std::to_string(offsetof(trn_plugin_descriptor, destroy) + sizeof(d->destroy)) +
                          " bytes every ABI 1.x descriptor has",
                      "descriptor_too_small");
    if ((d->abi_version >> 16) != TRN_ABI_MAJOR || d->abi_version < host.abi_min || d->abi_version > host.abi_max)
        return refuse("it was built for ABI " + abiString(d->abi_version) + ", not in the host's range " +
                          abiString(host.abi_min) + "-" + abiString(host.abi_max),
                      "abi_out_of_range");
    static const std::regex nameRe("^[a-z0-9]([-a-z0-9]*[a-z0-9])?$");
    std::string name = d->name ? d->name : "";
    if (!std::regex_match(name, nameRe))
        return refuse("its name \"" + name + "\" is not a lowercase DNS label", "bad_name");
    if (!options.enabled.empty() &&
        std::find(options.enabled.begin(), options.enabled.end(), name) == options.enabled.end())
        return refuse("plugin " + name + " is not in the configuration's enabled list", "disabled");
    if (std::find(options.disabled.begin(), options.disabled.end(), name) != options.disabled.end())
        return refuse("plugin " + name + " is disabled by the configuration", "disabled");
    if (auto* other = find(name))
        return refuse("a plugin named " + name + " is already loaded from " + other->path, "duplicate_name");
    if (!d->create || !d->destroy) return refuse("its descriptor has no create or destroy function", "bad_descriptor");

    auto p = std::make_unique<LoadedPlugin>();
    p->name = name;
    p->version = d->version ? d->version : "";
    p->description = d->description ? d->description : "";
    p->path = fs::absolute(path).lexically_normal().string();
    p->abi = d->abi_version;
    p->priority = options.priorities.count(name) ? options.priorities.at(name) : d->priority;
    p->threadSafe = (d->flags & TRN_PLUGIN_THREAD_SAFE) != 0;
    p->descriptor = d;
    if (!p->threadSafe) p->serial = std::make_unique<std::mutex>();

    if (has(d, &trn_plugin_descriptor::claim_count) && d->claim_count > 0) {
        if (!d->claims) return refuse("its descriptor lists claims but no claim array", "bad_descriptor");
        for (size_t i = 0; i < d->claim_count; ++i) {
            if (!d->claims[i] || !*d->claims[i]) return refuse("its claim #" + std::to_string(i) + " is empty", "bad_descriptor");
            p->claims.emplace_back(d->claims[i]);
        }
    }
    // Hook tables: each is read only if the descriptor is large enough to hold its pointer,
    // and each table only if its own struct_size covers the function (rule 4).
    auto addHook = [&](Hook h, auto* table, auto fnMember) -> bool {
        if (!table) return true;
        if (!has(table, fnMember)) return true;  // older table without this function: not provided
        if (auto fn = table->*fnMember) p->hooks[h] = fn;
        return true;
    };
    if (has(d, &trn_plugin_descriptor::custom_validation))
        addHook(Hook::CustomValidation, d->custom_validation, &trn_custom_validation::validate);
    if (has(d, &trn_plugin_descriptor::enforce_ml_policy))
        addHook(Hook::EnforceMLPolicy, d->enforce_ml_policy, &trn_enforce_ml_policy::enforce);
    if (has(d, &trn_plugin_descriptor::enforce_pod_group_policy))
        addHook(Hook::EnforcePodGroupPolicy, d->enforce_pod_group_policy, &trn_enforce_pod_group_policy::enforce);
    if (has(d, &trn_plugin_descriptor::enforce_pod_spec))
        addHook(Hook::EnforcePodSpec, d->enforce_pod_spec, &trn_enforce_pod_spec::enforce);
    if (has(d, &trn_plugin_descriptor::pre_component_builder))
        addHook(Hook::PreComponentBuilder, d->pre_component_builder, &trn_pre_component_builder::build);
    if (has(d, &trn_plugin_descriptor::component_builder))
        addHook(Hook::ComponentBuilder, d->component_builder, &trn_component_builder::build);
    if (has(d, &trn_plugin_descriptor::trainjob_status))
        addHook(Hook::TrainJobStatus, d->trainjob_status, &trn_trainjob_status::status);
    if (has(d, &trn_plugin_descriptor::watch_extension) && d->watch_extension) {
        auto* we = d->watch_extension;
        if (has(we, &trn_watch_extension::watch_count) && we->watch_count > 0) {
            if (!we->watches) return refuse("its WatchExtension lists watches but no array", "bad_descriptor");
            for (size_t i = 0; i < we->watch_count; ++i) {
                const trn_watch* w = we->watches[i];
                if (!w || !has(w, &trn_watch::kind) || !w->api_version || !w->kind)
                    return refuse("its watch #" + std::to_string(i) + " has no apiVersion or kind", "bad_descriptor");
                WatchSpec ws{w->api_version, w->kind, TRN_WATCH_OWNED, {}};
                if (has(w, &trn_watch::mode)) ws.mode = w->mode;
                if (has(w, &trn_watch::match_field) && w->match_field) ws.matchField = w->match_field;
                if (ws.mode < TRN_WATCH_OWNED || ws.mode > TRN_WATCH_SUSPENDED_MATCHING)
                    return refuse("its watch of " + ws.kind + " has unknown mode " + std::to_string(ws.mode),
                                  "bad_descriptor");
                p->watches.push_back(std::move(ws));
            }
        }
    }
    // Claims (rule 12): one owner per claim; the TrainJob status is an implicit claim.
    for (auto const& c : p->claims)
        if (auto* owner = claimOwner(c))
            return refuse("its claim \"" + c + "\" is already held by plugin " + owner->name + " (" + owner->path + ")",
                          "conflicting_claim");
    if (p->implements(Hook::TrainJobStatus))
        for (auto const& o : plugins_)
            if (o->implements(Hook::TrainJobStatus))
                return refuse("it implements TrainJobStatus, which plugin " + o->name + " (" + o->path +
                                  ") already implements; too many TrainJob status plugins are registered",
                              "conflicting_claim");

    p->sha256 = sha256File(path);
    // Instance creation with the plugin's configuration.
    std::string config = options.configs.count(name) ? options.configs.at(name) : "{}";
    trn_call call;
    call.plugin = p.get();
    call.logSink = &logSink_;
    trn_instance* inst = nullptr;
    try {
        inst = d->create(&call, trn_str{config.data(), config.size()});
    } catch (...) {
        return refuse("its create function threw an exception (ABI rule 7)", "create_failed");
    }
    if (!inst) {
        std::string why;
        for (auto const& dg : call.diagnostics)
            if (dg.severity == TRN_SEVERITY_ERROR) why += (why.empty() ? "" : "; ") + dg.message;
        return refuse("its create function failed" + (why.empty() ? std::string() : ": " + why), "create_failed");
    }
    p->instance = inst;
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

}  // namespace trainer::core
