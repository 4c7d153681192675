// The SQLite store as a file shared by processes: persistence, bad files, a change feed across
// processes, kill -9 in the middle of writes, concurrent writers.
#include <boost/test/unit_test.hpp>

#include "store_test_util.hpp"

#include <poll.h>

#include <csignal>
#include <fstream>
#include <future>
#include <set>
#include <sqlite3.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

using namespace trainer::core;
using namespace trainer::core::test;
using namespace std::chrono_literals;

namespace {

std::unique_ptr<SqliteStore> openOrFail(const std::string& path) {
    auto r = SqliteStore::open(path);
    if (!r.store) throw std::runtime_error(r.error);
    return std::move(r.store);
}

// Runs `body` in a forked child that exits with its return value (never returns in the child).
// The caller must hold no open store across the fork.
template <class F>
pid_t forkChild(F&& body) {
    pid_t pid = fork();
    if (pid == 0) {
        int rc = 99;
        try {
            rc = body();
        } catch (...) {
        }
        _exit(rc);
    }
    return pid;
}

int waitExit(pid_t pid) {
    int status = 0;
    waitpid(pid, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -WTERMSIG(status);
}

std::string payload(int i) { return std::string(2000 + i % 100, static_cast<char>('a' + i % 26)); }

}  // namespace

BOOST_AUTO_TEST_CASE(sqlite_persists_across_reopen) {
    TempDir dir;
    auto path = dir.file("s.db");
    std::string uid;
    {
        auto store = openOrFail(path);
        auto r = store->create(trainJob("x"));
        BOOST_TEST_REQUIRE(r.ok(), r.message);
        uid = meta(r.object, "uid");
        BOOST_TEST(store->create(configMap("c")).ok());
        BOOST_TEST(store->integrityCheck() == "ok");
    }
    auto store = openOrFail(path);
    BOOST_TEST(readOk(store->revision()) == 2);
    auto got = found(store->get(ObjectKey{"trainer.kubeflow.org/v1alpha1", "TrainJob", "default", "x"}));
    BOOST_TEST_REQUIRE(got.has_value());
    BOOST_TEST(meta(*got, "uid") == uid);
    BOOST_TEST(readOk(store->changesSince(0, 10)).size() == 2u);
    BOOST_TEST(store->create(configMap("d")).object.at("metadata").at("resourceVersion") == json::value("3"));
}

// share() parses a row once per revision: the same answer until the object is written, by this
// store or another one on the same file; an answer handed out keeps the object it had.
BOOST_AUTO_TEST_CASE(sqlite_share_parses_each_revision_once) {
    TempDir dir;
    auto path = dir.file("s.db");
    auto store = openOrFail(path);
    auto other = openOrFail(path);  // another writer of the file, as another process would be
    const ObjectKey key{"v1", "ConfigMap", "default", "c"};
    BOOST_TEST(store->share(key)->notFound());
    BOOST_TEST_REQUIRE(store->create(configMap("c")).ok());
    auto first = store->share(key);
    BOOST_TEST_REQUIRE(first->found());
    BOOST_TEST(store->share(key).get() == first.get());
    BOOST_TEST(json::serialize(first->object) == json::serialize(store->get(key).object));

    auto changed = first->object;
    changed["data"] = json::object{{"k", "v2"}};
    BOOST_TEST_REQUIRE(other->update(changed).ok());
    // Another process's write reaches share() once a read of this process has seen the file
    // since (here the head's), or after ParsedMemo::kTrust (parsed_memo_test.cpp).
    BOOST_TEST_REQUIRE(store->revision().ok());
    auto second = store->share(key);
    BOOST_TEST(second.get() != first.get());
    BOOST_TEST(second->object.at("data").at("k") == "v2");
    BOOST_TEST(first->object.at("data").at("k") == "v");  // what was handed out is unchanged
    BOOST_TEST(store->share(key).get() == second.get());

    BOOST_TEST_REQUIRE(store->remove(key).ok());
    BOOST_TEST(store->share(key)->notFound());
    BOOST_TEST_REQUIRE(store->create(configMap("c")).ok());  // the same key again: a new revision
    auto third = store->share(key);
    BOOST_TEST(third->found());
    BOOST_TEST(third.get() != second.get());

    // Past the bound the remembered objects are dropped, never answered wrongly.
    for (size_t i = 0; i <= SqliteStore::kParsedObjects; ++i) {
        const std::string name = "n" + std::to_string(i);
        BOOST_TEST_REQUIRE(store->create(configMap(name)).ok());
        BOOST_TEST(store->share(ObjectKey{"v1", "ConfigMap", "default", name})->object.at("metadata").at("name") == json::value(name));
    }
    BOOST_TEST(store->share(key)->object.at("metadata").at("name") == "c");
}

// The controller's writer (rederivableWriter) reads through the store: what it shares is what the
// store parsed and remembers, until the row changes.
BOOST_AUTO_TEST_CASE(sqlite_rederivable_writer_shares_the_stores_parsed_objects) {
    TempDir dir;
    auto store = openOrFail(dir.file("s.db"));
    auto writer = store->rederivableWriter();
    const ObjectKey key{"v1", "ConfigMap", "default", "c"};
    BOOST_TEST_REQUIRE(store->create(configMap("c")).ok());
    auto first = writer->share(key);
    BOOST_TEST_REQUIRE(first->found());
    BOOST_TEST(writer->share(key).get() == first.get());
    BOOST_TEST(store->share(key).get() == first.get());
    auto changed = first->object;
    changed["data"] = json::object{{"k", "v2"}};
    BOOST_TEST_REQUIRE(writer->update(changed).ok());
    auto second = writer->share(key);
    BOOST_TEST(second.get() != first.get());
    BOOST_TEST(second->object.at("data").at("k") == "v2");
}

BOOST_AUTO_TEST_CASE(sqlite_rejects_bad_files_with_clear_errors) {
    TempDir dir;
    struct Case {
        const char* name;
        std::function<std::string()> prepare;  // returns the path to open
        const char* expected;                  // substring of the error
    };
    const Case cases[] = {
        {"garbage bytes",
         [&] {
             auto p = dir.file("garbage.db");
             std::ofstream(p) << std::string(8192, 'x') << "this is not sqlite";
             return p;
         },
         "not a store (file is not an SQLite database or is corrupt)"},
        {"a directory", [&] { return dir.file(""); }, "cannot open store"},
        {"missing parent directory", [&] { return dir.file("nope/s.db"); }, "cannot open store"},
        {"foreign SQLite database",
         [&] {
             auto p = dir.file("foreign.db");
             sqlite3* db = nullptr;
             sqlite3_open(p.c_str(), &db);
             sqlite3_exec(db, "CREATE TABLE t(x)", nullptr, nullptr, nullptr);
             sqlite3_close(db);
             return p;
         },
         "not a trainer-operator store"},
        {"newer schema",
         [&] {
             auto p = dir.file("newer.db");
             { openOrFail(p); }
             sqlite3* db = nullptr;
             sqlite3_open(p.c_str(), &db);
             sqlite3_exec(db, "UPDATE schema_version SET version = 99", nullptr, nullptr, nullptr);
             sqlite3_close(db);
             return p;
         },
         "store schema version 99 is not supported by this binary (supports 1)"},
    };
    for (auto const& c : cases) {
        BOOST_TEST_CONTEXT(c.name) {
            auto path = c.prepare();
            auto r = SqliteStore::open(path);
            BOOST_TEST(!r.store);
            BOOST_TEST(r.error.find(c.expected) != std::string::npos, r.error);
            BOOST_TEST(r.error.find(path) == 0u, r.error);
        }
    }
    // An empty file is a new store.
    auto empty = dir.file("empty.db");
    std::ofstream(empty).close();
    auto r = SqliteStore::open(empty);
    BOOST_TEST_REQUIRE(r.store, r.error);
    BOOST_TEST(r.store->create(configMap("a")).ok());
}

BOOST_AUTO_TEST_CASE(sqlite_corrupt_row_is_an_error_not_a_crash) {
    TempDir dir;
    auto path = dir.file("s.db");
    {
        auto store = openOrFail(path);
        BOOST_TEST(store->create(configMap("a")).ok());
    }
    sqlite3* db = nullptr;
    sqlite3_open(path.c_str(), &db);
    sqlite3_exec(db, "UPDATE objects SET body = '{broken'; UPDATE changes SET body = '[1]'", nullptr, nullptr, nullptr);
    sqlite3_close(db);
    auto store = openOrFail(path);
    // A body that does not parse is an Error naming the object, never "absent" or an empty list.
    auto got = store->get(ObjectKey{"v1", "ConfigMap", "default", "a"});
    BOOST_TEST(got.status == ReadStatus::Error, toString(got.status));
    BOOST_TEST(got.message.find("corrupt object ConfigMap default/a") != std::string::npos, got.message);
    auto listed = store->list("v1", "ConfigMap");
    BOOST_TEST_REQUIRE(!listed.ok());
    BOOST_TEST(listed.error->find("corrupt object") != std::string::npos, *listed.error);
    auto feed = store->changesSince(0, 10);
    BOOST_TEST_REQUIRE(!feed.ok());
    BOOST_TEST(feed.error->find("corrupt object") != std::string::npos, *feed.error);
    BOOST_TEST(!store->listAll().ok());
    // A key that was never stored is still NotFound: only the broken row fails.
    BOOST_TEST(store->get(ObjectKey{"v1", "ConfigMap", "default", "never"}).status == ReadStatus::NotFound);
    auto u = store->update(configMap("a"));
    BOOST_TEST(u.status == StoreStatus::Error);
    BOOST_TEST(u.message.find("corrupt object") != std::string::npos, u.message);
}

// A write another process committed is in this process's change feed as soon as it committed:
// the child's exit (after its apply returned) is the event; the feed is then read once.
BOOST_AUTO_TEST_CASE(sqlite_change_feed_sees_another_process) {
    TempDir dir;
    auto path = dir.file("s.db");
    int go[2];
    BOOST_TEST_REQUIRE(pipe(go) == 0);
    pid_t child = forkChild([&] {
        close(go[1]);
        char c;
        if (read(go[0], &c, 1) != 1) return 2;
        auto store = openOrFail(path);
        auto r = store->apply(trainJob("from-child"), "kubectl");
        return r.ok() ? 0 : 1;
    });
    close(go[0]);
    auto store = openOrFail(path);
    BOOST_TEST(store->create(configMap("parent")).ok());
    auto since = readOk(store->revision());
    BOOST_TEST(readOk(store->changesSince(since, 100)).empty());
    BOOST_TEST(write(go[1], "g", 1) == 1);
    close(go[1]);

    BOOST_TEST_REQUIRE(waitExit(child) == 0);
    auto seen = readOk(store->changesSince(since, 100));
    BOOST_TEST_REQUIRE(seen.size() == 1u);
    BOOST_TEST(seen[0].type == ChangeType::Added);
    BOOST_TEST(seen[0].key.name == "from-child");
    BOOST_TEST(seen[0].revision == since + 1);
    BOOST_TEST(readOk(store->revision()) == since + 1);
    BOOST_TEST(found(store->get(seen[0].key)).has_value());
}

// Reads have a connection of their own: a write of this process that waits for another
// process's write lock (a child holding BEGIN IMMEDIATE) holds up no get, list or change-feed
// read. The events waited for: the child holding the lock, the writer thread asleep in SQLite's
// busy handler, the read answered (bounds far below the writer's busy timeout).
BOOST_AUTO_TEST_CASE(sqlite_reads_do_not_wait_for_a_write_in_progress) {
    TempDir dir;
    auto path = dir.file("s.db");
    int go[2], locked[2], release[2];
    BOOST_TEST_REQUIRE((pipe(go) == 0 && pipe(locked) == 0 && pipe(release) == 0));
    pid_t child = forkChild([&] {
        close(go[1]);
        close(locked[0]);
        close(release[1]);
        char c;
        if (read(go[0], &c, 1) != 1) return 2;
        sqlite3* db = nullptr;
        if (sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READWRITE, nullptr) != SQLITE_OK) return 3;
        sqlite3_busy_timeout(db, 30000);
        if (sqlite3_exec(db, "BEGIN IMMEDIATE", nullptr, nullptr, nullptr) != SQLITE_OK) return 4;
        if (write(locked[1], "l", 1) != 1) return 5;
        if (read(release[0], &c, 1) != 1) return 6;
        sqlite3_exec(db, "ROLLBACK", nullptr, nullptr, nullptr);
        sqlite3_close(db);
        return 0;
    });
    close(go[0]);
    close(locked[1]);
    close(release[0]);
    SqliteStoreOptions options;
    options.busyTimeoutMs = 300000;
    auto opened = SqliteStore::open(path, options);
    BOOST_TEST_REQUIRE(opened.store != nullptr, opened.error);
    auto& store = *opened.store;
    BOOST_TEST_REQUIRE(store.create(configMap("before")).ok());
    const auto since = readOk(store.revision());
    char c;
    BOOST_TEST_REQUIRE(write(go[1], "g", 1) == 1);
    BOOST_TEST_REQUIRE(read(locked[0], &c, 1) == 1);  // the child holds the write lock

    std::atomic<pid_t> writer{0};
    auto writing = std::async(std::launch::async, [&] {
        writer = static_cast<pid_t>(::gettid());
        return store.create(configMap("during"));
    });
    auto asleepInBusyHandler = [&] {
        if (!writer) return false;
        std::ifstream f("/proc/self/task/" + std::to_string(writer.load()) + "/syscall");
        std::string nr;
        f >> nr;
        return nr == "230" || nr == "35";  // clock_nanosleep, nanosleep (x86-64)
    };
    bool waiting = false;
    for (auto start = std::chrono::steady_clock::now(); !waiting && std::chrono::steady_clock::now() - start < 30s;
         std::this_thread::sleep_for(1ms))
        waiting = asleepInBusyHandler();

    auto reading = std::async(std::launch::async, [&] {
        auto got = store.get(ObjectKey{"v1", "ConfigMap", "default", "before"});
        auto feed = store.changesSince(since - 1, 10);
        return found(got).has_value() && feed.ok() && feed.value.size() == 1u;
    });
    const bool answered = reading.wait_for(30s) == std::future_status::ready;
    BOOST_TEST_REQUIRE(write(release[1], "r", 1) == 1);  // before any check: nothing may hang
    BOOST_TEST(waiting, "the writer never waited for the child's lock");
    BOOST_TEST(answered, "a read waited for a write in progress");
    BOOST_TEST(reading.get());
    BOOST_TEST(writing.get().ok());
    BOOST_TEST(waitExit(child) == 0);
    BOOST_TEST(found(store.get(ObjectKey{"v1", "ConfigMap", "default", "during"})).has_value());
}

BOOST_AUTO_TEST_CASE(sqlite_kill_9_loses_nothing_acknowledged) {
    TempDir dir;
    auto path = dir.file("s.db");
    int acks[2];
    BOOST_TEST_REQUIRE(pipe(acks) == 0);
    pid_t child = forkChild([&] {
        close(acks[0]);
        auto store = openOrFail(path);
        for (int i = 0;; ++i) {
            auto cm = configMap("cm-" + std::to_string(i));
            cm["data"].as_object()["payload"] = payload(i);
            auto r = store->create(cm);
            if (!r.ok()) return 1;
            // Every other object gets a second write, so kills also land inside updates and GC.
            if (i % 2 == 1) {
                cm = r.object;
                cm["data"].as_object()["updated"] = "yes";
                if (!store->update(cm).ok()) return 1;
            }
            auto line = std::to_string(i) + "\n";
            if (write(acks[1], line.data(), line.size()) != static_cast<ssize_t>(line.size())) return 1;
        }
    });
    close(acks[1]);
    // Let it commit a good number of objects (the 150th acknowledgement is the event; it writes
    // until killed), then kill it wherever it is: a few ms later, mid-write or not.
    std::string received;
    char buf[4096];
    while (std::count(received.begin(), received.end(), '\n') < 150) {
        pollfd ready{acks[0], POLLIN, 0};
        if (::poll(&ready, 1, 60000) != 1) break;  // a hang guard: the child stopped writing
        auto n = read(acks[0], buf, sizeof buf);
        if (n <= 0) break;  // the child failed: the count below says so
        received.append(buf, static_cast<size_t>(n));
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(37));
    kill(child, SIGKILL);
    BOOST_TEST(waitExit(child) == -SIGKILL);
    for (ssize_t n; (n = read(acks[0], buf, sizeof buf)) > 0;) received.append(buf, static_cast<size_t>(n));
    close(acks[0]);

    std::vector<int> acked;
    for (size_t pos = 0, nl; (nl = received.find('\n', pos)) != std::string::npos; pos = nl + 1)
        acked.push_back(std::stoi(received.substr(pos, nl - pos)));
    BOOST_TEST_REQUIRE(acked.size() >= 150u);

    auto store = openOrFail(path);
    BOOST_TEST(store->integrityCheck() == "ok");
    for (int i : acked) {
        auto o = found(store->get(ObjectKey{"v1", "ConfigMap", "default", "cm-" + std::to_string(i)}));
        BOOST_TEST_REQUIRE(o.has_value(), "acknowledged object cm-" << i << " lost");
        BOOST_TEST(o->at("data").at("payload") == json::value(payload(i)));
        BOOST_TEST(o->at("data").as_object().contains("updated") == (i % 2 == 1));
    }
    // Whatever was stored is complete: every object and every feed entry parses.
    auto all = readOk(store->list("v1", "ConfigMap"));  // readOk: no row fails to read or parse
    BOOST_TEST(all.size() >= acked.size());
    BOOST_TEST(all.size() <= acked.size() + 1);
    auto feed = readOk(store->changesSince(0, 1000000));
    BOOST_TEST(static_cast<int64_t>(feed.size()) == readOk(store->revision()));
    // And the store keeps working.
    BOOST_TEST(store->create(configMap("after")).ok());
}

BOOST_AUTO_TEST_CASE(sqlite_concurrent_writers_from_two_processes) {
    TempDir dir;
    auto path = dir.file("s.db");
    constexpr int kObjects = 150, kIncrements = 40;
    auto writer = [&](int id) {
        return forkChild([&, id] {
            auto store = openOrFail(path);
            auto counter = configMap("counter");
            counter["data"].as_object()["n"] = "0";
            auto a = store->create(counter);
            if (!a.ok() && a.status != StoreStatus::AlreadyExists) return 10;
            int failures = 0, done = 0;
            for (int i = 0; i < kObjects; ++i) {
                auto r = store->create(configMap("w" + std::to_string(id) + "-" + std::to_string(i)));
                failures += r.ok() ? 0 : 1;
                // Read-modify-write with retry on conflict, as a controller does.
                if (i % (kObjects / kIncrements) == 0 && done < kIncrements) {
                    for (;;) {
                        auto cur = found(store->get(ObjectKey{"v1", "ConfigMap", "default", "counter"}));
                        if (!cur) return 11;
                        auto n = std::stoi(std::string(cur->at("data").at("n").as_string()));
                        (*cur)["data"].as_object()["n"] = std::to_string(n + 1);
                        auto u = store->update(*cur);
                        if (u.ok()) break;
                        if (u.status != StoreStatus::Conflict) return 12;
                    }
                    ++done;
                }
            }
            return failures == 0 && done == kIncrements ? 0 : 13;
        });
    };
    pid_t a = writer(1), b = writer(2);
    BOOST_TEST(waitExit(a) == 0);
    BOOST_TEST(waitExit(b) == 0);
    auto store = openOrFail(path);
    BOOST_TEST(store->integrityCheck() == "ok");
    BOOST_TEST(readOk(store->list("v1", "ConfigMap")).size() == static_cast<size_t>(2 * kObjects + 1));
    auto counter = found(store->get(ObjectKey{"v1", "ConfigMap", "default", "counter"}));
    BOOST_TEST_REQUIRE(counter.has_value());
    BOOST_TEST(counter->at("data").at("n") == json::value(std::to_string(2 * kIncrements)));
    // Revisions are unique and dense across both writers.
    auto feed = readOk(store->changesSince(0, 100000));
    BOOST_TEST(static_cast<int64_t>(feed.size()) == readOk(store->revision()));
    for (size_t i = 0; i < feed.size(); ++i) BOOST_TEST(feed[i].revision == static_cast<int64_t>(i + 1));
}

BOOST_AUTO_TEST_CASE(sqlite_change_feed_compaction) {
    TempDir dir;
    SqliteStoreOptions o;
    o.keepChanges = 10;
    auto r = SqliteStore::open(dir.file("s.db"), o);
    BOOST_TEST_REQUIRE(r.store, r.error);
    for (int i = 0; i < 30; ++i) BOOST_TEST(r.store->create(configMap("c" + std::to_string(i))).ok());
    auto compacted = readOk(r.store->compactedRevision());
    BOOST_TEST(compacted >= 10);
    BOOST_TEST(compacted <= 20);
    auto feed = readOk(r.store->changesSince(0, 100));
    BOOST_TEST_REQUIRE(!feed.empty());
    BOOST_TEST(feed.front().revision == compacted + 1);
    BOOST_TEST(feed.back().revision == 30);
}

namespace {

unsigned modeOf(const std::string& path) {
    struct stat st {};
    if (::lstat(path.c_str(), &st) != 0) return 01000000;  // absent
    return st.st_mode & 07777;
}

// The process umask set to `mask` for the scope (single-threaded tests only).
struct UmaskScope {
    explicit UmaskScope(mode_t mask) : old(::umask(mask)) {}
    ~UmaskScope() { ::umask(old); }
    mode_t old;
};

}  // namespace

// The store holds Secrets: a new store file and the -wal and -shm SQLite makes beside it are
// 0600 from their creation, whatever the umask.
BOOST_AUTO_TEST_CASE(sqlite_new_store_files_are_private) {
    for (mode_t mask : {mode_t(0), mode_t(022), mode_t(077)}) {
        BOOST_TEST_CONTEXT("umask " << std::oct << mask) {
            TempDir dir;
            auto path = dir.file("s.db");
            UmaskScope scope(mask);
            auto store = openOrFail(path);
            BOOST_TEST_REQUIRE(store->create(configMap("c")).ok());
            for (auto const& f : {path, path + "-wal", path + "-shm"}) BOOST_TEST(modeOf(f) == 0600u, f << " " << std::oct << modeOf(f));
        }
    }
}

// A store made by an older version (0644) is narrowed on open, its -wal and -shm too.
BOOST_AUTO_TEST_CASE(sqlite_existing_loose_store_is_narrowed) {
    TempDir dir;
    auto path = dir.file("s.db");
    {
        auto store = openOrFail(path);
        BOOST_TEST_REQUIRE(store->create(configMap("c")).ok());
        for (auto const& f : {path, path + "-wal", path + "-shm"}) BOOST_TEST_REQUIRE(::chmod(f.c_str(), 0644) == 0);
        auto again = openOrFail(path);
        for (auto const& f : {path, path + "-wal", path + "-shm"}) BOOST_TEST(modeOf(f) == 0600u, f);
        BOOST_TEST(found(again->get(keyOf(configMap("c")))).has_value());
    }
    BOOST_TEST(::chmod(path.c_str(), 0660) == 0);
    auto reopened = openOrFail(path);
    BOOST_TEST(modeOf(path) == 0600u);
}

// A symlink at the store's path leading nowhere is refused rather than followed to create a file.
BOOST_AUTO_TEST_CASE(sqlite_dangling_symlink_is_not_followed) {
    TempDir dir;
    auto path = dir.file("s.db");
    BOOST_TEST_REQUIRE(::symlink(dir.file("elsewhere.db").c_str(), path.c_str()) == 0);
    auto r = SqliteStore::open(path);
    BOOST_TEST(!r.store);
    BOOST_TEST(r.error.find("cannot open store") != std::string::npos, r.error);
    BOOST_TEST(modeOf(dir.file("elsewhere.db")) == 01000000u);
}
