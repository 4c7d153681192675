// Shared helpers of the plugin-host tests: temporary plugin directories made of fixture
// copies, and a minimal Info document.
#pragma once

#include "core/api/errors.hpp"
#include "core/plugin/registry.hpp"

#include <boost/json.hpp>

#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

namespace fs = std::filesystem;

// A fresh directory holding copies of the named fixtures ("alpha" -> alpha.so).
struct PluginDir {
    fs::path dir;
    explicit PluginDir(const std::vector<std::string>& fixtures) {
        static std::atomic<int> counter{0};
        dir = fs::temp_directory_path() / ("trainer-fx-" + std::to_string(::getpid()) + "-" + std::to_string(counter++));
        fs::remove_all(dir);
        fs::create_directories(dir);
        for (auto const& f : fixtures) fs::copy_file(fs::path(FIXTURE_DIR) / (f + ".so"), dir / (f + ".so"));
    }
    ~PluginDir() {
        std::error_code ec;
        fs::remove_all(dir, ec);
    }
    std::string path(const std::string& f) const { return (dir / (f + ".so")).string(); }
    void writeText(const std::string& file, const std::string& text) const { std::ofstream(dir / file) << text; }
};

// The options every loader and framework test starts from: plugins in the isolation mode
// $TRAINER_TEST_ISOLATION names (test/core/plugin/CMakeLists.txt runs these tests once per mode);
// unset, the operator's default (fixtures are not shipped: a plugin-host child each).
inline trainer::core::PluginOptions testOptions() {
    trainer::core::PluginOptions o;
    if (const char* m = std::getenv("TRAINER_TEST_ISOLATION"); m && *m) o.isolation.mode = trainer::core::parseIsolation(m);
    return o;
}

// A plugin directory of fixtures loaded with testOptions() and the given plugin configurations.
struct LoadedFixtures {
    PluginDir dir;
    trainer::core::PluginRegistry registry;
    explicit LoadedFixtures(const std::vector<std::string>& fixtures, const std::map<std::string, std::string>& configs = {})
        : dir(fixtures) {
        trainer::core::PluginOptions o = testOptions();
        o.configs = configs;
        registry.loadDirectory(dir.dir.string(), o);
    }
};

// The messages of a result's errors, in order.
inline std::vector<std::string> errorMessages(const trainer::core::Diagnostics& d) {
    std::vector<std::string> out;
    for (auto const& e : d.errors) out.push_back(e.message);
    return out;
}

inline std::string rejectionFor(const trainer::core::PluginRegistry& r, const std::string& file) {
    for (auto const& x : r.rejected())
        if (x.path.find(file) != std::string::npos) return x.reason;
    return "";
}

inline boost::json::object minimalInfo(boost::json::object mlPolicy = {{"numNodes", 1}},
                                       boost::json::object podGroupPolicy = {}) {
    using boost::json::object;
    using boost::json::array;
    object runtimePolicy{{"mlPolicy", mlPolicy}};
    if (!podGroupPolicy.empty()) runtimePolicy["podGroupPolicy"] = podGroupPolicy;
    return object{
        {"infoVersion", 1},
        {"trainJob", object{{"metadata", object{{"name", "job"}, {"namespace", "default"}, {"uid", "u"}}}, {"spec", object{}}}},
        {"runtime", object{{"kind", "ClusterTrainingRuntime"}, {"metadata", object{{"name", "rt"}}}}},
        {"labels", object{}},
        {"annotations", object{}},
        {"runtimePolicy", runtimePolicy},
        {"scheduler", object{{"podLabels", object{}}, {"podAnnotations", object{}}}},
        {"jobSetSpec", object{{"replicatedJobs", array{object{{"name", "node"}}}}}},
        {"podSets", array{object{{"name", "node"},
                                 {"ancestor", "trainer"},
                                 {"count", 1},
                                 {"containers", array{object{{"name", "node"},
                                                             {"env", array{object{{"name", "KEEP"}, {"value", "1"}}}},
                                                             {"ports", array{}},
                                                             {"volumeMounts", array{}}}}},
                                 {"initContainers", array{}},
                                 {"volumes", array{}},
                                 {"endpoints", array{}},
                                 {"singlePodRequests", object{}}}}}};
}
