// SqliteStore::share() answering from memory (core/store/parsed_memo.hpp) on the real SQLite
// file, watched through a VFS that counts the log-index locks every read transaction takes
// (counting_vfs.hpp): a remembered runtime costs no read of the file, this process's writes reach
// share() at once, and another process's (a second store on the same file) as soon as any read
// here has seen the file since. The trust window is set long (or zero) so no test depends on time.
#include <boost/test/unit_test.hpp>

#include "store_test_util.hpp"

#include "counting_vfs.hpp"

using namespace trainer::core;
using namespace trainer::core::test;

namespace {

std::unique_ptr<SqliteStore> openWithTrust(const std::string& path, std::chrono::milliseconds trust) {
    SqliteStoreOptions o;
    o.sharedTrust = trust;
    o.backgroundCheckpoints = false;  // no thread of its own touches the file while locks are counted
    auto opened = SqliteStore::open(path, o);
    BOOST_REQUIRE_MESSAGE(opened.store, opened.error);
    return std::move(opened.store);
}

constexpr auto kLong = std::chrono::hours(1);  // a trust no test outlives
const ObjectKey kKey{"v1", "ConfigMap", "default", "c"};

std::string dataOf(const std::shared_ptr<const ReadResult>& r) {
    BOOST_REQUIRE(r->found());
    return std::string(r->object.at("data").at("k").as_string());
}

json::object withData(json::object o, const char* v) {
    o["data"] = json::object{{"k", v}};
    return o;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(sqlite_share)

BOOST_AUTO_TEST_CASE(a_remembered_object_costs_no_read_of_the_file) {
    CountingVfs counting;
    TempDir dir;
    auto store = openWithTrust(dir.file("s.db"), kLong);
    BOOST_REQUIRE(store->create(configMap("c")).ok());
    auto first = store->share(kKey);  // reads, confirms the head, remembers
    const int before = VfsCounts::shmLocks.load();
    for (int i = 0; i < 10; ++i) BOOST_TEST(store->share(kKey).get() == first.get());
    BOOST_TEST(VfsCounts::shmLocks.load() == before);
    // Any other read ends that until a share() reads the head again.
    BOOST_REQUIRE(store->get(kKey).found());
    const int afterGet = VfsCounts::shmLocks.load();
    BOOST_TEST(store->share(kKey).get() == first.get());
    BOOST_TEST(VfsCounts::shmLocks.load() > afterGet);
    const int confirmed = VfsCounts::shmLocks.load();
    BOOST_TEST(store->share(kKey).get() == first.get());
    BOOST_TEST(VfsCounts::shmLocks.load() == confirmed);
}

BOOST_AUTO_TEST_CASE(with_no_trust_every_share_reads_the_file) {
    CountingVfs counting;
    TempDir dir;
    auto store = openWithTrust(dir.file("s.db"), std::chrono::milliseconds(0));
    BOOST_REQUIRE(store->create(configMap("c")).ok());
    auto first = store->share(kKey);
    const int before = VfsCounts::shmLocks.load();
    BOOST_TEST(store->share(kKey).get() == first.get());  // parsed once still
    BOOST_TEST(VfsCounts::shmLocks.load() > before);
}

BOOST_AUTO_TEST_CASE(this_processs_writes_reach_share_at_once) {
    TempDir dir;
    auto store = openWithTrust(dir.file("s.db"), kLong);
    auto writer = store->rederivableWriter();
    BOOST_REQUIRE(store->create(withData(configMap("c"), "v1")).ok());
    auto first = store->share(kKey);
    BOOST_TEST(dataOf(first) == "v1");
    BOOST_REQUIRE(store->update(withData(first->object, "v2")).ok());
    BOOST_TEST(dataOf(store->share(kKey)) == "v2");
    BOOST_REQUIRE(writer->update(withData(store->share(kKey)->object, "v3")).ok());
    BOOST_TEST(dataOf(store->share(kKey)) == "v3");
    BOOST_REQUIRE(store->remove(kKey).ok());
    BOOST_TEST(store->share(kKey)->notFound());
}

BOOST_AUTO_TEST_CASE(another_processs_write_reaches_share_once_a_read_here_has_seen_the_file) {
    TempDir dir;
    const auto path = dir.file("s.db");
    auto store = openWithTrust(path, kLong);
    auto other = openWithTrust(path, kLong);  // another writer of the file, as another process would be
    BOOST_REQUIRE(store->create(withData(configMap("c"), "v1")).ok());
    const int64_t head = store->revision().value;
    BOOST_TEST(dataOf(store->share(kKey)) == "v1");

    // Learnt through the change feed: share() agrees with what the feed showed.
    BOOST_REQUIRE(other->update(withData(other->get(kKey).object, "v2")).ok());
    auto feed = store->changesSince(head, 10);
    BOOST_REQUIRE(feed.ok());
    BOOST_REQUIRE(feed.value.size() == 1u);
    BOOST_TEST(dataOf(store->share(kKey)) == "v2");

    // Through a read of another object, a list, or the head: the same.
    BOOST_REQUIRE(other->update(withData(other->get(kKey).object, "v3")).ok());
    BOOST_TEST(store->get(ObjectKey{"v1", "ConfigMap", "default", "absent"}).notFound());
    BOOST_TEST(dataOf(store->share(kKey)) == "v3");
    BOOST_REQUIRE(other->update(withData(other->get(kKey).object, "v4")).ok());
    BOOST_REQUIRE(store->list("v1", "ConfigMap").ok());
    BOOST_TEST(dataOf(store->share(kKey)) == "v4");

    // A delete by the other process, then a write here that finds the head it moved: forgotten.
    BOOST_REQUIRE(other->remove(kKey).ok());
    BOOST_REQUIRE(store->create(configMap("d")).ok());
    BOOST_TEST(store->share(kKey)->notFound());
}

BOOST_AUTO_TEST_CASE(without_a_read_here_another_processs_write_waits_for_the_trust_to_end) {
    TempDir dir;
    const auto path = dir.file("s.db");
    auto store = openWithTrust(path, std::chrono::milliseconds(0));
    auto other = openWithTrust(path, kLong);
    BOOST_REQUIRE(store->create(withData(configMap("c"), "v1")).ok());
    BOOST_TEST(dataOf(store->share(kKey)) == "v1");
    BOOST_REQUIRE(other->update(withData(other->get(kKey).object, "v2")).ok());
    BOOST_TEST(dataOf(store->share(kKey)) == "v2");  // no trust: the file is read
}

BOOST_AUTO_TEST_SUITE_END()
