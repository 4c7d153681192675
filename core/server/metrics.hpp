// Prometheus registry (counters, gauges, histograms with label sets) defined from one table of
// metric definitions, rendered in the text exposition format 0.0.4. Thread-safe.
#pragma once

#include "core/server/http.hpp"

#include <map>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

namespace trainer::core::server {

enum class MetricType { Counter, Gauge, Histogram };

// One row of the metric table.
struct MetricDef {
    std::string name;
    MetricType type;
    std::string help;
    std::vector<std::string> labels;
    std::vector<double> buckets;  // upper bounds, ascending; histograms only
};

// The operator's metrics: controller-runtime's names plus the plugin host's.
const std::vector<MetricDef>& metricTable();

// Label values, in the order of MetricDef::labels.
using LabelValues = std::vector<std::string>;

// Holds every series of the metrics it was built from. Updates to an unknown name, a wrong
// type or a wrong number of label values are ignored and return false (never throw).
class Registry {
    struct Family;
    struct Series;

public:
    // One series looked up once, for a hot path's updates: each then takes the lock and nothing
    // else (no label strings built, no lookup). Empty (updates refused) when the registry refused
    // the name, type or labels. Valid as long as the registry. A series made this way is exposed
    // from its first update, like any other.
    class Handle {
    public:
        Handle() = default;
        explicit operator bool() const { return series_ != nullptr; }

    private:
        friend class Registry;
        Handle(const Family* family, Series* series) : family_(family), series_(series) {}
        const Family* family_ = nullptr;
        Series* series_ = nullptr;
    };

    explicit Registry(const std::vector<MetricDef>& defs = metricTable());

    // A counter's or gauge's series (what add() updates), and a histogram's.
    Handle counterOrGauge(std::string_view name, const LabelValues& labels);
    Handle histogram(std::string_view name, const LabelValues& labels);
    // add() and observe() through a handle, as by name.
    bool add(const Handle& series, double v = 1.0);
    bool observe(const Handle& series, double v);

    // Counter or gauge += v (counters refuse negative v).
    bool add(std::string_view name, const LabelValues& labels, double v = 1.0);
    // Gauge = v.
    bool set(std::string_view name, const LabelValues& labels, double v);
    // Histogram observation.
    bool observe(std::string_view name, const LabelValues& labels, double v);
    // Counter/gauge value, or a histogram's count; 0 for an absent series.
    double value(std::string_view name, const LabelValues& labels) const;
    // Text exposition format 0.0.4, metrics sorted by name, series by label values.
    std::string expose() const;

private:
    struct Series {
        double value = 0;               // counter/gauge, or histogram sum
        std::vector<uint64_t> buckets;  // per-bucket (non-cumulative) counts
        uint64_t count = 0;
        bool updated = false;           // exposed once updated (a handle makes it before that)
    };
    struct Family {
        MetricDef def;
        std::map<LabelValues, Series> series;
    };
    Family* find(std::string_view name, MetricType type, const LabelValues& labels);
    static void addTo(Series& s, double v);
    static void observeIn(const Family& f, Series& s, double v);

    mutable std::mutex mu_;
    std::map<std::string, Family, std::less<>> families_;
};

// The process-wide registry built from metricTable().
Registry& defaultRegistry();

// Default --metrics-bind-address (controller-runtime's secure metrics port); "0" disables.
inline constexpr std::string_view kDefaultMetricsBindAddress = ":8443";

// Content type of the exposition format.
inline constexpr std::string_view kMetricsContentType = "text/plain; version=0.0.4; charset=utf-8";

// GET /metrics serving `registry` (which must outlive the server).
Route metricsRoute(const Registry& registry, std::string path = "/metrics");

// Formats a sample value like Prometheus' Go client (shortest round-trip, +Inf, -Inf, NaN).
std::string formatSampleValue(double v);

}  // namespace trainer::core::server
