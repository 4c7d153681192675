// The embedded store: one SQLite file (WAL, busy timeout, one IMMEDIATE transaction per write)
// that several processes may share; the change feed is a table other processes poll.
#pragma once

#include "core/store/txn_store.hpp"

#include "core/store/parsed_memo.hpp"
#include "core/store/sqlite_checkpointer.hpp"

#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <utility>

struct sqlite3;
struct sqlite3_stmt;

namespace trainer::core {

struct SqliteStoreOptions {
    StoreOptions store;
    // How long a write waits for another process's transaction before failing.
    int busyTimeoutMs = 30000;
    // synchronous=FULL (survives power loss) instead of NORMAL (survives process crashes).
    bool durable = true;
    // Change-feed entries kept; older ones are compacted away (see Store::compactedRevision).
    int64_t keepChanges = 100000;
    // Write-ahead-log pages (4 KiB each) at which a checkpoint copies the log into the database,
    // on a thread of its own when `backgroundCheckpoints` (sqlite_checkpointer.hpp); a commit that
    // finds the log at eight times this checkpoints itself (so the log stays under ~64 MiB).
    // SQLite's own default is 1000 pages, inline.
    int checkpointPages = 2000;
    bool backgroundCheckpoints = true;
    // How long share() may answer from memory after a read confirmed the file's head
    // (parsed_memo.hpp): how late another process's write, unseen by any read here, reaches it.
    std::chrono::milliseconds sharedTrust = ParsedMemo::kTrust;
};

struct SqliteReadConnection;  // sqlite_store.cpp

class SqliteStore;

// A store, or why the file could not be opened ("<path>: file is not a database").
struct SqliteOpenResult {
    std::unique_ptr<SqliteStore> store;
    std::string error;
};

class SqliteStore : public TxnStore {
public:
    // Opens or creates the store at `path` (schema created or checked).
    static SqliteOpenResult open(const std::string& path, SqliteStoreOptions options = {});
    ~SqliteStore() override;
    SqliteStore(const SqliteStore&) = delete;
    SqliteStore& operator=(const SqliteStore&) = delete;

    // Reads answer Error with SQLite's message ("store: sqlite step: database is locked") when
    // SQLite fails (busy past the timeout, I/O error, corrupt page) or a stored body does not parse.
    ReadResult get(const ObjectKey& key) const override;
    // get(), shared: an object parsed here is remembered with its row's revision, and a later
    // share() that finds the row at that revision hands it out instead of parsing the body again
    // (admission and the controller read one runtime for every TrainJob). Any write gives the row a
    // new revision. At most kParsedObjects are remembered. A remembered object is handed out
    // without reading the file while ParsedMemo trusts it (parsed_memo.hpp): this process's own
    // writes are seen at once, another process's once any read here has seen it, or within
    // ParsedMemo::kTrust (100 ms) when none has.
    std::shared_ptr<const ReadResult> share(const ObjectKey& key) const override;
    static constexpr size_t kParsedObjects = ParsedMemo::kObjects;
    ListResult list(const std::string& apiVersion, const std::string& kind,
                    const std::optional<std::string>& ns = std::nullopt) const override;
    ListResult listAll() const override;
    // The keys from the table's columns; no body is read or parsed.
    ReadValue<std::vector<ObjectKey>> listKeys(const std::string& apiVersion, const std::string& kind,
                                               const std::optional<std::string>& ns = std::nullopt) const override;
    ReadValue<std::vector<Change>> changesSince(int64_t revision, size_t limit) const override;
    ReadValue<int64_t> revision() const override;
    ReadValue<int64_t> compactedRevision() const override;
    ChangeSubscription onCommit(std::function<void()> fn) const override { return committed_.subscribe(std::move(fn)); }

    // The result of PRAGMA integrity_check ("ok" when healthy, "integrity check failed: <why>"
    // when it could not run).
    std::string integrityCheck() const;
    const std::string& path() const { return path_; }
    // Checkpoints run by the background thread so far (0 without one): what tests wait for.
    int backgroundCheckpoints() const { return checkpointer_ ? checkpointer_->completed() : 0; }

    // The schema version this binary writes.
    static constexpr int kSchemaVersion = 1;

    // The same store for a writer whose writes the store's own contents determine, so that a
    // write lost to a power failure is made again (the controller: the next reconcile of the
    // TrainJob builds the same JobSet). Its writes commit with synchronous=NORMAL: they survive
    // a crash of the process, and a power failure only as far as the last durable commit, which
    // makes every earlier one durable too (the WAL is one sequence). It spares the fsync of every
    // such write (issue 14 P4). Reads and the change feed are the store's own; on a store opened
    // with durable=false it writes as the store does. Must not outlive this store.
    std::unique_ptr<Store> rederivableWriter();

protected:
    void runWrite(const std::function<bool(StoreTxn&)>& body) override;

private:
    friend class SqliteTxn;
    friend class SqliteRederivableWriter;
    // One write transaction; `durable` false commits it with synchronous=NORMAL. Subscribers
    // (onCommit) are told after a commit, outside mutex_.
    void runWriteAs(const std::function<bool(StoreTxn&)>& body, bool durable);
    // The transaction itself, under mutex_: true when it committed.
    bool commitWrite(const std::function<bool(StoreTxn&)>& body, bool durable);
    SqliteStore(std::string path, SqliteStoreOptions options);
    void initialize();
    // Where checkpoints run: a background thread when it can be started, else inline at the
    // threshold (SQLite's automatic checkpoint).
    void startCheckpoints();
    static int walHook(void* store, sqlite3* db, const char* name, int pages);
    // Opens the read connection (after initialize(): the schema and the log exist).
    void openReader();
    // The write connection's prepared statement for `sql` (under mutex_).
    sqlite3_stmt* statement(const std::string& sql) const;
    void exec(const char* sql) const;
    // A meta row through the write connection (in a write) or `conn` (in a read).
    int64_t metaValue(const char* key) const;
    int64_t metaValue(const char* key, const SqliteReadConnection& conn) const;
    // Runs one read, `f(connection)`: its value, or the failure as the error. On the write
    // connection when it is idle (its page cache is current after its own commits); while a write
    // holds it, on the read connection: SQLite's log lets a reader see the last commit while
    // another connection writes, so a durable commit's fsync holds up no get, list or poll.
    // ReadConnection tries the read connection first: the change feed, read by watchers the
    // moment a commit wakes them, while the writer that committed goes on to read its objects.
    // Each commit empties the read connection's page cache, so the feed's few newest pages cost
    // it less than the writer's lookups would (issue 14 P4).
    // Every read tells parsed_ it has read, but share()'s, which confirms the memo's head itself.
    enum class ReadOn { WriteConnection, ReadConnection };
    enum class Confirms { No, Yes };
    template <class F>
    auto readGuarded(F&& f, ReadOn preferred = ReadOn::WriteConnection, Confirms confirms = Confirms::No) const
        -> ReadValue<decltype(f(std::declval<const SqliteReadConnection&>()))>;

    std::string path_;
    SqliteStoreOptions options_;
    // share()'s memory, told of every read and commit; after options_, which it is made from.
    mutable ParsedMemo parsed_{options_.sharedTrust};
    sqlite3* db_ = nullptr;  // writes (and the schema set-up)
    mutable std::mutex mutex_;
    mutable std::unordered_map<std::string, sqlite3_stmt*> statements_;
    sqlite3* readDb_ = nullptr;  // reads, read-only
    mutable std::mutex readMutex_;
    mutable std::unordered_map<std::string, sqlite3_stmt*> readStatements_;
    bool synchronousFull_ = false;  // the connection's synchronous level now (FULL or NORMAL); under mutex_
    std::unique_ptr<SqliteCheckpointer> checkpointer_;  // closed before db_
    int walPages_ = 0, nextCheckpointAt_ = 0;           // walHook's; under mutex_
    mutable ChangeSignal committed_;                     // notified after each commit, mutex_ released
};

}  // namespace trainer::core
