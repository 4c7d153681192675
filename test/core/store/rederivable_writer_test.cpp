// SqliteStore::rederivableWriter (issue 14 P4): the controller's writes land in the same store
// and change feed, without a sync of the file each, and the store's own writes stay durable
// (a sync per commit). The syncs are counted by an SQLite VFS that forwards every call to the
// default one and counts xSync (counting_vfs.hpp): the real SQLite on a real file.
#include <boost/test/unit_test.hpp>

#include "store_test_util.hpp"

#include "counting_vfs.hpp"

using namespace trainer::core;
using namespace trainer::core::test;

BOOST_AUTO_TEST_CASE(the_controllers_writes_land_in_the_store_without_a_sync_each) {
    CountingVfs counting;
    TempDir dir;
    auto opened = SqliteStore::open(dir.file("s.db"), {});
    BOOST_REQUIRE_MESSAGE(opened.store, opened.error);
    SqliteStore& store = *opened.store;
    auto writer = store.rederivableWriter();

    const int before = VfsCounts::syncs.load();
    for (int i = 0; i < 20; ++i) BOOST_REQUIRE(store.create(configMap("durable-" + std::to_string(i))).status == StoreStatus::Ok);
    const int durableSyncs = VfsCounts::syncs.load() - before;
    BOOST_TEST(durableSyncs >= 20);  // one per commit at least

    const int64_t revision = store.revision().value;
    const int relaxedStart = VfsCounts::syncs.load();
    for (int i = 0; i < 20; ++i)
        BOOST_REQUIRE(writer->create(configMap("rederivable-" + std::to_string(i))).status == StoreStatus::Ok);
    BOOST_TEST(VfsCounts::syncs.load() - relaxedStart < 5);  // none per commit (a checkpoint may sync)

    // The same store: visible to its readers and in its change feed, in order.
    auto got = store.get(ObjectKey{"v1", "ConfigMap", "default", "rederivable-7"});
    BOOST_TEST(got.found());
    auto feed = store.changesSince(revision, 100);
    BOOST_REQUIRE(feed.ok());
    BOOST_TEST(feed.value.size() == 20u);
    // A failed write through the view is an error and changes nothing.
    BOOST_TEST(writer->create(configMap("rederivable-3")).status == StoreStatus::AlreadyExists);
    BOOST_TEST(store.revision().value == revision + 20);

    // The store's own writes are durable again after the view's.
    const int after = VfsCounts::syncs.load();
    BOOST_REQUIRE(store.create(configMap("durable-after")).status == StoreStatus::Ok);
    BOOST_TEST(VfsCounts::syncs.load() - after >= 1);
}
