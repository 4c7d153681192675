// Reads that SQLite itself fails are errors, never absence: a real store file whose table pages
// are overwritten (a corrupt page, as a bad disk leaves it) answers Error with SQLite's message
// for the reads that touch those pages, while the untouched copy answers Found.
#include <boost/test/unit_test.hpp>

#include "store_test_util.hpp"

#include <filesystem>
#include <fstream>
#include <sqlite3.h>

using namespace trainer::core;
using namespace trainer::core::test;

namespace {

const ObjectKey kStored{"v1", "ConfigMap", "default", "a"};
const ObjectKey kNever{"v1", "ConfigMap", "default", "never-stored"};

std::unique_ptr<SqliteStore> openOrFail(const std::string& path) {
    auto r = SqliteStore::open(path);
    BOOST_REQUIRE_MESSAGE(r.store, r.error);
    return std::move(r.store);
}

// A closed store file (its WAL checkpointed into it on close) holding a few ConfigMaps.
void writeStore(const std::string& path) {
    auto store = openOrFail(path);
    for (auto name : {"a", "b", "c"}) BOOST_REQUIRE(store->create(configMap(name)).ok());
}

// Overwrites the first bytes of the root page of `table`: its b-tree page header becomes an
// invalid page type, which SQLite reports as SQLITE_CORRUPT on any read that descends into it.
void corruptRootPage(const std::string& path, const std::string& table) {
    sqlite3* db = nullptr;
    BOOST_REQUIRE(sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr) == SQLITE_OK);
    int64_t page = 0, pageSize = 0;
    sqlite3_stmt* s = nullptr;
    sqlite3_prepare_v2(db, "SELECT rootpage FROM sqlite_master WHERE type = 'table' AND name = ?1", -1, &s, nullptr);
    sqlite3_bind_text(s, 1, table.c_str(), -1, SQLITE_TRANSIENT);
    if (sqlite3_step(s) == SQLITE_ROW) page = sqlite3_column_int64(s, 0);
    sqlite3_finalize(s);
    sqlite3_prepare_v2(db, "PRAGMA page_size", -1, &s, nullptr);
    if (sqlite3_step(s) == SQLITE_ROW) pageSize = sqlite3_column_int64(s, 0);
    sqlite3_finalize(s);
    sqlite3_close(db);
    BOOST_REQUIRE_MESSAGE(page > 1 && pageSize > 0, "root page of " << table << ": " << page);
    BOOST_REQUIRE_MESSAGE(!std::filesystem::exists(path + "-wal") || std::filesystem::file_size(path + "-wal") == 0,
                          "the store's WAL was not checkpointed on close");
    std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp((page - 1) * pageSize);
    const std::string garbage(16, '\xee');
    f.write(garbage.data(), static_cast<std::streamsize>(garbage.size()));
    BOOST_REQUIRE(f.good());
}

std::string copyOf(const TempDir& dir, const std::string& from, const std::string& name) {
    auto to = dir.file(name);
    std::filesystem::copy_file(from, to);
    std::filesystem::permissions(to, std::filesystem::perms::owner_read | std::filesystem::perms::owner_write);
    return to;
}

bool mentionsCorruption(const std::string& message) {
    return message.find("malformed") != std::string::npos || message.find("corrupt") != std::string::npos;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(sqlite_read_errors)

BOOST_AUTO_TEST_CASE(a_corrupt_objects_page_makes_get_and_list_errors_not_absence) {
    TempDir dir;
    auto original = dir.file("s.db");
    writeStore(original);
    auto broken = copyOf(dir, original, "broken.db");
    corruptRootPage(broken, "objects");

    auto store = openOrFail(broken);  // the schema pages are intact: it opens
    for (auto const& key : {kStored, kNever}) {
        auto r = store->get(key);
        BOOST_TEST(r.status == ReadStatus::Error, key.display() << ": " << toString(r.status));
        BOOST_TEST(mentionsCorruption(r.message), r.message);
        BOOST_TEST(r.message.find("store: ") == 0u, r.message);
        BOOST_TEST(r.object.empty());
        auto shared = store->share(key);
        BOOST_TEST(shared->status == ReadStatus::Error, key.display() << ": " << toString(shared->status));
        BOOST_TEST(mentionsCorruption(shared->message), shared->message);
    }
    auto listed = store->list("v1", "ConfigMap");
    BOOST_TEST_REQUIRE(!listed.ok());
    BOOST_TEST(mentionsCorruption(*listed.error), *listed.error);
    BOOST_TEST(listed.value.empty());
    BOOST_TEST(!store->listAll().ok());
    auto keys = store->listKeys("v1", "ConfigMap");
    BOOST_TEST_REQUIRE(!keys.ok());
    BOOST_TEST(mentionsCorruption(*keys.error), *keys.error);
    BOOST_TEST(keys.value.empty());
    // The change feed lives on other pages and still reads.
    auto feed = store->changesSince(0, 10);
    BOOST_TEST_REQUIRE(feed.ok(), feed.error.value_or(""));
    BOOST_TEST(feed.value.size() == 3u);
    // A write reads the same page first: it fails as an Error too, and nothing is written.
    auto w = store->update(configMap("a"));
    BOOST_TEST(w.status == StoreStatus::Error, w.message);

    // The untouched copy answers as before: Found for what exists, NotFound for what does not.
    auto good = openOrFail(original);
    BOOST_TEST(good->get(kStored).status == ReadStatus::Found);
    BOOST_TEST(good->get(kNever).status == ReadStatus::NotFound);
    BOOST_TEST(good->share(kStored)->status == ReadStatus::Found);
    BOOST_TEST(readOk(good->list("v1", "ConfigMap")).size() == 3u);
    BOOST_TEST(readOk(good->listKeys("v1", "ConfigMap")).size() == 3u);
}

// A stored body that is not a JSON object (written by something other than the store) is an
// error naming the object for get, list and the change feed, never absence or an empty object.
BOOST_AUTO_TEST_CASE(an_unparsable_stored_body_is_an_error_naming_the_object) {
    TempDir dir;
    auto path = dir.file("s.db");
    writeStore(path);
    sqlite3* db = nullptr;
    BOOST_REQUIRE(sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READWRITE, nullptr) == SQLITE_OK);
    BOOST_REQUIRE(sqlite3_exec(db, "UPDATE objects SET body = '{\"metadata\": ' WHERE name = 'a';"
                                   "UPDATE changes SET body = '[1]' WHERE name = 'b'", nullptr, nullptr, nullptr) == SQLITE_OK);
    sqlite3_close(db);

    auto store = openOrFail(path);
    auto r = store->get(kStored);
    BOOST_TEST(r.status == ReadStatus::Error, toString(r.status));
    BOOST_TEST(r.message == "store: corrupt object ConfigMap default/a in store: not a JSON object", r.message);
    auto shared = store->share(kStored);  // the same through share(), and not remembered
    BOOST_TEST(shared->status == ReadStatus::Error, toString(shared->status));
    BOOST_TEST(shared->message == r.message, shared->message);
    BOOST_TEST(store->share(kStored)->status == ReadStatus::Error);
    BOOST_TEST(store->get(ObjectKey{"v1", "ConfigMap", "default", "b"}).status == ReadStatus::Found);
    auto listed = store->list("v1", "ConfigMap");
    BOOST_TEST_REQUIRE(!listed.ok());
    BOOST_TEST(listed.error->find("not a JSON object") != std::string::npos, *listed.error);
    // The keys come from the table's columns, no body parsed: through the store, and through the
    // writer the controller re-lists with (run's controllerStore), which once listed and parsed.
    BOOST_TEST(readOk(store->listKeys("v1", "ConfigMap")).size() == 3u);
    auto writer = store->rederivableWriter();
    auto keys = writer->listKeys("v1", "ConfigMap");
    BOOST_TEST_REQUIRE(keys.ok(), keys.error.value_or(""));
    BOOST_TEST(keys.value.size() == 3u);
    BOOST_TEST(keys.value.at(0).name == "a");
    auto feed = store->changesSince(0, 10);
    BOOST_TEST_REQUIRE(!feed.ok());
    BOOST_TEST(*feed.error == "store: corrupt object ConfigMap default/b in store: not a JSON object", *feed.error);
    BOOST_TEST(feed.value.empty());
    // The feed before the bad entry still reads.
    auto first = store->changesSince(0, 1);
    BOOST_TEST_REQUIRE(first.ok(), first.error.value_or(""));
    BOOST_TEST(first.value.at(0).key.name == "a");
}

BOOST_AUTO_TEST_CASE(corrupt_feed_and_meta_pages_make_the_feed_and_revision_errors) {
    struct Case {
        const char* table;
        bool feedFails, revisionFails, objectsRead;
    };
    const Case cases[] = {
        {"changes", true, false, true},
        {"meta", false, true, true},
    };
    for (auto const& c : cases) {
        BOOST_TEST_CONTEXT("table " << c.table) {
            TempDir dir;
            auto path = dir.file("s.db");
            writeStore(path);
            corruptRootPage(path, c.table);
            auto store = openOrFail(path);
            auto feed = store->changesSince(0, 10);
            BOOST_TEST(!feed.ok() == c.feedFails);
            if (!feed.ok()) BOOST_TEST(mentionsCorruption(*feed.error), *feed.error);
            auto revision = store->revision();
            auto compacted = store->compactedRevision();
            BOOST_TEST(!revision.ok() == c.revisionFails);
            BOOST_TEST(!compacted.ok() == c.revisionFails);
            if (!revision.ok()) BOOST_TEST(mentionsCorruption(*revision.error), *revision.error);
            if (revision.ok()) BOOST_TEST(revision.value == 3);
            BOOST_TEST((store->get(kStored).status == ReadStatus::Found) == c.objectsRead);
        }
    }
}

BOOST_AUTO_TEST_CASE(integrity_check_reports_the_corrupt_page) {
    TempDir dir;
    auto path = dir.file("s.db");
    writeStore(path);
    corruptRootPage(path, "objects");
    auto store = openOrFail(path);
    auto report = store->integrityCheck();
    BOOST_TEST(report != "ok");
    BOOST_TEST(!report.empty());
}

BOOST_AUTO_TEST_SUITE_END()
