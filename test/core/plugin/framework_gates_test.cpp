// Feature-gate claims and the Info's operator member (sdk/docs/abi.md rule 12, info.md):
// a plugin claiming featureGate:<Name> runs only while the operator has that gate on, its
// other claims hold only then, hooks see the operator's settings, and no plugin edits them.
#include <boost/test/unit_test.hpp>

#include "core/plugin/framework.hpp"
#include "core/plugin/operator_settings.hpp"
#include "test_support.hpp"

#include <mutex>

using namespace trainer::core;
namespace json = boost::json;

BOOST_AUTO_TEST_SUITE(framework_gates)

namespace {

struct Loaded {
    PluginDir dir;
    PluginRegistry registry;
    std::vector<std::string> logs;
    std::mutex mu;
    Loaded(const std::vector<std::string>& fixtures, const std::map<std::string, std::string>& configs = {})
        : dir(fixtures) {
        registry.setLogSink([this](const std::string& plugin, int32_t, std::string_view msg) {
            std::lock_guard<std::mutex> g(mu);
            logs.push_back(plugin + "|" + std::string(msg));
        });
        PluginOptions o = testOptions();
        o.configs = configs;
        registry.loadDirectory(dir.dir.string(), o);
    }
};

OperatorSettings gates(std::map<std::string, bool> g) {
    OperatorSettings s;
    s.featureGates = std::move(g);
    return s;
}

std::string allErrors(const Diagnostics& d) {
    std::string s;
    for (auto const& e : d.errors) s += e.path + ": " + e.message + "\n";
    return s;
}

const ObjectSet kEmpty;

}  // namespace

BOOST_AUTO_TEST_CASE(claim_parsing) {
    BOOST_TEST(featureGateOfClaim("featureGate:TrainJobStatus").value_or("") == "TrainJobStatus");
    BOOST_TEST(!featureGateOfClaim("mlPolicy.torch"));
    BOOST_TEST(!featureGateOfClaim("featureGate"));
    Loaded l({"gated", "alpha"});
    BOOST_REQUIRE(l.registry.find("gated"));
    BOOST_TEST(claimedFeatureGates(*l.registry.find("gated")) == std::vector<std::string>{"Gated"});
    BOOST_TEST(claimedFeatureGates(*l.registry.find("alpha")).empty());
    // The loader may warn about gates the operator does not know.
    BOOST_TEST(unknownFeatureGates(*l.registry.find("gated"), gates({{"TrainJobStatus", false}})) ==
               std::vector<std::string>{"Gated"});
    BOOST_TEST(unknownFeatureGates(*l.registry.find("gated"), gates({{"Gated", false}})).empty());
}

// Off by default, off when false, off when the operator does not know the gate; on when true.
BOOST_AUTO_TEST_CASE(active_only_with_the_gate_on) {
    Loaded l({"gated", "alpha"});
    auto* gated = l.registry.find("gated");
    auto* alpha = l.registry.find("alpha");
    BOOST_REQUIRE(gated);
    auto info = minimalInfo({{"alpha", json::object{}}});
    struct Case {
        const char* name;
        OperatorSettings settings;
        bool active;
    };
    for (auto const& c : {Case{"default settings", OperatorSettings{}, false},
                          Case{"gate false", gates({{"Gated", false}}), false},
                          Case{"unknown gate", gates({{"TrainJobStatus", true}}), false},
                          Case{"gate true", gates({{"Gated", true}}), true}}) {
        BOOST_TEST_CONTEXT(c.name) {
            Framework fw(l.registry, {}, c.settings);
            BOOST_TEST(fw.active(*gated, fw.withOperator(info)) == c.active);
            BOOST_TEST(fw.active(*gated, info) == c.active);  // no operator member: the settings
            BOOST_TEST(fw.active(*alpha, fw.withOperator(info)));
        }
    }
    // The Info's own operator member decides when present.
    Framework on(l.registry, {}, gates({{"Gated", true}}));
    auto off = info;
    off["operator"] = json::object{{"featureGates", json::object{{"Gated", false}}}};
    BOOST_TEST(!on.active(*gated, off));
    off["operator"] = json::object{};
    BOOST_TEST(!on.active(*gated, off));
}

// Through build: with the gate off the gated plugin's edits and objects are absent.
BOOST_AUTO_TEST_CASE(build_runs_gated_plugins_only_with_the_gate_on) {
    Loaded l({"gated"}, {{"gated", R"({"env": "GATED_ENV", "object": "g"})"}});
    auto info = minimalInfo();
    Framework off(l.registry);
    auto r = off.build(info, kEmpty);
    BOOST_TEST(r.diagnostics.ok(), allErrors(r.diagnostics));
    BOOST_TEST(r.objects.empty());
    BOOST_TEST(r.info.at("podSets").as_array()[0].at("containers").as_array()[0].at("env").as_array().size() == 1u);
    Framework on(l.registry, {}, gates({{"Gated", true}}));
    r = on.build(info, kEmpty);
    BOOST_TEST(r.diagnostics.ok(), allErrors(r.diagnostics));
    BOOST_REQUIRE_EQUAL(r.objects.size(), 1u);
    BOOST_TEST(keyOf(r.objects[0]).name == "job-g");
    auto const& env = r.info.at("podSets").as_array()[0].at("containers").as_array()[0].at("env").as_array();
    BOOST_REQUIRE_EQUAL(env.size(), 2u);
    BOOST_TEST(env[1].at("name").as_string() == "GATED_ENV");
}

// A gated-off plugin's claims do not hold (upstream does not register the plugin at all).
BOOST_AUTO_TEST_CASE(claims_hold_only_with_the_gate_on) {
    Loaded l({"gated", "alpha"}, {{"alpha", R"({"env": "GATED_ENV"})"}});
    auto info = minimalInfo({{"alpha", json::object{}}});
    auto r = Framework(l.registry).build(info, kEmpty);
    BOOST_TEST(r.diagnostics.ok(), allErrors(r.diagnostics));
    r = Framework(l.registry, {}, gates({{"Gated", true}})).build(info, kEmpty);
    BOOST_TEST(allErrors(r.diagnostics).find("\"env:GATED_ENV\" is claimed by plugin gated") != std::string::npos,
               allErrors(r.diagnostics));
}

// A runtime policy whose only claimer is gated off is refused, naming the plugin and the gate.
BOOST_AUTO_TEST_CASE(policy_of_a_gated_off_plugin) {
    Loaded l({"gated_policy"});
    auto info = minimalInfo({{"gatedpolicy", json::object{}}});
    auto d = Framework(l.registry).checkPolicies(info);
    BOOST_REQUIRE_EQUAL(d.errors.size(), 1u);
    BOOST_TEST(d.errors[0].path == "spec.mlPolicy");
    BOOST_TEST(d.errors[0].message ==
               "ClusterTrainingRuntime \"rt\" configures mlPolicy.gatedpolicy, but plugin gated-policy, which claims it, is "
               "off: it needs feature gate(s) PolicyGate enabled");
    BOOST_TEST(Framework(l.registry, {}, gates({{"PolicyGate", true}})).checkPolicies(info).ok());
}

// Every hook receives the operator member, replacing any the caller put in the Info.
BOOST_AUTO_TEST_CASE(hooks_receive_the_operator_member) {
    Loaded l({"alpha"}, {{"alpha", R"({"logOperator": true})"}});
    OperatorSettings s = gates({{"Gated", true}, {"TrainJobStatus", false}});
    s.operatorNamespace = "ops";
    s.serviceName = "svc";
    s.webhookSecretName = "certs";
    s.statusServerPort = 8443;
    Framework fw(l.registry, {}, s);
    auto info = minimalInfo({{"alpha", json::object{}}});
    info["operator"] = json::object{{"namespace", "forged"}};
    (void)fw.build(info, kEmpty);
    info["admission"] = json::object{{"operation", "CREATE"}};
    (void)fw.validate(info, kEmpty);
    const std::string want =
        R"(alpha|operator={"namespace":"ops","serviceName":"svc","webhookSecretName":"certs","statusServer":{"port":8443},)"
        R"("featureGates":{"Gated":true,"TrainJobStatus":false}})";
    std::vector<std::string> seen;
    for (auto const& line : l.logs)
        if (line.rfind("alpha|operator=", 0) == 0) seen.push_back(line);
    BOOST_REQUIRE_EQUAL(seen.size(), 2u);  // EnforceMLPolicy, CustomValidation
    BOOST_TEST(seen[0] == want);
    BOOST_TEST(seen[1] == want);
    // Defaults: upstream's identity, no gates.
    BOOST_TEST(json::serialize(operatorInfoMember(OperatorSettings{})) ==
               R"({"namespace":"kubeflow-system","serviceName":"kubeflow-trainer-controller-manager",)"
               R"("webhookSecretName":"kubeflow-trainer-webhook-cert","statusServer":{"port":10443},"featureGates":{}})");
}

// Admission's Info has no operator member: validators receive it as withOperator() makes it,
// the member last, though validate() does not copy the Info to add it.
BOOST_AUTO_TEST_CASE(validators_receive_the_info_with_the_operator_member_last) {
    Loaded l({"alpha"}, {{"alpha", R"({"logInfo": true})"}});
    OperatorSettings s = gates({{"Gated", true}});
    s.operatorNamespace = "ops";
    Framework fw(l.registry, {}, s);
    auto info = minimalInfo({{"alpha", json::object{}}});
    info["admission"] = json::object{{"operation", "CREATE"}};
    BOOST_REQUIRE(!info.contains("operator"));
    auto d = fw.validate(info, kEmpty);
    BOOST_TEST(d.ok(), allErrors(d));
    std::vector<std::string> seen;
    for (auto const& line : l.logs)
        if (line.rfind("alpha|info=", 0) == 0) seen.push_back(line.substr(11));
    BOOST_REQUIRE_EQUAL(seen.size(), 1u);
    BOOST_TEST(seen[0] == json::serialize(fw.withOperator(info)));
    BOOST_TEST(seen[0].find(R"("admission":{"operation":"CREATE"},"operator":{"namespace":"ops")") != std::string::npos);
    // New settings (render's --feature-gates) reach the next validation whole.
    s.operatorNamespace = "ops2";
    fw.setOperatorSettings(s);
    l.logs.clear();
    BOOST_TEST(fw.validate(info, kEmpty).ok());
    seen.clear();
    for (auto const& line : l.logs)
        if (line.rfind("alpha|info=", 0) == 0) seen.push_back(line.substr(11));
    BOOST_REQUIRE_EQUAL(seen.size(), 1u);
    BOOST_TEST(seen[0] == json::serialize(fw.withOperator(info)));
    BOOST_TEST(seen[0].find(R"("operator":{"namespace":"ops2")") != std::string::npos);
}

// The operator member is the host's: a plugin editing it fails the build, naming the plugin.
BOOST_AUTO_TEST_CASE(operator_edits_are_refused) {
    for (auto const* path : {"/operator", "/operator/featureGates/Gated", "/operator/namespace"}) {
        BOOST_TEST_CONTEXT(path) {
            Loaded l({"alpha"}, {{"alpha", std::string(R"({"edit": {"op": "set", "path": ")") + path +
                                               R"(", "value": true}})"}});
            Framework fw(l.registry, {}, gates({{"Gated", false}}));
            auto r = fw.build(minimalInfo({{"alpha", json::object{}}}), kEmpty);
            BOOST_TEST(allErrors(r.diagnostics).find(std::string("plugin alpha may not edit ") + path) != std::string::npos,
                       allErrors(r.diagnostics));
            BOOST_TEST(r.objects.empty());
        }
    }
}

BOOST_AUTO_TEST_SUITE_END()
