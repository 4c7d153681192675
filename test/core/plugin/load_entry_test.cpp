// PluginRegistry::loadEntry (a plugin whose entry point is linked into the process, what the
// SDK's testing library hosts plugin classes with) takes the same checks and gives the same
// refusals as a file once open; Framework::build runs a chosen slice of the build phases.
// Part of test_core_plugin: runs once per isolation mode (loadEntry is in-process in both).
#include <boost/test/unit_test.hpp>

#include "core/plugin/framework.hpp"
#include "test_support.hpp"

#include <trainer/plugin.hpp>

using namespace trainer::core;
namespace sdk = trainer::sdk;
namespace json = boost::json;

namespace {

// An ML policy "linked": a count edit in EnforceMLPolicy, an env edit in PreComponentBuilder.
struct Linked : sdk::Plugin, sdk::EnforceMLPolicy, sdk::PreComponentBuilder {
    std::string value;
    Linked(const json::object& config, sdk::Context& ctx) : value(sdk::getString(config, "value").value_or("none")) {
        if (config.contains("refuse")) ctx.error("refuse", "linked refuses");
    }
    static sdk::PluginMeta meta() { return {"linked", "1.0.0", "in-process", 7, true, {"mlPolicy.linked", "env:LINKED"}, {}}; }
    void enforceMLPolicy(const sdk::Info&, sdk::Edits& edits, sdk::Context&) override { edits.setCount("node", 9); }
    void preBuild(const sdk::Info&, sdk::Edits& edits, sdk::Context&) override {
        edits.upsertEnv("node", "node", "LINKED", value);
    }
};
const trn_plugin_descriptor* linkedEntry(const trn_host_info* h) { return sdk::detail::Adapter<Linked>::entry(h); }

// Claims the policy the file fixture alpha claims.
struct Thief : sdk::Plugin, sdk::EnforceMLPolicy {
    Thief(const json::object&, sdk::Context&) {}
    static sdk::PluginMeta meta() { return {"thief-linked", "1.0.0", "steals", 0, true, {"mlPolicy.alpha"}, {}}; }
    void enforceMLPolicy(const sdk::Info&, sdk::Edits&, sdk::Context&) override {}
};
const trn_plugin_descriptor* thiefEntry(const trn_host_info* h) { return sdk::detail::Adapter<Thief>::entry(h); }

const trn_plugin_descriptor* nullEntry(const trn_host_info*) { return nullptr; }

// A descriptor for ABI 2.0, outside every 1.x host's range.
const trn_plugin_descriptor* futureEntry(const trn_host_info* h) {
    static trn_plugin_descriptor d = *sdk::detail::Adapter<Linked>::entry(h);
    d.abi_version = TRN_ABI_ENCODE(2, 0);
    return &d;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(load_entry)

BOOST_AUTO_TEST_CASE(loads_like_a_file_with_its_configuration) {
    PluginRegistry r;
    PluginOptions o = testOptions();
    o.configs["linked"] = R"({"value":"configured"})";
    o.priorities["linked"] = 3;
    BOOST_TEST_REQUIRE(r.loadEntry(&linkedEntry, "in-process:linked", o));
    auto* p = r.find("linked");
    BOOST_REQUIRE(p);
    BOOST_TEST(p->path == "in-process:linked");
    BOOST_TEST(p->sha256 == "");
    BOOST_TEST(p->priority == 3);
    BOOST_TEST((p->isolation == Isolation::InProcess));
    BOOST_TEST(!p->remote);
    BOOST_TEST((p->claims == std::vector<std::string>{"mlPolicy.linked", "env:LINKED"}));
    BOOST_TEST((p->extensionPoints() == std::vector<std::string>{"EnforceMLPolicy", "PreComponentBuilder"}));
    // The configuration reached create(): the PreComponentBuilder edit carries it.
    Framework fw(r);
    auto info = minimalInfo(json::object{{"numNodes", 1}, {"linked", json::object{}}});
    auto b = fw.build(info, ObjectSet{});
    BOOST_TEST_REQUIRE(b.diagnostics.ok());
    auto& env = b.info.at("podSets").at(0).at("containers").at(0).at("env").as_array();
    BOOST_TEST(json::serialize(env.back()) == R"({"name":"LINKED","value":"configured"})");
}

BOOST_AUTO_TEST_CASE(refusals_are_the_files_sentences) {
    PluginDir d({"alpha"});
    PluginRegistry r;
    BOOST_TEST_REQUIRE(r.loadFile(d.path("alpha"), testOptions()));
    PluginOptions refuse = testOptions();
    refuse.configs["linked"] = R"({"refuse":true})";
    struct Case {
        trn_plugin_entry_fn entry;
        std::string name;
        PluginOptions options;
        std::string reason, code;
    };
    const std::vector<Case> cases = {
        {&thiefEntry, "in-process:thief", testOptions(),
         "its claim \"mlPolicy.alpha\" is already held by plugin alpha (" + r.find("alpha")->path + ")", "conflicting_claim"},
        {nullptr, "no-entry", testOptions(), "it has no entry point", "no_entry_point"},
        {&nullEntry, "null", testOptions(), "its entry point returned no descriptor", "no_descriptor"},
        {&futureEntry, "future", testOptions(), "it was built for ABI 2.0, not in the host's range 1.0-1." +
                                                    std::to_string(TRN_ABI_MINOR), "abi_out_of_range"},
        {&linkedEntry, "refusing", refuse, "its create function failed: linked refuses", "create_failed"},
    };
    for (auto const& c : cases) {
        BOOST_TEST_CONTEXT(c.name) {
            const size_t before = r.rejected().size();
            BOOST_TEST(!r.loadEntry(c.entry, c.name, c.options));
            BOOST_REQUIRE_EQUAL(r.rejected().size(), before + 1);
            BOOST_TEST(r.rejected().back().path == c.name);
            BOOST_TEST(r.rejected().back().reason == "plugin " + c.name + " was rejected: " + c.reason + ".");
            BOOST_TEST(r.rejected().back().code == c.code);
        }
    }
    BOOST_TEST(r.names() == "alpha");
    // A second copy of a loaded plugin is a duplicate name, as for files.
    BOOST_TEST(r.loadEntry(&linkedEntry, "first", testOptions()));
    BOOST_TEST(!r.loadEntry(&linkedEntry, "second", testOptions()));
    BOOST_TEST(r.rejected().back().reason == "plugin second was rejected: a plugin named linked is already loaded from first.");
}

BOOST_AUTO_TEST_CASE(build_runs_the_phases_asked_for) {
    PluginRegistry r;
    BOOST_TEST_REQUIRE(r.loadEntry(&linkedEntry, "in-process:linked", testOptions()));
    Framework fw(r);
    auto info = minimalInfo(json::object{{"numNodes", 1}, {"linked", json::object{}}});
    const Hook pre[] = {Hook::PreComponentBuilder};
    auto b = fw.build(info, ObjectSet{}, pre);
    BOOST_TEST_REQUIRE(b.diagnostics.ok());
    BOOST_TEST(b.info.at("podSets").at(0).at("count") == 1);  // EnforceMLPolicy did not run
    BOOST_TEST(b.info.at("podSets").at(0).at("containers").at(0).at("env").as_array().size() == 2u);
    auto all = fw.build(info, ObjectSet{});
    BOOST_TEST(all.info.at("podSets").at(0).at("count") == 9);
    // Listed out of order: still pipeline order, one ledger.
    const Hook both[] = {Hook::PreComponentBuilder, Hook::EnforceMLPolicy};
    BOOST_TEST(fw.build(info, ObjectSet{}, both).info == all.info);
    const Hook notBuild[] = {Hook::EnforcePodSpec, Hook::CustomValidation, Hook::TrainJobStatus};
    auto bad = fw.build(info, ObjectSet{}, notBuild);
    BOOST_REQUIRE_EQUAL(bad.diagnostics.errors.size(), 2u);
    BOOST_TEST(bad.diagnostics.errors[0].message == "CustomValidation is not a build phase");
    BOOST_TEST(bad.diagnostics.errors[1].message == "TrainJobStatus is not a build phase");
}

BOOST_AUTO_TEST_SUITE_END()
