// The write-ahead log's frames in one write per commit (core/store/sqlite_wal_coalescing_vfs.hpp):
// real SQLite on real files, the writes that reach the log counted by a VFS below this one
// (counting_vfs.hpp), what is in the files read back by connections that do not use it.
#include <boost/test/unit_test.hpp>

#include "core/store/sqlite_wal_coalescing_vfs.hpp"
#include "counting_vfs.hpp"
#include "store_test_util.hpp"

#include <atomic>
#include <filesystem>
#include <thread>

using namespace trainer::core;
using namespace trainer::core::test;

namespace {

// A raw connection on `vfs` (nullptr: SQLite's default), WAL, synchronous NORMAL.
struct Db {
    sqlite3* db = nullptr;
    Db(const std::string& path, const char* vfs, int flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE) {
        BOOST_REQUIRE(sqlite3_open_v2(path.c_str(), &db, flags, vfs) == SQLITE_OK);
        exec("PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL");
    }
    ~Db() { sqlite3_close_v2(db); }
    void exec(const std::string& sql) {
        char* err = nullptr;
        int rc = sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &err);
        std::string message = err ? err : "";
        sqlite3_free(err);
        BOOST_REQUIRE_MESSAGE(rc == SQLITE_OK, sql.substr(0, 80) << ": " << message);
    }
    std::string text(const std::string& sql) {
        sqlite3_stmt* s = nullptr;
        BOOST_REQUIRE(sqlite3_prepare_v2(db, sql.c_str(), -1, &s, nullptr) == SQLITE_OK);
        std::string out;
        if (sqlite3_step(s) == SQLITE_ROW && sqlite3_column_text(s, 0))
            out = reinterpret_cast<const char*>(sqlite3_column_text(s, 0));
        sqlite3_finalize(s);
        return out;
    }
};

std::string row(int i, int bytes) { return std::string(static_cast<size_t>(bytes), static_cast<char>('a' + i % 26)); }

// A row's value as "<bytes> x <letter>": failures print that, not kilobytes of one letter.
std::string shape(const std::string& v) { return std::to_string(v.size()) + " x " + (v.empty() ? "-" : v.substr(0, 1)); }

// A transaction of `rows` rows of 3 KB: a page and more each, so 20 rows are ~20 frames.
void insertRows(Db& d, int first, int rows) {
    std::string sql = "BEGIN;";
    for (int i = first; i < first + rows; ++i)
        sql += "INSERT INTO t(k, v) VALUES(" + std::to_string(i) + ", '" + row(i, 3000) + "');";
    d.exec(sql + "COMMIT");
}

}  // namespace

BOOST_AUTO_TEST_CASE(a_commit_reaches_the_log_in_one_write) {
    CountingVfs counting("trainer-counting-coalescing");
    TempDir dir;
    const char* vfs = walCoalescingVfs();
    BOOST_REQUIRE(vfs != nullptr);
    {
        Db plain(dir.file("plain.db"), nullptr);  // on the counting VFS alone
        plain.exec("CREATE TABLE t(k INTEGER PRIMARY KEY, v TEXT)");
        const int before = VfsCounts::walWrites.load();
        insertRows(plain, 0, 20);
        BOOST_TEST(VfsCounts::walWrites.load() - before >= 40);  // a header and a page a frame
    }
    Db d(dir.file("s.db"), vfs);
    d.exec("CREATE TABLE t(k INTEGER PRIMARY KEY, v TEXT)");
    for (int commit = 0; commit < 5; ++commit) {
        const int before = VfsCounts::walWrites.load();
        const auto issued = walCoalescingStats().writes;
        insertRows(d, commit * 20, 20);
        BOOST_TEST(walCoalescingStats().writes - issued >= 40u);
        BOOST_TEST(VfsCounts::walWrites.load() - before == 1);
        // Before the next statement, a connection without this VFS finds the commit in the files.
        Db other(dir.file("s.db"), "trainer-counting-coalescing", SQLITE_OPEN_READONLY);
        BOOST_TEST(other.text("SELECT count(*) FROM t") == std::to_string((commit + 1) * 20));
        BOOST_TEST(shape(other.text("SELECT v FROM t WHERE k = " + std::to_string(commit * 20 + 7))) ==
                   shape(row(commit * 20 + 7, 3000)));
    }
}

// A transaction larger than the page cache writes frames before it commits (a spill), rewrites
// some in place and recomputes their checksums (walRewriteChecksums): the files, copied as a
// crash would leave them while the connection stays open, recover to every committed row.
BOOST_AUTO_TEST_CASE(spilled_and_rewritten_frames_reach_the_files_before_the_commit_returns) {
    TempDir dir;
    Db d(dir.file("s.db"), walCoalescingVfs());
    d.exec("PRAGMA cache_size=8; CREATE TABLE t(k INTEGER PRIMARY KEY, v TEXT)");
    for (int round = 0; round < 4; ++round) {
        std::string sql = "BEGIN;";
        for (int i = 0; i < 200; ++i)
            sql += "INSERT OR REPLACE INTO t(k, v) VALUES(" + std::to_string(i) + ", '" + row(i + round, 900) + "');";
        for (int i = 0; i < 200; i += 3)  // pages written earlier in this transaction, again
            sql += "UPDATE t SET v = '" + row(i + round + 1, 900) + "' WHERE k = " + std::to_string(i) + ";";
        d.exec(sql + "COMMIT");

        TempDir crash;
        for (auto suffix : {"", "-wal"})
            std::filesystem::copy_file(dir.file("s.db") + suffix, crash.file("c.db") + suffix);
        Db recovered(crash.file("c.db"), nullptr);
        BOOST_TEST(recovered.text("PRAGMA integrity_check") == "ok");
        BOOST_TEST(recovered.text("SELECT count(*) FROM t") == "200");
        BOOST_TEST(shape(recovered.text("SELECT v FROM t WHERE k = 3")) == shape(row(3 + round + 1, 900)));
        BOOST_TEST(shape(recovered.text("SELECT v FROM t WHERE k = 4")) == shape(row(4 + round, 900)));
    }
}

// The embedded store as the controller drives it: a writer committing without syncs, checkpoints
// on their own thread, and readers on the store's read connection and on a connection without
// this VFS, each reading what was just committed. Every read finds it whole.
BOOST_AUTO_TEST_CASE(readers_find_every_commit_whole_while_the_store_writes_and_checkpoints) {
    TempDir dir;
    const std::string path = dir.file("s.db");
    SqliteStoreOptions o;
    o.durable = false;
    o.checkpointPages = 16;  // checkpoints, and the log starting again, all the time
    auto opened = SqliteStore::open(path, o);
    BOOST_REQUIRE_MESSAGE(opened.store, opened.error);
    SqliteStore& store = *opened.store;
    auto writer = store.rederivableWriter();
    constexpr int kObjects = 3000;
    std::atomic<int> written{0};
    std::atomic<int> storeReads{0}, plainReads{0}, bad{0};
    std::string firstBad;
    std::thread storeReader([&] {
        while (written.load() < kObjects)
            if (int n = written.load(); n > 0) {
                auto r = store.get(ObjectKey{"v1", "ConfigMap", "default", "cm-" + std::to_string(n - 1)});
                ++storeReads;
                if (!r.found() && bad++ == 0) firstBad = "store read of cm-" + std::to_string(n - 1) + ": " + r.message;
            }
    });
    std::thread plainReader([&] {
        Db plain(path, nullptr, SQLITE_OPEN_READONLY);
        while (written.load() < kObjects)
            if (int n = written.load(); n > 0) {
                std::string body = plain.text("SELECT body FROM objects WHERE kind = 'ConfigMap' AND name = 'cm-" +
                                              std::to_string(n - 1) + "'");
                ++plainReads;
                boost::system::error_code ec;
                auto v = json::parse(body, ec);
                if ((ec || !v.is_object()) && bad++ == 0) firstBad = "plain read of cm-" + std::to_string(n - 1) + ": " + body.substr(0, 80);
            }
    });
    for (int i = 0; i < kObjects; ++i) {
        json::object cm = configMap("cm-" + std::to_string(i));
        cm["data"].as_object()["payload"] = row(i, 1000 + (i * 37) % 2000);
        BOOST_REQUIRE(writer->create(cm).status == StoreStatus::Ok);
        written = i + 1;
    }
    storeReader.join();
    plainReader.join();
    BOOST_TEST(bad.load() == 0, firstBad);
    BOOST_TEST(storeReads.load() > 0);
    BOOST_TEST(plainReads.load() > 0);
    BOOST_TEST(store.backgroundCheckpoints() > 0);
    Db after(path, nullptr, SQLITE_OPEN_READONLY);
    BOOST_TEST(after.text("PRAGMA integrity_check") == "ok");
    BOOST_TEST(after.text("SELECT count(*) FROM objects WHERE kind = 'ConfigMap'") == std::to_string(kObjects));
}
