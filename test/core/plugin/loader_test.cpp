#define BOOST_TEST_MODULE test_core_plugin
#include <boost/test/unit_test.hpp>

#include "test_support.hpp"

#include <dlfcn.h>

using namespace trainer::core;

BOOST_AUTO_TEST_SUITE(loader)

// Rule 15: every rejected file gets one sentence naming the file and the exact reason.
struct RejectCase {
    std::string fixture;
    std::string reason;
};
const std::vector<RejectCase> kRejectCases = {
    {"no_entry", "has no entry point trn_plugin_entry"},
    {"null_descriptor", "its entry point returned no descriptor"},
    {"abi_future", "it was built for ABI 2.0, not in the host's range 1.0-1.0"},
    {"abi_past", "it was built for ABI 0.9, not in the host's range 1.0-1.0"},
    {"small_descriptor", "its descriptor is 8 bytes, smaller than the"},
    {"unnamed", "its name \"Not A Name\" is not a lowercase DNS label"},
    {"create_fails", "its create function failed: cannot start without a license file"},
};

BOOST_AUTO_TEST_CASE(rejections_name_file_and_reason) {
    for (auto const& c : kRejectCases) {
        BOOST_TEST_CONTEXT(c.fixture) {
            PluginDir d({c.fixture});
            PluginRegistry r;
            r.loadDirectory(d.dir.string(), testOptions());
            BOOST_TEST(r.plugins().empty());
            BOOST_REQUIRE_EQUAL(r.rejected().size(), 1u);
            auto const& why = r.rejected()[0].reason;
            BOOST_TEST(why.find(d.path(c.fixture)) != std::string::npos, why);
            BOOST_TEST(why.find(c.reason) != std::string::npos, why);
            BOOST_TEST(why.back() == '.');
        }
    }
}

BOOST_AUTO_TEST_CASE(text_file_named_so_is_not_elf) {
    PluginDir d({"alpha"});
    d.writeText("bogus.so", "this is not a library\n");
    d.writeText("tiny.so", "");
    PluginRegistry r;
    r.loadDirectory(d.dir.string(), testOptions());
    BOOST_TEST(r.plugins().size() == 1u);  // the host keeps going
    BOOST_TEST(rejectionFor(r, "bogus.so").find("it is not an ELF shared object") != std::string::npos);
    BOOST_TEST(rejectionFor(r, "tiny.so").find("it is not an ELF shared object") != std::string::npos);
    BOOST_TEST(r.rejected()[0].code == "not_elf");
}

BOOST_AUTO_TEST_CASE(missing_directory_is_one_rejection) {
    PluginRegistry r;
    r.loadDirectory("/nonexistent/plugins");
    BOOST_REQUIRE_EQUAL(r.rejected().size(), 1u);
    BOOST_TEST(r.rejected()[0].reason.find("/nonexistent/plugins does not exist") != std::string::npos);
}

// Rule 4: an older, shorter descriptor loads and its absent fields count as "not provided";
// the host must not read the garbage behind struct_size.
BOOST_AUTO_TEST_CASE(shorter_descriptor_loads_without_reading_past_its_size) {
    PluginDir d({"old_descriptor"});
    PluginRegistry r;
    r.loadDirectory(d.dir.string(), testOptions());
    BOOST_REQUIRE_EQUAL(r.plugins().size(), 1u);
    auto eps = r.plugins()[0]->extensionPoints();
    BOOST_TEST(eps == std::vector<std::string>{"CustomValidation"}, boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(larger_descriptor_from_a_newer_plugin_loads) {
    PluginDir d({"large_descriptor"});
    PluginRegistry r;
    r.loadDirectory(d.dir.string(), testOptions());
    BOOST_REQUIRE_EQUAL(r.plugins().size(), 1u);
    BOOST_TEST(r.plugins()[0]->version == "9.9");
    BOOST_TEST(r.plugins()[0]->implements(Hook::CustomValidation));
}

BOOST_AUTO_TEST_CASE(duplicate_name_names_the_other_path) {
    PluginDir d({"alpha", "alpha_dup"});
    PluginRegistry r;
    r.loadDirectory(d.dir.string(), testOptions());
    BOOST_REQUIRE_EQUAL(r.plugins().size(), 1u);
    auto why = rejectionFor(r, "alpha_dup.so");
    BOOST_TEST(why.find("a plugin named alpha is already loaded from " + d.path("alpha")) != std::string::npos, why);
}

// Rule 12: two plugins claiming one key is a load-time error naming both.
BOOST_AUTO_TEST_CASE(conflicting_claim_names_both) {
    PluginDir d({"alpha", "thief"});
    PluginRegistry r;
    r.loadDirectory(d.dir.string(), testOptions());
    BOOST_REQUIRE_EQUAL(r.plugins().size(), 1u);
    auto why = rejectionFor(r, "thief.so");
    BOOST_TEST(why.find("its claim \"mlPolicy.alpha\" is already held by plugin alpha (" + d.path("alpha") + ")") !=
                   std::string::npos,
               why);
}

BOOST_AUTO_TEST_CASE(only_one_status_plugin) {
    PluginDir d({"status_a", "status_b"});
    PluginRegistry r;
    r.loadDirectory(d.dir.string(), testOptions());
    BOOST_REQUIRE_EQUAL(r.plugins().size(), 1u);
    auto why = rejectionFor(r, "status_b.so");
    BOOST_TEST(why.find("too many TrainJob status plugins are registered") != std::string::npos, why);
    BOOST_TEST(why.find("status-a") != std::string::npos, why);
}

// Rule 11: priority, then name; the operator may override priorities.
BOOST_AUTO_TEST_CASE(deterministic_order_and_override) {
    PluginDir d({"gamma", "alpha", "beta", "plain"});
    {
        PluginRegistry r;
        r.loadDirectory(d.dir.string(), testOptions());
        std::vector<std::string> names;
        for (auto const& p : r.plugins()) names.push_back(p->name);
        BOOST_TEST(names == (std::vector<std::string>{"plain", "beta", "alpha", "gamma"}), boost::test_tools::per_element());
    }
    {
        PluginOptions o = testOptions();
        o.priorities["gamma"] = -5;
        o.disabled = {"beta"};
        PluginRegistry r;
        r.loadDirectory(d.dir.string(), o);
        std::vector<std::string> names;
        for (auto const& p : r.plugins()) names.push_back(p->name);
        BOOST_TEST(names == (std::vector<std::string>{"gamma", "plain", "alpha"}), boost::test_tools::per_element());
        BOOST_TEST(rejectionFor(r, "beta.so").find("plugin beta is disabled by the configuration") != std::string::npos);
    }
}

BOOST_AUTO_TEST_CASE(descriptor_contents) {
    PluginDir d({"alpha"});
    PluginRegistry r;
    r.loadDirectory(d.dir.string(), testOptions());
    BOOST_REQUIRE_EQUAL(r.plugins().size(), 1u);
    auto const& p = *r.plugins()[0];
    BOOST_TEST(p.name == "alpha");
    BOOST_TEST(p.version == "1.2.3");
    BOOST_TEST(p.abi == TRN_ABI_VERSION);
    BOOST_TEST(p.threadSafe);
    BOOST_TEST(p.sha256.size() == 64u);
    BOOST_TEST(p.claims == (std::vector<std::string>{"mlPolicy.alpha", "env:ALPHA_ENV"}), boost::test_tools::per_element());
    BOOST_REQUIRE_EQUAL(p.watches.size(), 1u);  // rule 13: watches are data
    BOOST_TEST(p.watches[0].kind == "ConfigMap");
    // The policy hook of its claim (mlPolicy.alpha) only: a policy hook needs its policy's claim.
    BOOST_TEST(p.extensionPoints() == (std::vector<std::string>{"CustomValidation", "WatchExtension", "EnforceMLPolicy",
                                                                "ComponentBuilder"}),
               boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(configuration_reaches_create) {
    PluginDir d({"alpha"});
    PluginOptions o = testOptions();
    o.configs["alpha"] = R"({"refuse": true})";
    PluginRegistry r;
    r.loadDirectory(d.dir.string(), o);
    BOOST_TEST(r.plugins().empty());
    BOOST_TEST(rejectionFor(r, "alpha.so").find("configuration refused on purpose") != std::string::npos);
    PluginOptions bad = testOptions();
    bad.configs["alpha"] = "[1,2";
    PluginRegistry r2;
    r2.loadDirectory(d.dir.string(), bad);
    BOOST_TEST(rejectionFor(r2, "alpha.so").find("configuration is not a JSON object") != std::string::npos);
}

// Rule 8: every instance is destroyed once, when the registry goes, and not before.
BOOST_AUTO_TEST_CASE(instances_are_destroyed_with_the_registry) {
    PluginDir d({"gamma"});
    auto mark = d.dir / "destroyed.txt";
    {
        PluginOptions o = testOptions();
        o.configs["gamma"] = R"({"destroyFile": ")" + mark.string() + R"("})";
        PluginRegistry r;
        r.loadDirectory(d.dir.string(), o);
        BOOST_REQUIRE_EQUAL(r.plugins().size(), 1u);
        BOOST_TEST(!fs::exists(mark));
    }
    BOOST_TEST(fs::exists(mark));
}

// create()'s warnings reach the log sink (in either isolation mode), once.
BOOST_AUTO_TEST_CASE(create_warnings_reach_the_log) {
    PluginDir d({"gamma"});
    PluginOptions o = testOptions();
    o.configs["gamma"] = R"({"warnOnCreate": true})";
    std::vector<std::string> lines;
    PluginRegistry r;
    r.setLogSink([&](const std::string& plugin, int32_t level, std::string_view msg) {
        lines.push_back(plugin + "|" + std::to_string(level) + "|" + std::string(msg));
    });
    r.loadDirectory(d.dir.string(), o);
    BOOST_REQUIRE_EQUAL(r.plugins().size(), 1u);
    BOOST_TEST(lines == (std::vector<std::string>{"gamma|1|warnOnCreate: a setting is deprecated"}));
}

// Rule 1: the public header depends on <stdint.h> and <stddef.h> only.
BOOST_AUTO_TEST_CASE(abi_header_includes_only_stdint_and_stddef) {
    std::ifstream in(std::string(TRAINER_SOURCE_DIR) + "/sdk/include/trainer/abi.h");
    BOOST_REQUIRE(in);
    std::vector<std::string> includes;
    for (std::string line; std::getline(in, line);)
        if (line.rfind("#include", 0) == 0) includes.push_back(line);
    BOOST_TEST(includes == (std::vector<std::string>{"#include <stddef.h>", "#include <stdint.h>"}),
               boost::test_tools::per_element());
}

// Rule 8: libraries loaded in-process are never unloaded, even after every instance is gone.
BOOST_AUTO_TEST_CASE(libraries_stay_loaded) {
    PluginDir d({"gamma"});
    {
        PluginRegistry r;
        PluginOptions o = testOptions();
        o.isolation.mode = Isolation::InProcess;
        r.loadDirectory(d.dir.string(), o);
        BOOST_REQUIRE_EQUAL(r.plugins().size(), 1u);
    }
    void* h = dlopen(d.path("gamma").c_str(), RTLD_NOW | RTLD_NOLOAD);
    BOOST_TEST(h != nullptr);
    if (h) dlclose(h);  // drops only the reference NOLOAD took
}

BOOST_AUTO_TEST_SUITE_END()
