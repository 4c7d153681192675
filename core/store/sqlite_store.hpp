// The embedded store: one SQLite file (WAL, busy timeout, one IMMEDIATE transaction per write)
// that several processes may share; the change feed is a table other processes poll.
#pragma once

#include "core/store/txn_store.hpp"

#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>

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
};

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

    std::optional<json::object> get(const ObjectKey& key) const override;
    std::vector<json::object> list(const std::string& apiVersion, const std::string& kind,
                                   const std::optional<std::string>& ns = std::nullopt) const override;
    std::vector<json::object> listAll() const override;
    std::vector<Change> changesSince(int64_t revision, size_t limit) const override;
    int64_t revision() const override;
    int64_t compactedRevision() const override;

    // The result of PRAGMA integrity_check ("ok" when healthy).
    std::string integrityCheck() const;
    // The last read failure (reads return empty results on failure), or "".
    std::string lastError() const;
    const std::string& path() const { return path_; }

    // The schema version this binary writes.
    static constexpr int kSchemaVersion = 1;

protected:
    void runWrite(const std::function<bool(StoreTxn&)>& body) override;

private:
    friend class SqliteTxn;
    SqliteStore(std::string path, SqliteStoreOptions options);
    void initialize();
    sqlite3_stmt* statement(const std::string& sql) const;
    void exec(const char* sql) const;
    int64_t metaValue(const char* key) const;
    template <class F>
    auto readGuarded(F&& f, decltype(f()) fallback) const -> decltype(f());

    std::string path_;
    SqliteStoreOptions options_;
    sqlite3* db_ = nullptr;
    mutable std::mutex mutex_;
    mutable std::unordered_map<std::string, sqlite3_stmt*> statements_;
    mutable std::string lastError_;
};

}  // namespace trainer::core
