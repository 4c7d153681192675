// A claim conflict never evicts a shipped plugin (issue 13 item 5): in a copy of the build's
// plugin directory (the shipped .so files and their shipped-plugins.sha256), a file that is not
// shipped and claims mlPolicy.torch and env:PET_NNODES (fault_theft.so,
// fixtures/fault_fixture.cpp) is refused naming torch, and torch loads. fault_theft.so sorts
// before torch.so: loading in file-name order would have evicted torch. In both isolation modes.
#define BOOST_TEST_MODULE test_core_plugin_shipped_first
#include <boost/test/unit_test.hpp>

#include "test_support.hpp"

#include <sys/stat.h>

using namespace trainer::core;

namespace {

// The build's plugin directory and fault_theft.so, owned by us: files 0644, directory 0755.
struct ShippedDirWithTheft {
    PluginDir dir{{}};
    ShippedDirWithTheft() {
        ::chmod(dir.dir.c_str(), 0755);
        auto copy = [&](const fs::path& from) {
            fs::copy_file(from, dir.dir / from.filename());
            ::chmod((dir.dir / from.filename()).c_str(), 0644);
        };
        for (auto const& e : fs::directory_iterator(TRAINER_PLUGIN_BUILD_DIR))
            if (e.is_regular_file()) copy(e.path());
        copy(fs::path(TRAINER_FAULT_FIXTURE_DIR) / "fault_theft.so");
    }
};

}  // namespace

BOOST_AUTO_TEST_CASE(a_claim_conflict_refuses_the_file_that_is_not_shipped) {
    ShippedDirWithTheft files;
    BOOST_REQUIRE_MESSAGE(fs::exists(files.dir.dir / kShippedManifest), "the build wrote no shipped manifest");
    BOOST_REQUIRE(fs::exists(files.dir.path("torch")));
    for (auto const* mode : {"", "inProcess"}) {
        BOOST_TEST_CONTEXT("isolation \"" << mode << "\"") {
            PluginOptions o;
            if (*mode) o.isolation.mode = parseIsolation(mode);
            PluginRegistry registry;
            registry.loadDirectory(files.dir.dir.string(), o);
            auto* torch = registry.find("torch");
            BOOST_REQUIRE(torch);
            BOOST_TEST(torch->shipped);
            BOOST_TEST(registry.claimOwner("mlPolicy.torch") == torch);
            BOOST_TEST(registry.claimOwner("env:PET_NNODES") == torch);
            BOOST_TEST(!registry.find("fault-theft"));
            BOOST_REQUIRE_EQUAL(registry.rejected().size(), 1u);  // nothing else of the directory
            auto const& r = registry.rejected()[0];
            BOOST_TEST(r.path == files.dir.path("fault_theft"));
            BOOST_TEST(r.code == "conflicting_claim");
            BOOST_TEST(r.reason == "plugin " + files.dir.path("fault_theft") +
                                       " was rejected: its claim \"mlPolicy.torch\" is already held by plugin torch (" +
                                       files.dir.path("torch") + ").");
        }
    }
}

// The same without the manifest in the directory: copies of the shipped files are known by the
// hashes the operator got from its installed directory (PluginOptions::shippedHashes).
BOOST_AUTO_TEST_CASE(copies_of_shipped_files_load_first_without_a_manifest) {
    ShippedDirWithTheft files;
    fs::remove(files.dir.dir / kShippedManifest);
    PluginOptions o;
    o.shippedHashes = readShippedManifest(TRAINER_PLUGIN_BUILD_DIR);
    BOOST_REQUIRE(!o.shippedHashes.empty());
    PluginRegistry registry;
    registry.loadDirectory(files.dir.dir.string(), o);
    auto* torch = registry.find("torch");
    BOOST_REQUIRE(torch);
    BOOST_TEST(torch->shipped);
    BOOST_TEST((torch->isolation == Isolation::InProcess));
    BOOST_TEST(!registry.find("fault-theft"));
    BOOST_REQUIRE_EQUAL(registry.rejected().size(), 1u);
    BOOST_TEST(registry.rejected()[0].code == "conflicting_claim");
}
