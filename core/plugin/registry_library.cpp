// The in-process library: dlopen through the trusted file's descriptor (so what runs is what was
// checked and hashed), the entry call, the descriptor's header checks and the host info every
// plugin receives. Shared by the operator and the plugin-host child (isolation_child.cpp).
#include "core/plugin/registry_internal.hpp"

#include "core/api/dns_names.hpp"

#include <dlfcn.h>

#include <filesystem>
#include <mutex>

namespace trainer::core::detail {

namespace fs = std::filesystem;

namespace {

// Libraries are never unloaded (rule 8): their handles are never closed, and the descriptor each
// was loaded through stays open until process exit, so that no later file gets the same
// /proc/self/fd/<n> name (the dynamic loader would hand back the earlier library by name).
void keep(int fd) {
    static auto* fds = new std::vector<int>();
    static std::mutex m;
    std::lock_guard<std::mutex> g(m);
    fds->push_back(fd);
}

std::string replaceAll(std::string s, const std::string& from, const std::string& to) {
    for (size_t at = s.find(from); !from.empty() && at != std::string::npos; at = s.find(from, at + to.size()))
        s.replace(at, from.size(), to);
    return s;
}

}  // namespace

// dlopen through the open descriptor, so what runs is what was checked and hashed.
std::optional<Refusal> loadLibrary(TrustedFile& file, const std::string& path, EntryFn*& entry) {
    const std::string via = file.procPath();
    void* handle = ::dlopen(via.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
        const char* why = ::dlerror();
        return Refusal{"it cannot be loaded (" + replaceAll(why ? why : "dlopen failed", via, path) + ")", "load_failed"};
    }
    keep(file.release());
    entry = reinterpret_cast<EntryFn*>(::dlsym(handle, TRN_ENTRY_SYMBOL));
    if (!entry) return Refusal{std::string("it has no entry point ") + TRN_ENTRY_SYMBOL, "no_entry_point"};
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
    std::string name = d->name ? d->name : "";
    if (!isDns1123LabelChars(name))  // no std::regex: this runs for every plugin file
        return Refusal{"its name \"" + name + "\" is not a lowercase DNS label", "bad_name"};
    return std::nullopt;
}

std::unique_ptr<LoadedPlugin> makePlugin(const trn_plugin_descriptor* d, const std::string& path,
                                         const std::string& sha256, const PluginOptions& options) {
    auto p = std::make_unique<LoadedPlugin>();
    p->name = d->name;
    p->version = d->version ? d->version : "";
    p->description = d->description ? d->description : "";
    p->path = path;
    p->sha256 = sha256;
    p->abi = d->abi_version;
    const auto priority = options.priorities.find(p->name);
    p->priority = priority != options.priorities.end() ? priority->second : d->priority;
    p->threadSafe = (d->flags & TRN_PLUGIN_THREAD_SAFE) != 0;
    p->descriptor = d;
    if (!p->threadSafe) p->serial = std::make_unique<std::mutex>();
    return p;
}

const trn_host_info& hostInfo() {
    static const std::string hostVersion = TRAINER_VERSION;
    static const trn_host_info host{sizeof(trn_host_info), TRN_ABI_ENCODE(TRN_ABI_MAJOR, 0), TRN_ABI_VERSION,
                                    trn_str{hostVersion.data(), hostVersion.size()}, PluginRegistry::hostApi()};
    return host;
}

}  // namespace trainer::core::detail
