// HookMetrics: the trainer_plugin_hook_* series of the build's real plugins (their .so files),
// looked up once, record each call under the plugin's name and the hook's, and a plugin the
// registry did not load is recorded by name.
#define BOOST_TEST_MODULE test_core_cli_hook_metrics
#include <boost/test/unit_test.hpp>

#include "core/cli/hook_metrics.hpp"

using namespace trainer::core;

namespace {

struct Loaded {
    Loaded() { registry.loadDirectory(TRAINER_PLUGIN_BUILD_DIR); }
    PluginRegistry registry;
};

}  // namespace

BOOST_AUTO_TEST_CASE(calls_errors_and_durations_by_plugin_and_hook) {
    Loaded loaded;
    const auto& plugins = loaded.registry.plugins();
    BOOST_TEST_REQUIRE(plugins.size() >= 2u);
    server::Registry metrics;
    cli::HookMetrics hooks(metrics, loaded.registry);
    const LoadedPlugin& first = *plugins.front();
    const LoadedPlugin& second = *plugins.back();

    hooks.record(first, Hook::CustomValidation, 0.25, true);
    hooks.record(first, Hook::CustomValidation, 0.5, false);
    hooks.record(second, Hook::ComponentBuilder, 2.0, true);

    const server::LabelValues validation{first.name, "CustomValidation"}, builder{second.name, "ComponentBuilder"};
    BOOST_TEST(metrics.value("trainer_plugin_hook_calls_total", validation) == 2.0);
    BOOST_TEST(metrics.value("trainer_plugin_hook_errors_total", validation) == 1.0);
    BOOST_TEST(metrics.value("trainer_plugin_hook_duration_seconds", validation) == 2.0);  // a histogram's count
    BOOST_TEST(metrics.value("trainer_plugin_hook_calls_total", builder) == 1.0);
    BOOST_TEST(metrics.value("trainer_plugin_hook_errors_total", builder) == 0.0);
    // Only what was called is exposed: the series made for every other plugin and hook are not.
    const std::string text = metrics.expose();
    BOOST_TEST(text.find("hook=\"EnforcePodSpec\"") == std::string::npos);
    BOOST_TEST(text.find("trainer_plugin_hook_duration_seconds_sum{plugin=\"" + second.name +
                         "\",hook=\"ComponentBuilder\"} 2\n") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(a_plugin_the_registry_did_not_load_is_recorded_by_name) {
    Loaded loaded;
    server::Registry metrics;
    cli::HookMetrics hooks(metrics, loaded.registry);
    LoadedPlugin stranger;
    stranger.name = "stranger";
    hooks.record(stranger, Hook::EnforceMLPolicy, 0.1, false);
    BOOST_TEST(metrics.value("trainer_plugin_hook_calls_total", {"stranger", "EnforceMLPolicy"}) == 1.0);
    BOOST_TEST(metrics.value("trainer_plugin_hook_errors_total", {"stranger", "EnforceMLPolicy"}) == 1.0);
}
