// A claim conflict never evicts a shipped plugin (issue 13 item 5): in a copy of the build's
// plugin directory (the shipped .so files and their shipped-plugins.sha256), a file that is not
// shipped and claims mlPolicy.torch and env:PET_NNODES (fault_theft.so,
// fixtures/fault_fixture.cpp) is refused naming torch, and torch loads. fault_theft.so sorts
// before torch.so: loading in file-name order would have evicted torch. In both isolation modes.
#define BOOST_TEST_MODULE test_core_plugin_shipped_first
#include <boost/test/unit_test.hpp>

#include "test_support.hpp"

#include "core/plugin/hash_cache.hpp"

#include <sys/stat.h>

#include <chrono>
#include <thread>

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

// Bytes this process has read so far (/proc/self/io rchar: every read and pread, all threads).
uint64_t bytesRead() {
    std::ifstream io("/proc/self/io");
    std::string key;
    uint64_t value = 0;
    while (io >> key >> value)
        if (key == "rchar:") return value;
    BOOST_FAIL("no rchar in /proc/self/io");
    return 0;
}

// Waits until every file of `dir` is older than the hash cache's settle time (the event itself,
// with a generous bound), as installed plugins are.
void waitSettled(const fs::path& dir) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    auto newest = [&] {
        auto t = fs::file_time_type::min();
        for (auto const& e : fs::directory_iterator(dir)) t = std::max(t, fs::last_write_time(e.path()));
        return t;
    };
    while (fs::file_time_type::clock::now() - newest() < detail::kHashCacheSettle + std::chrono::milliseconds(500)) {
        BOOST_REQUIRE(std::chrono::steady_clock::now() < deadline);
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
}

}  // namespace

// Ordering hashes a file its manifest does not name (is it a copy of a shipped one?) through the
// directory's hash cache, as loading does: a later start-up reads none of the third party's bytes.
// fault_theft.so is padded to 1 MiB (trailing bytes an ELF loader ignores) so a read shows.
BOOST_AUTO_TEST_CASE(ordering_reads_a_third_partys_file_through_the_hash_cache) {
    ShippedDirWithTheft files;
    const auto theft = files.dir.path("fault_theft");
    std::ofstream(theft, std::ios::app | std::ios::binary) << std::string(1 << 20, '\0');
    waitSettled(files.dir.dir);
    {
        PluginRegistry first;
        first.loadDirectory(files.dir.dir.string(), {});
        BOOST_REQUIRE(first.find("torch"));
    }
    PluginRegistry second;
    const uint64_t before = bytesRead();
    second.loadDirectory(files.dir.dir.string(), {});
    const uint64_t read = bytesRead() - before;
    BOOST_REQUIRE(second.find("torch"));
    BOOST_TEST(second.filesHashed() == 0);
    BOOST_TEST(read < (512u << 10), "the second start-up read " << read << " bytes; " << theft << " is "
                                                                << fs::file_size(theft) << " bytes");
}

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
