#include <boost/test/unit_test.hpp>

#include "core/plugin/framework.hpp"
#include "test_support.hpp"

#include <mutex>
#include <thread>

using namespace trainer::core;
namespace json = boost::json;

BOOST_AUTO_TEST_SUITE(framework)

struct Loaded {
    PluginDir dir;
    PluginRegistry registry;
    std::vector<std::string> logs;
    std::mutex mu;
    Loaded(const std::vector<std::string>& fixtures, const std::map<std::string, std::string>& configs = {})
        : dir(fixtures) {
        registry.setLogSink([this](const std::string& plugin, int32_t level, std::string_view msg) {
            std::lock_guard<std::mutex> g(mu);
            logs.push_back(plugin + "|" + std::to_string(level) + "|" + std::string(msg));
        });
        PluginOptions o = testOptions();
        o.configs = configs;
        registry.loadDirectory(dir.dir.string(), o);
    }
};

std::string allErrors(const Diagnostics& d) {
    std::string s;
    for (auto const& e : d.errors) s += e.path + ": " + e.message + "\n";
    return s;
}

const ObjectSet kEmpty;

// Rule 12: unclaimed policies and several policies are refused, naming plugins.
BOOST_AUTO_TEST_CASE(policy_claims) {
    Loaded l({"alpha", "gamma", "beta"});
    Framework fw(l.registry);
    auto d = fw.checkPolicies(minimalInfo({{"numNodes", 1}, {"flux", json::object{}}}));
    BOOST_REQUIRE_EQUAL(d.errors.size(), 1u);
    BOOST_TEST(d.errors[0].path == "spec.mlPolicy");
    BOOST_TEST(d.errors[0].message ==
               "ClusterTrainingRuntime \"rt\" configures mlPolicy.flux, but no loaded plugin claims it (loaded plugins: beta, alpha, gamma)");
    d = fw.checkPolicies(minimalInfo({{"alpha", json::object{}}, {"gamma", json::object{}}}));
    BOOST_REQUIRE_EQUAL(d.errors.size(), 1u);
    BOOST_TEST(d.errors[0].message.find("mlPolicy.alpha (plugin alpha) and mlPolicy.gamma (plugin gamma)") != std::string::npos,
               d.errors[0].message);
    BOOST_TEST(fw.checkPolicies(minimalInfo({{"alpha", json::object{}}}, {{"beta", json::object{}}})).ok());
}

BOOST_AUTO_TEST_CASE(activation_by_claims) {
    Loaded l({"alpha", "plain", "beta"});
    Framework fw(l.registry);
    auto* alpha = l.registry.find("alpha");
    auto* plain = l.registry.find("plain");
    auto* beta = l.registry.find("beta");
    auto none = minimalInfo();
    auto withAlpha = minimalInfo({{"alpha", json::object{}}});
    BOOST_TEST(!fw.active(*alpha, none));
    BOOST_TEST(fw.active(*plain, none));  // the default ML policy
    BOOST_TEST(fw.active(*alpha, withAlpha));
    BOOST_TEST(!fw.active(*plain, withAlpha));
    BOOST_TEST(!fw.active(*beta, withAlpha));
    BOOST_TEST(fw.active(*beta, minimalInfo({{"alpha", json::object{}}}, {{"beta", json::object{}}})));
}

BOOST_AUTO_TEST_CASE(edits_are_applied_between_phases) {
    Loaded l({"alpha", "beta"}, {{"alpha", R"({"count": 3, "env": "ALPHA_ENV", "object": "a"})"}, {"beta", R"({"count": 3})"}});
    Framework fw(l.registry);
    auto r = fw.build(minimalInfo({{"alpha", json::object{}}}, {{"beta", json::object{}}}), kEmpty);
    BOOST_TEST(r.diagnostics.ok(), allErrors(r.diagnostics));
    auto const& ps = r.info.at("podSets").as_array()[0].as_object();
    BOOST_TEST(ps.at("count").as_int64() == 3);
    auto const& env = ps.at("containers").as_array()[0].at("env").as_array();
    BOOST_REQUIRE_EQUAL(env.size(), 2u);
    BOOST_TEST(env[1].at("name").as_string() == "ALPHA_ENV");
    BOOST_TEST(env[1].at("value").as_string() == "alpha");
    BOOST_REQUIRE_EQUAL(r.objects.size(), 1u);
    BOOST_TEST(keyOf(r.objects[0]).name == "job-a");
}

BOOST_AUTO_TEST_CASE(write_conflict_names_both_plugins) {
    Loaded l({"alpha", "beta"}, {{"alpha", R"({"count": 3})"}, {"beta", R"({"count": 4})"}});
    Framework fw(l.registry);
    auto r = fw.build(minimalInfo({{"alpha", json::object{}}}, {{"beta", json::object{}}}), kEmpty);
    BOOST_REQUIRE(!r.diagnostics.ok());
    // alpha writes in EnforceMLPolicy, beta after it in EnforcePodGroupPolicy.
    BOOST_TEST(allErrors(r.diagnostics).find("plugins alpha and beta both write /podSets/node/count with different values (alpha: 3, beta: 4)") !=
                   std::string::npos,
               allErrors(r.diagnostics));
    BOOST_TEST(r.objects.empty());
}

BOOST_AUTO_TEST_CASE(claimed_env_written_by_another_plugin) {
    Loaded l({"alpha", "beta"}, {{"beta", R"({"env": "ALPHA_ENV"})"}});
    Framework fw(l.registry);
    auto r = fw.build(minimalInfo({{"alpha", json::object{}}}, {{"beta", json::object{}}}), kEmpty);
    BOOST_TEST(allErrors(r.diagnostics).find("\"env:ALPHA_ENV\" is claimed by plugin alpha") != std::string::npos,
               allErrors(r.diagnostics));
}

// The claim tables are made with the Framework (framework.hpp: ClaimTables); plugins the registry
// loads after that still have their claims hold.
BOOST_AUTO_TEST_CASE(claims_of_plugins_loaded_after_the_framework_was_made_hold) {
    PluginDir dir({"alpha", "beta"});
    PluginRegistry registry;
    Framework fw(registry);
    PluginOptions o = testOptions();
    o.configs = {{"beta", R"({"env": "ALPHA_ENV"})"}};
    registry.loadDirectory(dir.dir.string(), o);
    auto r = fw.build(minimalInfo({{"alpha", json::object{}}}, {{"beta", json::object{}}}), kEmpty);
    BOOST_TEST(allErrors(r.diagnostics).find("\"env:ALPHA_ENV\" is claimed by plugin alpha") != std::string::npos,
               allErrors(r.diagnostics));
    BOOST_TEST(r.objects.empty());
}

BOOST_AUTO_TEST_CASE(same_object_from_two_plugins) {
    Loaded l({"alpha", "beta"}, {{"alpha", R"({"object": "x"})"}, {"beta", R"({"object": "x"})"}});
    Framework fw(l.registry);
    auto r = fw.build(minimalInfo({{"alpha", json::object{}}}, {{"beta", json::object{}}}), kEmpty);
    BOOST_TEST(allErrors(r.diagnostics).find("plugins beta and alpha both emitted ConfigMap default/job-x") != std::string::npos,
               allErrors(r.diagnostics));
}

BOOST_AUTO_TEST_CASE(object_of_a_kind_claimed_by_another) {
    Loaded l({"alpha", "serial"}, {{"alpha", R"({"object": "x"})"}});
    // serial claims kind:v1/Serial only; alpha's ConfigMap is fine.
    Framework fw(l.registry);
    auto r = fw.build(minimalInfo({{"alpha", json::object{}}}), kEmpty);
    BOOST_TEST(r.diagnostics.ok(), allErrors(r.diagnostics));
    BOOST_TEST(r.objects.size() == 1u);
}

// Rules 5/6/14: diagnostics keep severity and field path; logs carry the plugin's name.
BOOST_AUTO_TEST_CASE(diagnostics_and_logs) {
    Loaded l({"alpha"}, {{"alpha", R"({"deny": true, "warn": true})"}});
    Framework fw(l.registry);
    auto info = minimalInfo({{"alpha", json::object{}}});
    info["admission"] = json::object{{"operation", "CREATE"}};
    auto d = fw.validate(info, kEmpty);
    BOOST_REQUIRE_EQUAL(d.errors.size(), 1u);
    BOOST_TEST(d.errors[0].path == "spec.trainer");
    BOOST_TEST(d.errors[0].message == "denied by alpha");
    BOOST_REQUIRE_EQUAL(d.warnings.size(), 1u);
    BOOST_TEST(d.warnings[0].path == "spec");
    BOOST_REQUIRE(!l.logs.empty());
    BOOST_TEST(l.logs[0] == "alpha|0|validating job");
}

// Rule 7: exceptions never cross; the host names the plugin and keeps serving.
BOOST_AUTO_TEST_CASE(throwing_plugins_are_contained) {
    Loaded l({"alpha", "raw_throw"}, {{"alpha", R"({"throw": true})"}});
    Framework fw(l.registry);
    auto info = minimalInfo({{"alpha", json::object{}}});
    info["admission"] = json::object{{"operation", "CREATE"}};
    auto d = fw.validate(info, kEmpty);
    BOOST_TEST(allErrors(d).find("plugin alpha failed in CustomValidation: boom in validate") != std::string::npos, allErrors(d));
    auto r = fw.build(minimalInfo({{"alpha", json::object{}}}), kEmpty);
    BOOST_TEST(allErrors(r.diagnostics).find("plugin alpha failed in EnforceMLPolicy: boom in enforceMLPolicy") != std::string::npos,
               allErrors(r.diagnostics));
    auto raw = fw.build(minimalInfo({{"raw", json::object{}}}), kEmpty);
    BOOST_TEST(allErrors(raw.diagnostics).find("plugin raw-throw let an exception escape from EnforceMLPolicy") != std::string::npos,
               allErrors(raw.diagnostics));
    auto rawv = minimalInfo({{"raw", json::object{}}});
    rawv["admission"] = json::object{{"operation", "CREATE"}};
    BOOST_TEST(allErrors(fw.validate(rawv, kEmpty)).find("let an exception escape from CustomValidation") != std::string::npos);
    // Still serving afterwards.
    BOOST_TEST(fw.checkPolicies(minimalInfo({{"raw", json::object{}}})).ok());
}

// Rule 7, hook by hook: a throw from any hook becomes an error naming the plugin and the hook,
// the reconcile fails, and the next call works. (alpha is an ML policy, beta a pod-group one.)
BOOST_AUTO_TEST_CASE(throws_from_every_hook) {
    struct Case {
        const char* plugin;
        const char* hook;
        const char* expect;
    };
    for (auto const& c : {Case{"alpha", "validate", "plugin alpha failed in CustomValidation: boom in validate"},
                          Case{"alpha", "enforceMLPolicy", "plugin alpha failed in EnforceMLPolicy: boom in enforceMLPolicy"},
                          Case{"beta", "enforcePodGroupPolicy", "plugin beta failed in EnforcePodGroupPolicy: boom in enforcePodGroupPolicy"},
                          Case{"alpha", "build", "plugin alpha failed in ComponentBuilder: boom in build"}}) {
        BOOST_TEST_CONTEXT(c.hook) {
            Loaded l({"alpha", "beta"}, {{c.plugin, std::string(R"({"object": "x", "throw": ")") + c.hook + "\"}"}});
            Framework fw(l.registry);
            auto info = minimalInfo({{"alpha", json::object{}}}, {{"beta", json::object{}}});
            Diagnostics d;
            if (std::string(c.hook) == "validate") {
                info["admission"] = json::object{{"operation", "CREATE"}};
                d = fw.validate(info, kEmpty);
            } else {
                auto r = fw.build(info, kEmpty);
                d = r.diagnostics;
                BOOST_TEST(r.objects.empty());
            }
            BOOST_TEST(allErrors(d).find(c.expect) != std::string::npos, allErrors(d));
            BOOST_TEST(fw.checkPolicies(info).ok());
        }
    }
}

BOOST_AUTO_TEST_CASE(malformed_json_from_a_plugin) {
    Loaded l({"malformed"});
    Framework fw(l.registry);
    auto r = fw.build(minimalInfo({{"malformed", json::object{}}}), kEmpty);
    BOOST_TEST(allErrors(r.diagnostics).find("plugin malformed emitted an edit that is not a JSON object") != std::string::npos,
               allErrors(r.diagnostics));
}

// Rule 9: a plugin that is not thread-safe is never entered by two threads at once.
BOOST_AUTO_TEST_CASE(non_thread_safe_plugins_are_serialised) {
    Loaded l({"serial"}, {{"serial", R"({"count": 1, "overlaps": true})"}});
    Framework fw(l.registry);
    BOOST_REQUIRE(!l.registry.find("serial")->threadSafe);
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; ++t)
        threads.emplace_back([&] {
            for (int i = 0; i < 10; ++i) (void)fw.build(minimalInfo(), kEmpty);
        });
    for (auto& t : threads) t.join();
    BOOST_REQUIRE(!l.logs.empty());
    BOOST_TEST(l.logs.back() == "serial|0|overlaps=0");
}

BOOST_AUTO_TEST_SUITE_END()
