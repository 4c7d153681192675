#include "core/cli/hook_metrics.hpp"

namespace trainer::core::cli {

namespace {

std::size_t hookIndex(Hook hook) {
    std::size_t i = 0;
    while (i < kHooks.size() && kHooks[i].hook != hook) ++i;
    return i;  // kHooks.size() when unknown
}

}  // namespace

HookMetrics::HookMetrics(server::Registry& metrics, const PluginRegistry& plugins)
    : metrics_(metrics), plugins_(plugins) {
    for (auto const& p : plugins.plugins()) {
        auto& row = series_.emplace_back();
        for (std::size_t h = 0; h < kHooks.size(); ++h) {
            server::LabelValues labels{p->name, kHooks[h].name};
            row[h] = Series{metrics.counterOrGauge("trainer_plugin_hook_calls_total", labels),
                            metrics.counterOrGauge("trainer_plugin_hook_errors_total", labels),
                            metrics.histogram("trainer_plugin_hook_duration_seconds", labels)};
        }
    }
}

void HookMetrics::record(const LoadedPlugin& plugin, Hook hook, double seconds, bool ok) const {
    const auto& loaded = plugins_.plugins();
    const std::size_t h = hookIndex(hook);
    for (std::size_t i = 0; i < loaded.size() && i < series_.size(); ++i) {
        if (loaded[i].get() != &plugin || h >= kHooks.size()) continue;
        const Series& s = series_[i][h];
        metrics_.add(s.calls);
        if (!ok) metrics_.add(s.errors);
        metrics_.observe(s.duration, seconds);
        return;
    }
    server::LabelValues labels{plugin.name, hookName(hook)};
    metrics_.add("trainer_plugin_hook_calls_total", labels);
    if (!ok) metrics_.add("trainer_plugin_hook_errors_total", labels);
    metrics_.observe("trainer_plugin_hook_duration_seconds", labels, seconds);
}

}  // namespace trainer::core::cli
