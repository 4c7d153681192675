#include "core/server/metrics.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>

namespace trainer::core::server {
namespace {

// controller-runtime's reconcile_time_seconds buckets.
const std::vector<double> kReconcileBuckets{0.005, 0.01, 0.025, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35,
                                            0.4, 0.45, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0, 1.25, 1.5,
                                            1.75, 2.0, 2.5, 3.0, 3.5, 4.0, 4.5, 5, 6, 7,
                                            8, 9, 10, 15, 20, 25, 30, 40, 50, 60};
// client-go's workqueue buckets: ExponentialBuckets(10e-9, 10, 12).
const std::vector<double> kQueueBuckets{1e-8, 1e-7, 1e-6, 1e-5, 1e-4, 1e-3, 1e-2, 1e-1, 1, 10, 100, 1000};
// Prometheus' DefBuckets (controller-runtime's webhook latency).
const std::vector<double> kDefaultBuckets{0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10};
// Plugin hooks run in microseconds to milliseconds.
const std::vector<double> kHookBuckets{1e-5, 2.5e-5, 1e-4, 2.5e-4, 1e-3, 2.5e-3, 0.01, 0.025, 0.1, 0.25, 1, 2.5};

std::string escape(std::string_view s, bool quotes) {
    std::string out;
    for (char c : s) {
        if (c == '\\') out += "\\\\";
        else if (c == '\n') out += "\\n";
        else if (c == '"' && quotes) out += "\\\"";
        else out += c;
    }
    return out;
}

// `{a="x",b="y"}` with an optional trailing le; empty when there are no labels at all.
std::string labelText(const std::vector<std::string>& names, const LabelValues& values, const std::string& le = "") {
    std::string out;
    for (std::size_t i = 0; i < names.size() && i < values.size(); ++i)
        out += (out.empty() ? "" : ",") + names[i] + "=\"" + escape(values[i], true) + "\"";
    if (!le.empty()) out += (out.empty() ? "" : ",") + std::string("le=\"") + le + "\"";
    return out.empty() ? out : "{" + out + "}";
}

constexpr std::array<std::pair<MetricType, std::string_view>, 3> kTypeNames{{
    {MetricType::Counter, "counter"}, {MetricType::Gauge, "gauge"}, {MetricType::Histogram, "histogram"}}};

std::string_view typeName(MetricType t) {
    for (const auto& [type, name] : kTypeNames)
        if (type == t) return name;
    return "untyped";
}

}  // namespace

const std::vector<MetricDef>& metricTable() {
    using T = MetricType;
    static const std::vector<MetricDef> table{
        {"controller_runtime_reconcile_total", T::Counter, "Total number of reconciliations per controller",
         {"controller", "result"}, {}},
        {"controller_runtime_reconcile_errors_total", T::Counter, "Total number of reconciliation errors per controller",
         {"controller"}, {}},
        {"controller_runtime_terminal_reconcile_errors_total", T::Counter,
         "Total number of terminal reconciliation errors per controller", {"controller"}, {}},
        {"controller_runtime_reconcile_panics_total", T::Counter, "Total number of reconciliation panics per controller",
         {"controller"}, {}},
        {"controller_runtime_reconcile_time_seconds", T::Histogram, "Length of time per reconciliation per controller",
         {"controller"}, kReconcileBuckets},
        {"controller_runtime_active_workers", T::Gauge, "Number of currently used workers per controller",
         {"controller"}, {}},
        {"controller_runtime_max_concurrent_reconciles", T::Gauge,
         "Maximum number of concurrent reconciles per controller", {"controller"}, {}},
        {"controller_runtime_webhook_requests_total", T::Counter,
         "Total number of admission requests by HTTP status code.", {"webhook", "code"}, {}},
        {"controller_runtime_webhook_requests_in_flight", T::Gauge,
         "Current number of admission requests being served.", {"webhook"}, {}},
        {"controller_runtime_webhook_latency_seconds", T::Histogram,
         "Histogram of the latency of processing admission requests", {"webhook"}, kDefaultBuckets},
        {"workqueue_depth", T::Gauge, "Current depth of workqueue", {"name"}, {}},
        {"workqueue_adds_total", T::Counter, "Total number of adds handled by workqueue", {"name"}, {}},
        {"workqueue_retries_total", T::Counter, "Total number of retries handled by workqueue", {"name"}, {}},
        {"workqueue_queue_duration_seconds", T::Histogram,
         "How long in seconds an item stays in workqueue before being requested", {"name"}, kQueueBuckets},
        {"workqueue_work_duration_seconds", T::Histogram,
         "How long in seconds processing an item from workqueue takes.", {"name"}, kQueueBuckets},
        {"workqueue_unfinished_work_seconds", T::Gauge,
         "How many seconds of work has been done that is in progress and hasn't been observed by work_duration. "
         "Large values indicate stuck threads.",
         {"name"}, {}},
        {"workqueue_longest_running_processor_seconds", T::Gauge,
         "How many seconds has the longest running processor for workqueue been running.", {"name"}, {}},
        {"leader_election_master_status", T::Gauge,
         "Gauge of if the reporting system is master of the relevant lease, 0 indicates backup, 1 indicates master. "
         "'name' is the string used to identify the lease. Please make sure to group by name.",
         {"name"}, {}},
        {"trainer_informer_cache_bytes", T::Gauge,
         "Bytes of JSON the informers' cache holds per resource (cluster mode)", {"resource"}, {}},
        {"trainer_informer_relists_total", T::Gauge,
         "Lists the informers made per resource (start-up and after 410 Gone)", {"resource"}, {}},
        {"trainer_plugin_hook_calls_total", T::Counter, "Total number of plugin hook calls", {"plugin", "hook"}, {}},
        {"trainer_plugin_hook_errors_total", T::Counter, "Total number of plugin hook calls that returned an error",
         {"plugin", "hook"}, {}},
        {"trainer_plugin_hook_duration_seconds", T::Histogram, "Time spent in plugin hook calls", {"plugin", "hook"},
         kHookBuckets},
        {"trainer_plugin_isolation_failures_total", T::Counter,
         "Calls to process-isolated plugins that failed in their plugin-host child, by reason (crash, timeout, memory, "
         "output, protocol, startup)",
         {"plugin", "reason"}, {}},
        {"trainer_plugin_isolation_restarts_total", T::Counter,
         "Plugin-host children started again after a failure", {"plugin"}, {}},
        {"trainer_plugin_circuit_open", T::Gauge,
         "1 while a process-isolated plugin's circuit is open (its calls fail at once)", {"plugin"}, {}},
        {"trainer_plugin_load_total", T::Counter,
         "Plugin libraries examined at start-up, by outcome (loaded or rejected) and reason", {"outcome", "reason"},
         {}},
    };
    return table;
}

std::string formatSampleValue(double v) {
    if (std::isnan(v)) return "NaN";
    if (std::isinf(v)) return v > 0 ? "+Inf" : "-Inf";
    std::array<char, 64> buf{};
    auto [end, ec] = std::to_chars(buf.data(), buf.data() + buf.size(), v);
    return ec == std::errc() ? std::string(buf.data(), end) : "NaN";
}

Registry::Registry(const std::vector<MetricDef>& defs) {
    for (const auto& d : defs) {
        Family f{d, {}};
        std::sort(f.def.buckets.begin(), f.def.buckets.end());
        families_.emplace(d.name, std::move(f));
    }
}

Registry::Family* Registry::find(std::string_view name, MetricType type, const LabelValues& labels) {
    auto it = families_.find(name);
    if (it == families_.end() || it->second.def.type != type || it->second.def.labels.size() != labels.size())
        return nullptr;
    return &it->second;
}

void Registry::addTo(Series& s, double v) {
    s.value += v;
    s.updated = true;
}

void Registry::observeIn(const Family& f, Series& s, double v) {
    s.buckets.resize(f.def.buckets.size());
    auto idx = std::lower_bound(f.def.buckets.begin(), f.def.buckets.end(), v) - f.def.buckets.begin();
    if (static_cast<std::size_t>(idx) < s.buckets.size()) ++s.buckets[idx];
    s.value += v;
    ++s.count;
    s.updated = true;
}

bool Registry::add(std::string_view name, const LabelValues& labels, double v) {
    std::lock_guard lock(mu_);
    auto* f = find(name, MetricType::Counter, labels);
    if (f && (v < 0 || std::isnan(v))) return false;
    if (!f) f = find(name, MetricType::Gauge, labels);
    if (!f) return false;
    addTo(f->series[labels], v);
    return true;
}

bool Registry::set(std::string_view name, const LabelValues& labels, double v) {
    std::lock_guard lock(mu_);
    auto* f = find(name, MetricType::Gauge, labels);
    if (!f) return false;
    auto& s = f->series[labels];
    s.value = v;
    s.updated = true;
    return true;
}

bool Registry::observe(std::string_view name, const LabelValues& labels, double v) {
    std::lock_guard lock(mu_);
    auto* f = find(name, MetricType::Histogram, labels);
    if (!f || std::isnan(v)) return false;
    observeIn(*f, f->series[labels], v);
    return true;
}

Registry::Handle Registry::counterOrGauge(std::string_view name, const LabelValues& labels) {
    std::lock_guard lock(mu_);
    auto* f = find(name, MetricType::Counter, labels);
    if (!f) f = find(name, MetricType::Gauge, labels);
    return f ? Handle(f, &f->series[labels]) : Handle();  // map nodes stay put: the pointer lives as long
}

Registry::Handle Registry::histogram(std::string_view name, const LabelValues& labels) {
    std::lock_guard lock(mu_);
    auto* f = find(name, MetricType::Histogram, labels);
    return f ? Handle(f, &f->series[labels]) : Handle();
}

bool Registry::add(const Handle& h, double v) {
    if (!h || h.family_->def.type == MetricType::Histogram) return false;
    if (h.family_->def.type == MetricType::Counter && (v < 0 || std::isnan(v))) return false;
    std::lock_guard lock(mu_);
    addTo(*h.series_, v);
    return true;
}

bool Registry::observe(const Handle& h, double v) {
    if (!h || h.family_->def.type != MetricType::Histogram || std::isnan(v)) return false;
    std::lock_guard lock(mu_);
    observeIn(*h.family_, *h.series_, v);
    return true;
}

double Registry::value(std::string_view name, const LabelValues& labels) const {
    std::lock_guard lock(mu_);
    auto it = families_.find(name);
    if (it == families_.end()) return 0;
    auto s = it->second.series.find(labels);
    if (s == it->second.series.end() || !s->second.updated) return 0;
    return it->second.def.type == MetricType::Histogram ? static_cast<double>(s->second.count) : s->second.value;
}

std::string Registry::expose() const {
    std::lock_guard lock(mu_);
    std::string out;
    for (const auto& [name, f] : families_) {
        out += "# HELP " + name + " " + escape(f.def.help, false) + "\n";
        out += "# TYPE " + name + " " + std::string(typeName(f.def.type)) + "\n";
        for (const auto& [labels, s] : f.series) {
            if (!s.updated) continue;  // made by a handle, never updated: absent, as before it was made
            if (f.def.type != MetricType::Histogram) {
                out += name + labelText(f.def.labels, labels) + " " + formatSampleValue(s.value) + "\n";
                continue;
            }
            uint64_t cumulative = 0;
            for (std::size_t i = 0; i < f.def.buckets.size(); ++i) {
                cumulative += i < s.buckets.size() ? s.buckets[i] : 0;
                out += name + "_bucket" + labelText(f.def.labels, labels, formatSampleValue(f.def.buckets[i])) + " " +
                       std::to_string(cumulative) + "\n";
            }
            out += name + "_bucket" + labelText(f.def.labels, labels, "+Inf") + " " + std::to_string(s.count) + "\n";
            out += name + "_sum" + labelText(f.def.labels, labels) + " " + formatSampleValue(s.value) + "\n";
            out += name + "_count" + labelText(f.def.labels, labels) + " " + std::to_string(s.count) + "\n";
        }
    }
    return out;
}

Registry& defaultRegistry() {
    static Registry registry;
    return registry;
}

Route metricsRoute(const Registry& registry, std::string path) {
    return Route{"GET", std::move(path), [&registry](const Request&) {
                     Response r;
                     r.contentType = std::string(kMetricsContentType);
                     r.body = registry.expose();
                     return r;
                 }};
}

}  // namespace trainer::core::server
