// Loads plugins from a directory and owns them: library handles (never unloaded), the
// validated descriptors, and one instance per plugin. Rejections are sentences naming the
// file and the reason (ABI rule 15). Only trusted files load (StrictModes: the directory and
// the file writable by their owner only, owned by root or the effective user; no symlink out
// of the directory; no dot-file), each opened once, hashed and dlopen'ed through that one
// descriptor, so the reported sha256 is of the bytes that run (an unchanged file's hash comes from
// the directory's hash cache, core/plugin/hash_cache.hpp, which says why that holds).
#pragma once

#include "core/plugin/claims.hpp"
#include "core/plugin/hooks.hpp"
#include "core/plugin/isolation_options.hpp"
#include "core/plugin/string_hash.hpp"

#include <trainer/abi.h>

#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace trainer::core {

namespace detail {
class TrustedFile;
class HashCache;
}
namespace isolation {
class RemotePlugin;
using IsolationObserver = std::function<void(const std::string& plugin, std::string_view event, std::string_view reason)>;
}  // namespace isolation

struct WatchSpec {
    std::string apiVersion;
    std::string kind;
    int32_t mode = TRN_WATCH_OWNED;
    std::string matchField;
};

// One loaded, created plugin. Function pointers are null where not implemented.
struct LoadedPlugin {
    std::string name;
    std::string version;
    std::string description;
    std::string path;
    std::string sha256;
    uint32_t abi = 0;
    int32_t priority = 0;
    bool threadSafe = false;
    std::vector<std::string> claims;
    std::vector<WatchSpec> watches;
    HookTable hooks;
    const trn_plugin_descriptor* descriptor = nullptr;
    trn_instance* instance = nullptr;
    std::unique_ptr<std::mutex> serial;  // held around hooks when the plugin is not thread-safe
    // Where its code runs. Process: `remote` is its plugin-host child (hooks map to null
    // functions, descriptor and instance are null) and every call goes through it.
    Isolation isolation = Isolation::InProcess;
    bool shipped = false;  // its file is listed in a shipped manifest (kShippedManifest)
    std::shared_ptr<isolation::RemotePlugin> remote;

    bool implements(Hook h) const { return h == Hook::WatchExtension ? !watches.empty() : hooks.has(h); }
    std::vector<std::string> extensionPoints() const;
};

// Why a file was not loaded; `code` is a short machine reason used for metrics.
struct Rejection {
    std::string path;
    std::string reason;
    std::string code;
};

// Operator configuration of the plugin set (the Configuration file's `plugins` section).
struct PluginOptions {
    std::vector<std::string> enabled;   // when non-empty, only these names load
    std::vector<std::string> disabled;  // these names never load
    std::map<std::string, std::string> configs;  // name -> JSON handed to create()
    std::map<std::string, int32_t> priorities;   // name -> priority override (rule 11)
    // Pins: plugin name or file name ("x" or "x.so") -> sha256 hex; a file whose hash
    // differs is rejected (a file-name pin before any of its code runs, a name pin before create()).
    std::map<std::string, std::string> sha256;
    // Where each plugin runs and the limits of its calls (isolation_options.hpp).
    IsolationOptions isolation;
    // sha256 hashes of the files shipped with the operator (added to those of the loaded
    // directory's own manifest): their plugins default to inProcess.
    std::unordered_set<std::string> shippedHashes;
};

// The hashes a plugin directory's shipped manifest lists (empty when it has none); the file
// must be as trusted as a plugin file. Unreadable or malformed lines are skipped.
std::unordered_set<std::string> readShippedManifest(const std::string& dir);

class PluginRegistry;
// The pins of every loaded plugin, a Configuration fragment ready to paste:
// "plugins:\n  sha256:\n    <file>.so: \"<hex>\"  # <plugin name>\n" (file names sorted, hashes
// quoted): file-name pins, checked before any code of the file runs.
std::string pinsYaml(const PluginRegistry& registry);

// Receives plugin log lines (rule 14) and diagnostics from create().
using PluginLogSink = std::function<void(const std::string& plugin, int32_t level, std::string_view message)>;

class PluginRegistry {
public:
    PluginRegistry();
    ~PluginRegistry();
    PluginRegistry(const PluginRegistry&) = delete;
    PluginRegistry& operator=(const PluginRegistry&) = delete;

    // Loads every *.so in `dir` (sorted by file name, shipped files first). A missing or
    // unreadable directory is one rejection, not a crash.
    void loadDirectory(const std::string& dir, const PluginOptions& options = {});
    // The same for several directories, one after the other (a directory named twice loads
    // once): a later directory's file whose plugin name or claim is taken is rejected, so the
    // earlier directories win, as shipped files win within one. Every directory's shipped
    // manifest counts for all; pins are checked against the files of all of them.
    void loadDirectories(const std::vector<std::string>& dirs, const PluginOptions& options = {});
    // Loads one file; false and a rejection when it is refused.
    bool loadFile(const std::string& path, const PluginOptions& options = {});
    // Plugin files read to hash them, not found in their directory's hash cache
    // (core/plugin/hash_cache.hpp), since construction.
    int filesHashed() const;
    // Loads a plugin whose entry point is linked into this process (a plugin class compiled into
    // a unit test, through the SDK's testing library: sdk/include/trainer/testing/real_host.hpp).
    // The path of a file once it is open: entry point, descriptor size, ABI range and name, the
    // configuration's enabled/disabled lists, duplicate names, name pins (the sha256 is ""),
    // descriptor, policy-hook claims, claim conflicts, create() with options.configs[name]; no
    // trust, ELF or hash step, since no file is read. It runs in this process whatever
    // options.isolation says. `displayName` stands for the path in rejections and listings.
    // false and a rejection when refused.
    bool loadEntry(trn_plugin_entry_fn entry, const std::string& displayName, const PluginOptions& options = {});

    // Loaded plugins in run order: priority, then name (rule 11).
    const std::vector<std::unique_ptr<LoadedPlugin>>& plugins() const { return plugins_; }
    const std::vector<Rejection>& rejected() const { return rejected_; }
    // Every (apiVersion, kind) the loaded plugins build (`kind:<apiVersion>/<Kind>` claims) or
    // watch (WatchExtension), each once, in load order: the kinds the host serves and informs on.
    std::vector<std::pair<std::string, std::string>> pluginKinds() const;
    const LoadedPlugin* find(std::string_view name) const;
    // The plugin claiming `claim` exactly, or nullptr.
    const LoadedPlugin* claimOwner(std::string_view claim) const;
    std::string names() const;  // "alpha, beta, ..." for messages

    void setLogSink(PluginLogSink sink) { logSink_ = std::move(sink); }
    const PluginLogSink& logSink() const { return logSink_; }
    // Receives the process-isolated plugins' failures, restarts and circuit changes (metrics);
    // set before loading.
    void setIsolationObserver(isolation::IsolationObserver observer) { isolationObserver_ = std::move(observer); }

    // The host table every plugin receives.
    static const trn_host_api* hostApi();

private:
    void reject(const std::string& path, std::string reason, std::string code);
    void insertSorted(std::unique_ptr<LoadedPlugin> p);
    // The *.so files of `dir` in load order; false after rejecting the directory itself.
    bool listDirectory(const std::string& dir, const std::unordered_set<std::string>& shippedNames, const PluginOptions& options,
                       std::vector<std::string>& files);
    void reportUnmatchedPins(const std::vector<std::string>& dirs, const std::vector<std::string>& files,
                             const PluginOptions& options);
    // The two ways a checked, hashed file loads (registry.cpp): dlopen'ed here, or described
    // and created in a plugin-host child first (then kept there or, for inProcess, loaded here).
    bool loadInProcess(const std::string& path, detail::TrustedFile& file, const std::string& sha256, bool shipped,
                       const PluginOptions& options);
    bool loadInChild(const std::string& path, detail::TrustedFile& file, const std::string& sha256, bool shipped,
                     const PluginOptions& options);
    // From the entry point on, for a file loaded here and for loadEntry: `path` names the
    // plugin in rejections, `shownPath` is its LoadedPlugin::path.
    bool admitEntry(const trn_plugin_descriptor* (*entry)(const trn_host_info*), const std::string& path,
                    const std::string& shownPath, const std::string& sha256, bool shipped, const PluginOptions& options);

    // `path` absolute and normalised, as LoadedPlugin::path shows it; each directory's part
    // worked out once (shownDirs_: directory as given -> absolute, normalised, with its slash).
    std::string shownPath(const std::string& path);

    // One file's load (loadFile and loadDirectories, which then save the hash cache once).
    bool loadOne(const std::string& path, const PluginOptions& options);

    std::vector<std::unique_ptr<LoadedPlugin>> plugins_;
    ClaimIndex claims_;                                                 // every loaded plugin's exclusive claims
    std::unordered_map<std::string, const LoadedPlugin*, StringHash, std::equal_to<>> byName_;  // find(): names are unique
    std::vector<Rejection> rejected_;
    std::map<std::string, std::string, std::less<>> shownDirs_;  // ends with "/"
    std::unique_ptr<detail::HashCache> hashes_;
    PluginLogSink logSink_;
    isolation::IsolationObserver isolationObserver_;
};

}  // namespace trainer::core
