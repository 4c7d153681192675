#include <boost/test/unit_test.hpp>

#include "core/server/metrics.hpp"
#include "test_util.hpp"

#include <set>

using namespace trainer::core::server;

namespace {

bool contains(const std::string& text, const std::string& needle) { return text.find(needle) != std::string::npos; }

}  // namespace

BOOST_AUTO_TEST_SUITE(metrics)

// The metrics controller-runtime users scrape, by what /metrics does with them (not by reading
// the table back): each takes a sample with its labels and refuses one label short, and the
// exposition has its HELP and TYPE lines and the sample with the labels named as upstream names them.
BOOST_AUTO_TEST_CASE(required_metrics_are_exposed_with_their_type_and_labels) {
    struct Want {
        std::string name;
        std::string type;
        std::vector<std::string> labels;
    };
    const std::vector<Want> wants{
        {"controller_runtime_reconcile_total", "counter", {"controller", "result"}},
        {"controller_runtime_reconcile_errors_total", "counter", {"controller"}},
        {"controller_runtime_reconcile_time_seconds", "histogram", {"controller"}},
        {"controller_runtime_active_workers", "gauge", {"controller"}},
        {"controller_runtime_max_concurrent_reconciles", "gauge", {"controller"}},
        {"workqueue_depth", "gauge", {"name"}},
        {"workqueue_adds_total", "counter", {"name"}},
        {"workqueue_retries_total", "counter", {"name"}},
        {"workqueue_queue_duration_seconds", "histogram", {"name"}},
        {"workqueue_work_duration_seconds", "histogram", {"name"}},
        {"trainer_plugin_hook_calls_total", "counter", {"plugin", "hook"}},
        {"trainer_plugin_hook_errors_total", "counter", {"plugin", "hook"}},
        {"trainer_plugin_hook_duration_seconds", "histogram", {"plugin", "hook"}},
        {"trainer_plugin_load_total", "counter", {"outcome", "reason"}},
    };
    for (const auto& w : wants) {
        BOOST_TEST_CONTEXT(w.name) {
            Registry r;
            LabelValues values;
            std::string labels;
            for (const auto& l : w.labels) {
                values.push_back("v" + std::to_string(values.size()));
                labels += (labels.empty() ? "" : ",") + l + "=\"" + values.back() + "\"";
            }
            auto record = [&](const LabelValues& v) {
                if (w.type == "histogram") return r.observe(w.name, v, 0.5);
                return w.type == "gauge" ? r.set(w.name, v, 2) : r.add(w.name, v, 2);
            };
            BOOST_TEST(!record(LabelValues(values.begin(), values.end() - 1)), "a label short was taken");
            BOOST_TEST_REQUIRE(record(values));
            const std::string text = r.expose();
            BOOST_TEST(contains(text, "# HELP " + w.name + " "), text);
            BOOST_TEST(contains(text, "# TYPE " + w.name + " " + w.type + "\n"), text);
            const std::string sample =
                w.type == "histogram" ? w.name + "_count{" + labels + "} 1\n" : w.name + "{" + labels + "} 2\n";
            BOOST_TEST(contains(text, sample), "no " << sample << " in:\n" << text);
        }
    }
    // Every metric the operator keeps is exposed once, with its help text.
    const std::string all = Registry().expose();
    std::set<std::string> names;
    for (const auto& d : metricTable()) {
        BOOST_TEST(names.insert(d.name).second, "duplicate metric " << d.name);
        BOOST_TEST(contains(all, "# HELP " + d.name + " "), d.name);
    }
}

BOOST_AUTO_TEST_CASE(counters_gauges_and_refusals) {
    Registry r;
    BOOST_TEST(r.add("controller_runtime_reconcile_total", {"trainjob", "success"}));
    BOOST_TEST(r.add("controller_runtime_reconcile_total", {"trainjob", "success"}, 2));
    BOOST_TEST(r.value("controller_runtime_reconcile_total", {"trainjob", "success"}) == 3.0);
    BOOST_TEST(r.value("controller_runtime_reconcile_total", {"trainjob", "error"}) == 0.0);
    BOOST_TEST(r.set("workqueue_depth", {"trainjob"}, 7));
    BOOST_TEST(r.add("workqueue_depth", {"trainjob"}, -2));
    BOOST_TEST(r.value("workqueue_depth", {"trainjob"}) == 5.0);

    // Refusals: unknown name, wrong arity, wrong type, negative counter.
    BOOST_TEST(!r.add("no_such_metric", {}));
    BOOST_TEST(!r.add("controller_runtime_reconcile_total", {"only-one"}));
    BOOST_TEST(!r.set("controller_runtime_reconcile_total", {"a", "b"}, 1));
    BOOST_TEST(!r.observe("workqueue_depth", {"trainjob"}, 1));
    BOOST_TEST(!r.add("controller_runtime_reconcile_total", {"trainjob", "success"}, -1));
    BOOST_TEST(r.value("controller_runtime_reconcile_total", {"trainjob", "success"}) == 3.0);
}

// A handle updates its series as a lookup by name does, refuses what the name would refuse, and
// a series made by a handle is absent (from value and /metrics) until its first update.
BOOST_AUTO_TEST_CASE(handles_update_the_series_they_name) {
    Registry r;
    auto total = r.counterOrGauge("controller_runtime_reconcile_total", {"trainjob", "success"});
    auto depth = r.counterOrGauge("workqueue_depth", {"trainjob"});
    auto latency = r.histogram("controller_runtime_reconcile_time_seconds", {"trainjob"});
    BOOST_TEST_REQUIRE((total && depth && latency));
    BOOST_TEST(!contains(r.expose(), "controller_runtime_reconcile_total{"));
    BOOST_TEST(!contains(r.expose(), "controller_runtime_reconcile_time_seconds_count{"));

    BOOST_TEST(r.add(total));
    BOOST_TEST(r.add("controller_runtime_reconcile_total", {"trainjob", "success"}, 2));
    BOOST_TEST(r.add(total, 4));
    BOOST_TEST(r.value("controller_runtime_reconcile_total", {"trainjob", "success"}) == 7.0);
    BOOST_TEST(contains(r.expose(), "controller_runtime_reconcile_total{controller=\"trainjob\",result=\"success\"} 7\n"));
    BOOST_TEST(r.add(depth, 3));
    BOOST_TEST(r.add(depth, -1));  // a gauge goes down
    BOOST_TEST(r.value("workqueue_depth", {"trainjob"}) == 2.0);
    BOOST_TEST(r.observe(latency, 0.5));
    BOOST_TEST(r.observe("controller_runtime_reconcile_time_seconds", {"trainjob"}, 0.25));
    BOOST_TEST(r.value("controller_runtime_reconcile_time_seconds", {"trainjob"}) == 2.0);  // a histogram's count
    BOOST_TEST(contains(r.expose(), "controller_runtime_reconcile_time_seconds_sum{controller=\"trainjob\"} 0.75\n"));

    // Refusals: what the name refuses, and the wrong kind of update.
    BOOST_TEST(!r.counterOrGauge("no_such_metric", {}));
    BOOST_TEST(!r.counterOrGauge("controller_runtime_reconcile_total", {"only-one"}));
    BOOST_TEST(!r.counterOrGauge("controller_runtime_reconcile_time_seconds", {"trainjob"}));
    BOOST_TEST(!r.histogram("workqueue_depth", {"trainjob"}));
    BOOST_TEST(!r.add(total, -1));
    BOOST_TEST(!r.add(latency, 1));
    BOOST_TEST(!r.observe(total, 1));
    BOOST_TEST(!r.add(Registry::Handle(), 1));
    BOOST_TEST(r.value("controller_runtime_reconcile_total", {"trainjob", "success"}) == 7.0);
}

BOOST_AUTO_TEST_CASE(exposition_format) {
    Registry r;
    r.add("controller_runtime_reconcile_total", {"trainjob", "success"}, 3);
    r.set("workqueue_depth", {"trainjob"}, 2);
    r.observe("controller_runtime_reconcile_time_seconds", {"trainjob"}, 0.0078125);
    r.observe("controller_runtime_reconcile_time_seconds", {"trainjob"}, 0.25);
    r.observe("controller_runtime_reconcile_time_seconds", {"trainjob"}, 64);
    r.add("trainer_plugin_load_total", {"rejected", "quote\"back\\slash\nnl"});
    std::string text = r.expose();

    const std::vector<std::string> lines{
        "# HELP controller_runtime_reconcile_total Total number of reconciliations per controller\n",
        "# TYPE controller_runtime_reconcile_total counter\n",
        "controller_runtime_reconcile_total{controller=\"trainjob\",result=\"success\"} 3\n",
        "# TYPE workqueue_depth gauge\n",
        "workqueue_depth{name=\"trainjob\"} 2\n",
        "# TYPE controller_runtime_reconcile_time_seconds histogram\n",
        "controller_runtime_reconcile_time_seconds_bucket{controller=\"trainjob\",le=\"0.005\"} 0\n",
        "controller_runtime_reconcile_time_seconds_bucket{controller=\"trainjob\",le=\"0.01\"} 1\n",
        "controller_runtime_reconcile_time_seconds_bucket{controller=\"trainjob\",le=\"0.2\"} 1\n",
        "controller_runtime_reconcile_time_seconds_bucket{controller=\"trainjob\",le=\"0.25\"} 2\n",
        "controller_runtime_reconcile_time_seconds_bucket{controller=\"trainjob\",le=\"0.3\"} 2\n",
        "controller_runtime_reconcile_time_seconds_bucket{controller=\"trainjob\",le=\"60\"} 2\n",
        "controller_runtime_reconcile_time_seconds_bucket{controller=\"trainjob\",le=\"+Inf\"} 3\n",
        "controller_runtime_reconcile_time_seconds_sum{controller=\"trainjob\"} 64.2578125\n",
        "controller_runtime_reconcile_time_seconds_count{controller=\"trainjob\"} 3\n",
        "# TYPE workqueue_queue_duration_seconds histogram\n",
        "trainer_plugin_load_total{outcome=\"rejected\",reason=\"quote\\\"back\\\\slash\\nnl\"} 1\n",
        "# HELP trainer_plugin_hook_duration_seconds ",
    };
    for (const auto& l : lines) BOOST_TEST(contains(text, l), "missing: " << l);
    // Metrics appear sorted by name.
    BOOST_TEST(text.find("# HELP controller_runtime_") < text.find("# HELP trainer_plugin_"));
    BOOST_TEST(text.find("# HELP trainer_plugin_") < text.find("# HELP workqueue_"));
}

BOOST_AUTO_TEST_CASE(sample_value_format_table) {
    const std::vector<std::pair<double, std::string>> cases{
        {0, "0"}, {1, "1"}, {0.005, "0.005"}, {1e-8, "1e-08"}, {1000, "1000"}, {2.5, "2.5"},
        {std::numeric_limits<double>::infinity(), "+Inf"}, {-std::numeric_limits<double>::infinity(), "-Inf"},
        {std::numeric_limits<double>::quiet_NaN(), "NaN"},
    };
    for (const auto& [v, want] : cases) BOOST_TEST(formatSampleValue(v) == want);
}

BOOST_AUTO_TEST_CASE(served_at_metrics_over_http) {
    Registry r;
    r.add("workqueue_adds_total", {"trainjob"}, 4);
    r.observe("trainer_plugin_hook_duration_seconds", {"torch", "EnforceMLPolicy"}, 0.0002);
    trainer::test::IoRunner runner;
    ServerOptions o;
    o.bindAddress = "127.0.0.1:0";
    HttpServer server(runner.io, o, {metricsRoute(r)});
    BOOST_TEST_REQUIRE(server.start() == "");
    auto res = trainer::test::curl("http://127.0.0.1:" + std::to_string(server.port()) + "/metrics");
    BOOST_TEST(res.status == 200);
    BOOST_TEST(res.contentType == "text/plain; version=0.0.4; charset=utf-8");
    BOOST_TEST(contains(res.body, "workqueue_adds_total{name=\"trainjob\"} 4\n"));
    BOOST_TEST(contains(res.body,
                        "trainer_plugin_hook_duration_seconds_bucket{plugin=\"torch\",hook=\"EnforceMLPolicy\",le=\"0.00025\"} 1\n"));
    BOOST_TEST(contains(res.body, "# TYPE controller_runtime_reconcile_total counter\n"));
}

BOOST_AUTO_TEST_SUITE_END()
