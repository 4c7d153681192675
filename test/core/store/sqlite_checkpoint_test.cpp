// The store's write-ahead-log checkpoints (core/store/sqlite_checkpointer.hpp, issue 14 P4): on a
// thread of their own by default, inline when asked; either way the log stays bounded and every
// committed object is in the file when it is opened again.
#include <boost/test/unit_test.hpp>

#include "store_test_util.hpp"

#include <chrono>
#include <filesystem>
#include <thread>

using namespace trainer::core;
using namespace trainer::core::test;

namespace {

constexpr int kPages = 32;     // a checkpoint every 32 log pages (128 KiB)
constexpr int kObjects = 1000;  // 1000 commits of a few pages each: over 10 MB of log unchecked

SqliteStoreOptions smallLog(bool background) {
    SqliteStoreOptions o;
    o.durable = false;  // NORMAL: the commits themselves are not synced; checkpoints are
    o.checkpointPages = kPages;
    o.backgroundCheckpoints = background;
    return o;
}

json::object bigConfigMap(int i) {
    json::object cm = configMap("cm-" + std::to_string(i));
    cm["data"].as_object()["payload"] = std::string(3000, static_cast<char>('a' + i % 26));
    return cm;
}

uintmax_t walBytes(const std::string& db) {
    std::error_code ec;
    auto n = std::filesystem::file_size(db + "-wal", ec);
    return ec ? 0 : n;
}

// Writes kObjects ConfigMaps, one commit each; returns the log's largest size seen after a commit.
uintmax_t writeAll(Store& store, const std::string& db) {
    uintmax_t largest = 0;
    for (int i = 0; i < kObjects; ++i) {
        BOOST_TEST_REQUIRE(store.create(bigConfigMap(i)).status == StoreStatus::Ok);
        largest = std::max(largest, walBytes(db));
    }
    return largest;
}

void expectAllStored(const std::string& db) {
    auto reopened = SqliteStore::open(db, smallLog(true));
    BOOST_TEST_REQUIRE(reopened.error == "");
    auto list = reopened.store->list("v1", "ConfigMap");
    BOOST_TEST_REQUIRE(list.ok());
    BOOST_TEST(list.value.size() == static_cast<size_t>(kObjects));
}

// Eight times the threshold (the commit that finds the log there waits for the thread and
// checkpoints inline), plus one commit's pages: far below the unchecked log.
constexpr uintmax_t kBound = 10 * kPages * (4096 + 24) + 32;

}  // namespace

// Writes everything through a store with or without the thread, checks the log stayed within
// `bound` bytes and that the checkpoints the thread ran satisfy `ranEnough`, then that a fresh
// open finds every object.
template <class Check>
void writeThrough(bool background, uintmax_t bound, Check ranEnough) {
    TempDir dir;
    const std::string db = dir.file("s.db");
    {
        auto opened = SqliteStore::open(db, smallLog(background));
        BOOST_TEST_REQUIRE(opened.error == "");
        const uintmax_t largest = writeAll(*opened.store, db);
        BOOST_TEST(largest <= bound, "largest log " << largest << " bytes");
        BOOST_TEST(ranEnough(*opened.store));
    }
    expectAllStored(db);
}

BOOST_AUTO_TEST_CASE(checkpoints_run_on_their_own_thread_and_bound_the_log) {
    writeThrough(true, kBound, [](const SqliteStore& store) {
        // The thread is asked on the commit past the threshold; wait for it (generous bound).
        for (int i = 0; i < 600 && store.backgroundCheckpoints() == 0; ++i)
            std::this_thread::sleep_for(std::chrono::milliseconds(100));
        return store.backgroundCheckpoints() >= 1;
    });
}

// SQLite checkpoints after the commit that takes the log past the threshold, so the log reaches
// the threshold plus that commit's pages: one object's row and its index and change-feed pages,
// more when a B-tree page splits (17 pages were seen once). Twice the threshold is still far below
// the unchecked log (over 10 MB).
BOOST_AUTO_TEST_CASE(without_the_thread_checkpoints_run_inline_at_the_threshold) {
    writeThrough(false, 2 * kPages * (4096 + 24) + 32u, [](const SqliteStore& store) { return store.backgroundCheckpoints() == 0; });
}
