// Loading a plugin whose entry point is linked into this process (PluginRegistry::loadEntry):
// what the SDK's testing library hosts a plugin class compiled into a unit test with. The same
// checks, claims, rejections and create() as a file once it is open; no file, so no trust, ELF
// or hash step, and always in this process.
#include "core/plugin/crash_context.hpp"
#include "core/plugin/registry.hpp"

namespace trainer::core {

bool PluginRegistry::loadEntry(trn_plugin_entry_fn entry, const std::string& displayName, const PluginOptions& options) {
    if (!entry) {
        reject(displayName, "plugin " + displayName + " was rejected: it has no entry point.", "no_entry_point");
        return false;
    }
    HookScope loading(displayName, "load");  // its entry point runs here (crash_context.hpp)
    return admitEntry(entry, displayName, displayName, /*sha256=*/"", /*shipped=*/false, options);
}

}  // namespace trainer::core
