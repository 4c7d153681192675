// The trainer_plugin_hook_* series of every loaded plugin and hook, looked up once at start-up
// (server::Registry::Handle): the Framework's observer runs after every hook call, and a lookup
// by name there built three label vectors and searched the registry's maps each time.
#pragma once

#include "core/plugin/hooks.hpp"
#include "core/plugin/registry.hpp"
#include "core/server/metrics.hpp"

#include <array>
#include <vector>

namespace trainer::core::cli {

class HookMetrics {
public:
    // Series for `plugins`' hooks; both must outlive this.
    HookMetrics(server::Registry& metrics, const PluginRegistry& plugins);

    // One call of `hook` on `plugin` that took `seconds` and failed unless `ok`. A plugin not in
    // the registry (none today) is recorded by name.
    void record(const LoadedPlugin& plugin, Hook hook, double seconds, bool ok) const;

private:
    struct Series {
        server::Registry::Handle calls, errors, duration;
    };
    server::Registry& metrics_;
    const PluginRegistry& plugins_;
    std::vector<std::array<Series, kHooks.size()>> series_;  // by plugin position, then hook
};

}  // namespace trainer::core::cli
