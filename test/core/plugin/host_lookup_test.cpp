// The host API's lookup tells a failed cluster read from absence (abi.h TRN_LOOKUP_ERROR): the
// plugin is answered TRN_LOOKUP_ERROR and the call gets an error diagnostic naming the read, so
// even a plugin that takes any non-FOUND answer for "absent" has its result discarded. In both
// isolation modes: in the operator's process, and in a plugin-host child over its socket.
#define BOOST_TEST_MODULE test_core_plugin_lookup
#include <boost/test/unit_test.hpp>

#include "core/plugin/call.hpp"
#include "core/plugin/framework.hpp"
#include "test_support.hpp"

using namespace trainer::core;
namespace json = boost::json;

namespace {

const ObjectKey kSecret{"v1", "Secret", "default", "job-key"};
const std::string kLocked = "store: sqlite step: database is locked";

// An ObjectSet whose reads of `failing` answer Error, as the store does when SQLite fails.
class FailingReader : public ClusterReader {
public:
    ReadResult get(const ObjectKey& key) const override {
        if (key == failing) return ReadResult::error(kLocked);
        return objects.get(key);
    }
    ListResult list(const std::string& a, const std::string& k, const std::optional<std::string>& ns) const override {
        return objects.list(a, k, ns);
    }
    ObjectSet objects;
    ObjectKey failing;
};

struct Loaded {
    PluginDir dir{{"old_lookup"}};
    PluginRegistry registry;
    explicit Loaded(Isolation mode) {
        PluginOptions o;
        o.isolation.mode = mode;
        registry.loadDirectory(dir.dir.string(), o);
        BOOST_REQUIRE_MESSAGE(registry.find("old-lookup"), "fixture old-lookup not loaded: " << rejectionFor(registry, "old_lookup"));
    }
};

// The code the plugin was answered, from the ConfigMap it emits, or "" when it emitted none.
std::string codeSeen(const std::vector<std::string>& emitted) {
    for (auto const& e : emitted) {
        auto o = json::parse(e).as_object();
        if (o.at("kind") == "ConfigMap") return std::string(o.at("data").at("code").as_string());
    }
    return "";
}

bool emitsSecret(const std::vector<std::string>& emitted) {
    for (auto const& e : emitted)
        if (json::parse(e).at("kind") == "Secret") return true;
    return false;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(host_lookup)

BOOST_AUTO_TEST_CASE(found_not_found_and_error_reach_the_plugin_as_three_codes) {
    for (auto mode : {Isolation::InProcess, Isolation::Process}) {
        BOOST_TEST_CONTEXT("isolation " << toString(mode)) {
            Loaded l(mode);
            const auto& plugin = *l.registry.find("old-lookup");
            const std::string input = json::serialize(minimalInfo());
            FailingReader reader;

            auto absent = invokeHook(plugin, Hook::ComponentBuilder, input, &reader, &l.registry.logSink());
            BOOST_TEST(absent.ok());
            BOOST_TEST(codeSeen(absent.emitted) == std::to_string(TRN_LOOKUP_NOT_FOUND));
            BOOST_TEST(emitsSecret(absent.emitted));

            reader.objects.put(json::object{{"apiVersion", "v1"}, {"kind", "Secret"},
                                            {"metadata", json::object{{"name", "job-key"}, {"namespace", "default"}}}});
            auto present = invokeHook(plugin, Hook::ComponentBuilder, input, &reader, &l.registry.logSink());
            BOOST_TEST(present.ok());
            BOOST_TEST(codeSeen(present.emitted) == std::to_string(TRN_LOOKUP_FOUND));
            BOOST_TEST(!emitsSecret(present.emitted));

            reader.failing = kSecret;
            auto failed = invokeHook(plugin, Hook::ComponentBuilder, input, &reader, &l.registry.logSink());
            BOOST_TEST(failed.status == TRN_OK);  // the plugin carried on as if absent ...
            BOOST_TEST(codeSeen(failed.emitted) == std::to_string(TRN_LOOKUP_ERROR));
            BOOST_TEST(!failed.ok());  // ... but the host's diagnostic fails the call
            BOOST_REQUIRE_EQUAL(failed.diagnostics.size(), 1u);
            BOOST_TEST(failed.diagnostics[0].severity == TRN_SEVERITY_ERROR);
            BOOST_TEST(failed.diagnostics[0].message ==
                       "cluster read of Secret default/job-key failed: " + kLocked);
        }
    }
}

// Through the framework: the regenerated Secret the old plugin emitted is discarded with the
// rest of the build, and the error names the plugin's read.
BOOST_AUTO_TEST_CASE(the_build_discards_what_a_plugin_built_on_a_failed_read) {
    for (auto mode : {Isolation::InProcess, Isolation::Process}) {
        BOOST_TEST_CONTEXT("isolation " << toString(mode)) {
            Loaded l(mode);
            Framework fw(l.registry);
            FailingReader reader;
            reader.failing = kSecret;
            auto r = fw.build(minimalInfo(), reader);
            BOOST_TEST(r.objects.empty());
            BOOST_REQUIRE(!r.diagnostics.ok());
            std::string all;
            for (auto const& e : r.diagnostics.errors) all += e.message + "\n";
            BOOST_TEST(all.find("cluster read of Secret default/job-key failed: " + kLocked) != std::string::npos, all);

            reader.failing = {};
            auto healthy = fw.build(minimalInfo(), reader);
            BOOST_TEST(healthy.diagnostics.ok());
            BOOST_TEST(healthy.objects.size() == 2u);
        }
    }
}

BOOST_AUTO_TEST_SUITE_END()
