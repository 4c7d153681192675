// The ABI promise (sdk/abi/README.md, issue 13 item 7): the frozen 1.0 header never changes, the
// current header keeps its 1.0 surface, a plugin built against the frozen header alone loads and
// runs every hook on this host, and hook tables and watches of other sizes are read by their
// struct_size (rule 4; descriptors: loader_test.cpp). Part of test_core_plugin, so it runs once
// per isolation mode (CMakeLists.txt: test_core_plugin and test_core_plugin_in_process).
#include <boost/test/unit_test.hpp>

#include "core/plugin/framework.hpp"
#include "core/plugin/registry_internal.hpp"
#include "fixtures/abi_1_0_surface_layout.h"
#include "test_support.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <map>
#include <mutex>

using namespace trainer::core;
namespace json = boost::json;

namespace {

// The 1.0 surface measured against the current header (the frozen side: frozen_abi_1_0_layout.c).
#define TRN_STRUCT(type) abi_surface_entry{#type, 0, sizeof(type), 0},
#define TRN_FIELD(type, member) \
    abi_surface_entry{#type "." #member, offsetof(type, member), sizeof(static_cast<type*>(nullptr)->member), 0},
#define TRN_CONSTANT(name) abi_surface_entry{#name, 0, 0, static_cast<long long>(name)},
const std::vector<abi_surface_entry> kCurrentSurface = {
#include "fixtures/abi_1_0_surface.inc"
};
#undef TRN_STRUCT
#undef TRN_FIELD
#undef TRN_CONSTANT

struct Loaded {
    PluginDir dir;
    PluginRegistry registry;
    PluginOptions options = testOptions();
    std::vector<std::string> logs;
    std::mutex mu;
    explicit Loaded(const std::vector<std::string>& fixtures) : dir(fixtures) {
        registry.setLogSink([this](const std::string& plugin, int32_t level, std::string_view msg) {
            std::lock_guard<std::mutex> g(mu);
            logs.push_back(plugin + "|" + std::to_string(level) + "|" + std::string(msg));
        });
        registry.loadDirectory(dir.dir.string(), options);
    }
    std::string rejections() const {
        std::string s;
        for (auto const& r : registry.rejected()) s += r.reason + "\n";
        return s;
    }
};

std::string allErrors(const Diagnostics& d) {
    std::string s;
    for (auto const& e : d.errors) s += e.path + ": " + e.message + "\n";
    return s;
}

json::object admitted(json::object info) {
    info["admission"] = json::object{{"operation", "CREATE"}};
    return info;
}

const json::object& scheduler(const BuildResult& r, const char* member) {
    return r.info.at("scheduler").at(member).as_object();
}

json::object configMap(const std::string& name) {
    return json::object{{"apiVersion", "v1"}, {"kind", "ConfigMap"},
                        {"metadata", json::object{{"name", name}, {"namespace", "default"}}}};
}

}  // namespace

BOOST_AUTO_TEST_SUITE(abi_compat)

// The pinned hash is the promise itself: sdk/abi/1.0/trainer/abi.h is ABI 1.0 as released
// (git show 4840a84:sdk/include/trainer/abi.h) and not one byte of it may change.
BOOST_AUTO_TEST_CASE(frozen_header_never_changes) {
    const std::string path = std::string(TRAINER_SOURCE_DIR) + "/sdk/abi/1.0/trainer/abi.h";
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    BOOST_REQUIRE_MESSAGE(fd >= 0, path);
    const std::string sha256 = detail::sha256Fd(fd);
    ::close(fd);
    BOOST_TEST(sha256 == "a0b1148437a0aee873436f13cfd0cb725863f28a31ce81faa6f4261e8a236e57");
}

// Rule 4: every 1.0 member keeps its offset and size, every 1.0 struct only grows, every 1.0
// constant keeps its value in the header plugins are built against today.
BOOST_AUTO_TEST_CASE(current_header_keeps_the_1_0_surface) {
    std::map<std::string, abi_surface_entry> current;
    for (auto const& e : kCurrentSurface) current[e.name] = e;
    size_t frozenCount = 0;
    for (const abi_surface_entry* f = frozen_abi_1_0_surface; f->name; ++f, ++frozenCount) {
        BOOST_TEST_CONTEXT(f->name) {
            auto it = current.find(f->name);
            BOOST_REQUIRE(it != current.end());
            const std::string name = f->name;
            if (name.rfind("TRN_", 0) == 0) {
                BOOST_TEST(it->second.value == f->value);
            } else if (name.find('.') == std::string::npos) {
                BOOST_TEST(it->second.size >= f->size);
            } else {
                BOOST_TEST(it->second.offset == f->offset);
                BOOST_TEST(it->second.size == f->size);
            }
        }
    }
    BOOST_TEST(frozenCount == kCurrentSurface.size());
    BOOST_TEST(frozenCount > 50u);  // the whole list, not an empty table
}

BOOST_AUTO_TEST_CASE(plugin_built_against_the_frozen_header_loads) {
    Loaded l({"frozen_abi_1_0"});
    BOOST_REQUIRE_MESSAGE(l.registry.plugins().size() == 1u, l.rejections());
    auto const& p = *l.registry.plugins()[0];
    BOOST_TEST(p.name == "frozen-abi");
    BOOST_TEST(p.abi == TRN_ABI_ENCODE(1, 0));
    BOOST_TEST(p.threadSafe);
    BOOST_TEST((p.isolation == l.options.isolation.modeFor(p.name, false)));  // this run's mode
    std::vector<std::string> all;
    for (auto const& h : kHooks) all.emplace_back(h.name);
    BOOST_TEST(p.extensionPoints() == all, boost::test_tools::per_element());
    BOOST_REQUIRE_EQUAL(p.watches.size(), 1u);
    BOOST_TEST(p.watches[0].kind == "ConfigMap");
    BOOST_TEST(p.watches[0].mode == TRN_WATCH_OWNED);
}

BOOST_AUTO_TEST_CASE(frozen_plugin_validates_and_logs) {
    Loaded l({"frozen_abi_1_0"});
    Framework fw(l.registry);
    auto d = fw.validate(admitted(minimalInfo({{"frozen", json::object{}}}, {{"frozen", json::object{}}})), ObjectSet{});
    BOOST_TEST(d.ok(), allErrors(d));
    BOOST_REQUIRE_EQUAL(d.warnings.size(), 1u);
    BOOST_TEST(d.warnings[0].path == "spec.trainer");
    BOOST_TEST(d.warnings[0].message == "validated by a plugin built for ABI 1.0");
    BOOST_TEST(std::count(l.logs.begin(), l.logs.end(), "frozen-abi|0|frozen-abi validated") == 1);
}

// Every build phase runs and its output lands; the lookup host function answers both ways.
BOOST_AUTO_TEST_CASE(frozen_plugin_runs_every_build_phase) {
    Loaded l({"frozen_abi_1_0"});
    Framework fw(l.registry);
    const auto info = minimalInfo({{"frozen", json::object{}}}, {{"frozen", json::object{}}});
    ObjectSet cluster;
    cluster.put(configMap("frozen-abi-input"));
    for (auto const& [reader, lookup] : {std::pair<const ObjectSet*, const char*>{&cluster, "found"},
                                         std::pair<const ObjectSet*, const char*>{nullptr, "absent"}}) {
        BOOST_TEST_CONTEXT(lookup) {
            const ObjectSet empty;
            auto r = fw.build(info, reader ? *reader : empty);
            BOOST_REQUIRE_MESSAGE(r.diagnostics.ok(), allErrors(r.diagnostics));
            auto const& env = r.info.at("podSets").as_array()[0].at("containers").as_array()[0].at("env").as_array();
            BOOST_TEST(env.back() == json::value(json::object{{"name", "FROZEN_ABI"}, {"value", "1.0"}}));
            BOOST_TEST(scheduler(r, "podLabels").at("frozen-abi/pod-group") == "1.0");
            BOOST_TEST(scheduler(r, "podAnnotations").at("frozen-abi/pod-spec") == "1.0");
            BOOST_TEST(scheduler(r, "podAnnotations").at("frozen-abi/pre-build") == "1.0");
            BOOST_REQUIRE_EQUAL(r.objects.size(), 1u);
            BOOST_TEST(keyOf(r.objects[0]).name == "frozen-abi-output");
            BOOST_TEST(r.objects[0].at("data").at("lookup") == lookup);
        }
    }
}

BOOST_AUTO_TEST_CASE(frozen_plugin_reports_status) {
    Loaded l({"frozen_abi_1_0"});
    Framework fw(l.registry);
    Diagnostics d;
    auto status = fw.status(minimalInfo().at("trainJob").as_object(), ObjectSet{}, d);
    BOOST_TEST(d.ok(), allErrors(d));
    BOOST_REQUIRE(status.has_value());
    BOOST_TEST(*status == (json::object{{"frozenAbi", "1.0"}}));
}

// Older tables: a function or watch field beyond struct_size is "not provided" and never read
// (old_tables puts a reporting function, mode 77 and a match field there).
BOOST_AUTO_TEST_CASE(smaller_tables_and_watches_are_read_up_to_their_size) {
    Loaded l({"old_tables", "old_watch_extension"});
    BOOST_REQUIRE_MESSAGE(l.registry.plugins().size() == 2u, l.rejections());
    auto const* old = l.registry.find("old-tables");
    BOOST_REQUIRE(old);
    BOOST_TEST(old->extensionPoints() == (std::vector<std::string>{"WatchExtension", "EnforcePodSpec"}),
               boost::test_tools::per_element());
    BOOST_REQUIRE_EQUAL(old->watches.size(), 1u);
    BOOST_TEST(old->watches[0].kind == "Secret");
    BOOST_TEST(old->watches[0].mode == TRN_WATCH_OWNED);  // absent: the default
    BOOST_TEST(old->watches[0].matchField.empty());
    auto const* shortList = l.registry.find("old-watch-extension");
    BOOST_REQUIRE(shortList);
    BOOST_TEST(shortList->watches.empty());  // watch_count lies beyond its table's size
    BOOST_TEST(shortList->extensionPoints() == std::vector<std::string>{"CustomValidation"},
               boost::test_tools::per_element());
    Framework fw(l.registry);
    auto d = fw.validate(admitted(minimalInfo()), ObjectSet{});
    BOOST_TEST(d.ok(), allErrors(d));
    auto r = fw.build(minimalInfo(), ObjectSet{});
    BOOST_REQUIRE_MESSAGE(r.diagnostics.ok(), allErrors(r.diagnostics));
    BOOST_TEST(scheduler(r, "podLabels").at("old-tables") == "ran");
}

// Newer tables: fields this host does not know are ignored; the known ones are used.
BOOST_AUTO_TEST_CASE(larger_tables_and_watches_from_a_newer_plugin_work) {
    Loaded l({"new_tables"});
    BOOST_REQUIRE_MESSAGE(l.registry.plugins().size() == 1u, l.rejections());
    auto const& p = *l.registry.plugins()[0];
    BOOST_TEST(p.extensionPoints() == (std::vector<std::string>{"CustomValidation", "WatchExtension", "EnforceMLPolicy"}),
               boost::test_tools::per_element());
    BOOST_REQUIRE_EQUAL(p.watches.size(), 1u);
    BOOST_TEST(p.watches[0].mode == TRN_WATCH_SUSPENDED_MATCHING);
    BOOST_TEST(p.watches[0].matchField == "spec.x");
    Framework fw(l.registry);
    const auto info = minimalInfo({{"newtables", json::object{}}});
    auto d = fw.validate(admitted(info), ObjectSet{});
    BOOST_REQUIRE_EQUAL(d.warnings.size(), 1u);
    BOOST_TEST(d.warnings[0].message == "validated through a larger table");
    auto r = fw.build(info, ObjectSet{});
    BOOST_REQUIRE_MESSAGE(r.diagnostics.ok(), allErrors(r.diagnostics));
    BOOST_TEST(scheduler(r, "podLabels").at("new-tables") == "ran");
}

BOOST_AUTO_TEST_SUITE_END()
