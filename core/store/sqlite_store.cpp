#include "core/store/sqlite_store.hpp"

#include "core/json/io.hpp"
#include "core/log/log.hpp"
#include "core/store/private_file.hpp"
#include "core/store/sqlite_wal_coalescing_vfs.hpp"

#include <sqlite3.h>

#include <charconv>
#include <stdexcept>
#include <thread>

namespace trainer::core {

namespace {

struct SqliteError : std::runtime_error {
    int code;
    SqliteError(int c, const std::string& what) : std::runtime_error(what), code(c) {}
};

[[noreturn]] void raise(sqlite3* db, int rc, std::string_view what) {
    throw SqliteError(rc, std::string(what) + ": " + (db ? sqlite3_errmsg(db) : sqlite3_errstr(rc)));
}

// One use of a cached prepared statement; reset on destruction so no read stays open.
class Query {
public:
    Query(sqlite3* db, sqlite3_stmt* s) : db_(db), s_(s) {}
    ~Query() {
        sqlite3_reset(s_);
        sqlite3_clear_bindings(s_);
    }
    Query(const Query&) = delete;
    Query& operator=(const Query&) = delete;
    Query& bind(int i, std::string_view v) {
        check(sqlite3_bind_text(s_, i, v.data(), static_cast<int>(v.size()), SQLITE_TRANSIENT));
        return *this;
    }
    Query& bind(int i, int64_t v) {
        check(sqlite3_bind_int64(s_, i, v));
        return *this;
    }
    Query& bindKey(int first, const ObjectKey& k) {
        return bind(first, k.apiVersion).bind(first + 1, k.kind).bind(first + 2, k.ns).bind(first + 3, k.name);
    }
    // True when a row is available.
    bool step() {
        int rc = sqlite3_step(s_);
        if (rc == SQLITE_ROW) return true;
        if (rc == SQLITE_DONE) return false;
        raise(db_, rc, "sqlite step");
    }
    void run() {
        while (step()) {
        }
    }
    std::string text(int col) const {
        auto p = reinterpret_cast<const char*>(sqlite3_column_text(s_, col));
        return p ? std::string(p, static_cast<size_t>(sqlite3_column_bytes(s_, col))) : std::string();
    }
    int64_t integer(int col) const { return sqlite3_column_int64(s_, col); }
    bool isNull(int col) const { return sqlite3_column_type(s_, col) == SQLITE_NULL; }
    ObjectKey key(int first) const { return ObjectKey{text(first), text(first + 1), text(first + 2), text(first + 3)}; }

private:
    void check(int rc) {
        if (rc != SQLITE_OK) raise(db_, rc, "sqlite bind");
    }
    sqlite3* db_;
    sqlite3_stmt* s_;
};

json::object parseBody(const std::string& text, const ObjectKey& key) {
    boost::system::error_code ec;
    auto v = parseReusing(text, ec, 1024);  // what the API accepts (512) with room; Boost.JSON's default is 32
    if (ec || !v.is_object()) throw std::runtime_error("corrupt object " + key.display() + " in store: not a JSON object");
    return std::move(v.as_object());
}

std::string metaString(const json::object& o, std::string_view k) {
    auto const* m = o.if_contains("metadata");
    auto const* v = (m && m->is_object()) ? m->as_object().if_contains(k) : nullptr;
    return (v && v->is_string()) ? std::string(v->as_string()) : std::string();
}

int64_t toInt(std::string_view s) {
    int64_t v = 0;
    std::from_chars(s.data(), s.data() + s.size(), v);
    return v;
}

constexpr const char* kSchema = R"(
CREATE TABLE schema_version(version INTEGER NOT NULL);
CREATE TABLE meta(key TEXT PRIMARY KEY, value INTEGER NOT NULL);
CREATE TABLE objects(
  api_version TEXT NOT NULL, kind TEXT NOT NULL, namespace TEXT NOT NULL, name TEXT NOT NULL,
  uid TEXT NOT NULL UNIQUE, revision INTEGER NOT NULL, body TEXT NOT NULL,
  PRIMARY KEY(api_version, kind, namespace, name)) WITHOUT ROWID;
CREATE TABLE owner_refs(
  owner_uid TEXT NOT NULL, api_version TEXT NOT NULL, kind TEXT NOT NULL, namespace TEXT NOT NULL, name TEXT NOT NULL,
  PRIMARY KEY(owner_uid, api_version, kind, namespace, name)) WITHOUT ROWID;
CREATE INDEX owner_refs_dependent ON owner_refs(api_version, kind, namespace, name);
CREATE TABLE changes(
  revision INTEGER PRIMARY KEY, type INTEGER NOT NULL,
  api_version TEXT NOT NULL, kind TEXT NOT NULL, namespace TEXT NOT NULL, name TEXT NOT NULL, body TEXT NOT NULL);
INSERT INTO meta(key, value) VALUES('revision', 0), ('compacted', 0);
)";

}  // namespace

// The primitives over the connection; only used while runWrite holds the store's mutex.
class SqliteTxn : public StoreTxn {
public:
    explicit SqliteTxn(SqliteStore& s) : s_(s), base_(s.metaValue("revision")), revision_(base_) {}

    std::optional<json::object> read(const ObjectKey& key) override {
        Query q = query("SELECT body FROM objects WHERE api_version=?1 AND kind=?2 AND namespace=?3 AND name=?4");
        q.bindKey(1, key);
        if (!q.step()) return std::nullopt;
        return parseBody(q.text(0), key);
    }
    void put(const ObjectKey& key, const json::object& obj) override { putBody(key, obj, json::serialize(obj)); }
    void erase(const ObjectKey& key) override {
        Query q = query("DELETE FROM objects WHERE api_version=?1 AND kind=?2 AND namespace=?3 AND name=?4");
        q.bindKey(1, key).run();
        written_.push_back(key);
        dropOwnerRefs(key);
    }
    std::vector<ObjectKey> dependents(const std::string& ownerUid) override {
        std::vector<ObjectKey> out;
        if (ownerUid.empty()) return out;
        Query q = query("SELECT api_version, kind, namespace, name FROM owner_refs WHERE owner_uid=?1");
        q.bind(1, ownerUid);
        while (q.step()) out.push_back(q.key(0));
        return out;
    }
    bool uidExists(const std::string& uid) override {
        Query q = query("SELECT 1 FROM objects WHERE uid=?1");
        q.bind(1, uid);
        return q.step();
    }
    int64_t revision() override { return revision_; }
    void record(int64_t revision, ChangeType type, const ObjectKey& key, const json::object& object) override {
        recordBody(revision, type, key, json::serialize(object));
    }
    void putAndRecord(const ObjectKey& key, const json::object& obj, int64_t revision, ChangeType type) override {
        const std::string body = json::serialize(obj);
        putBody(key, obj, body);
        recordBody(revision, type, key, body);
    }

    // The head this transaction found, and the rows it wrote (ParsedMemo::committed).
    int64_t base() const { return base_; }
    const std::vector<ObjectKey>& written() const { return written_; }

    // Drops feed entries beyond the retention window, in batches.
    void compact(int64_t keep) {
        if (keep <= 0) return;
        int64_t compacted = s_.metaValue("compacted");
        if (revision_ - compacted <= keep + keep / 10) return;
        int64_t upTo = revision_ - keep;
        query("DELETE FROM changes WHERE revision <= ?1").bind(1, upTo).run();
        query("UPDATE meta SET value=?1 WHERE key='compacted'").bind(1, upTo).run();
    }

private:
    Query query(const char* sql) { return Query(s_.db_, s_.statement(sql)); }
    // The row of `obj`, `body` its text, and its owner references.
    void putBody(const ObjectKey& key, const json::object& obj, std::string_view body) {
        {
            Query q = query("INSERT OR REPLACE INTO objects(api_version, kind, namespace, name, uid, revision, body) "
                            "VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7)");
            q.bindKey(1, key).bind(5, metaString(obj, "uid")).bind(6, toInt(metaString(obj, "resourceVersion")));
            q.bind(7, body).run();
        }
        written_.push_back(key);
        dropOwnerRefs(key);
        auto const* m = obj.if_contains("metadata");
        auto const* refs = (m && m->is_object()) ? m->as_object().if_contains("ownerReferences") : nullptr;
        if (!refs || !refs->is_array()) return;
        for (auto const& r : refs->as_array()) {
            auto const* uid = r.is_object() ? r.as_object().if_contains("uid") : nullptr;
            if (!uid || !uid->is_string() || uid->as_string().empty()) continue;
            Query q = query("INSERT OR IGNORE INTO owner_refs(owner_uid, api_version, kind, namespace, name) "
                            "VALUES(?1, ?2, ?3, ?4, ?5)");
            q.bind(1, std::string_view(uid->as_string())).bindKey(2, key).run();
        }
    }
    // The feed row of a change whose object's text is `body`; `revision` becomes the newest.
    void recordBody(int64_t revision, ChangeType type, const ObjectKey& key, std::string_view body) {
        {
            Query q = query("INSERT INTO changes(revision, type, api_version, kind, namespace, name, body) "
                            "VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7)");
            q.bind(1, revision).bind(2, static_cast<int64_t>(type)).bindKey(3, key);
            q.bind(7, body).run();
        }
        Query q = query("UPDATE meta SET value=?1 WHERE key='revision'");
        q.bind(1, revision).run();
        revision_ = revision;
    }
    void dropOwnerRefs(const ObjectKey& key) {
        Query q = query("DELETE FROM owner_refs WHERE api_version=?1 AND kind=?2 AND namespace=?3 AND name=?4");
        q.bindKey(1, key).run();
    }

    SqliteStore& s_;
    int64_t base_;
    int64_t revision_;
    std::vector<ObjectKey> written_;
};

SqliteStore::SqliteStore(std::string path, SqliteStoreOptions options)
    : TxnStore(options.store), path_(std::move(path)), options_(std::move(options)) {}

SqliteStore::~SqliteStore() {
    checkpointer_.reset();
    for (auto& [sql, s] : readStatements_) sqlite3_finalize(s);
    if (readDb_) sqlite3_close_v2(readDb_);
    for (auto& [sql, s] : statements_) sqlite3_finalize(s);
    if (db_) sqlite3_close_v2(db_);
}

SqliteOpenResult SqliteStore::open(const std::string& path, SqliteStoreOptions options) {
    SqliteOpenResult result;
    std::vector<std::string> warnings;
    if (auto error = preparePrivateStoreFile(path, warnings); !error.empty()) {
        result.error = path + ": cannot open store: " + error;
        return result;
    }
    for (auto const& w : warnings) log::Logger("store").warn("Narrowed the store's file mode", {{"warning", w}});
    std::unique_ptr<SqliteStore> store(new SqliteStore(path, std::move(options)));
    int rc = sqlite3_open_v2(path.c_str(), &store->db_, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_FULLMUTEX,
                             walCoalescingVfs());
    if (rc != SQLITE_OK) {
        result.error = path + ": cannot open store: " + (store->db_ ? sqlite3_errmsg(store->db_) : sqlite3_errstr(rc));
        return result;
    }
    try {
        store->initialize();
        store->openReader();
    } catch (const SqliteError& e) {
        bool notDb = e.code == SQLITE_NOTADB || e.code == SQLITE_CORRUPT;
        result.error = path + ": " + (notDb ? "not a store (file is not an SQLite database or is corrupt): " : "") + e.what();
        return result;
    } catch (const std::exception& e) {
        result.error = path + ": " + e.what();
        return result;
    }
    store->startCheckpoints();
    result.store = std::move(store);
    return result;
}

void SqliteStore::startCheckpoints() {
    if (options_.backgroundCheckpoints) {
        auto c = std::make_unique<SqliteCheckpointer>(path_, options_.busyTimeoutMs, options_.durable);
        if (c->running()) {
            checkpointer_ = std::move(c);
            nextCheckpointAt_ = options_.checkpointPages;
            sqlite3_wal_hook(db_, &SqliteStore::walHook, this);  // replaces SQLite's automatic checkpoint
            return;
        }
    }
    sqlite3_wal_autocheckpoint(db_, options_.checkpointPages);
}

// The log's size, in checkpointPages, at which a writer checkpoints itself.
constexpr int kCheckpointFallback = 8;

// After every commit, with the log's size in pages; runs on the committing thread (under mutex_).
// The background thread is asked once per `checkpointPages` of growth, not after every commit:
// the log restarts only when a commit begins while no checkpoint is copying it, and a thread
// asked after every commit would always be copying.
int SqliteStore::walHook(void* store, sqlite3* db, const char* name, int pages) {
    auto* s = static_cast<SqliteStore*>(store);
    const int every = s->options_.checkpointPages;
    if (pages < s->walPages_) s->nextCheckpointAt_ = every;  // the log restarted
    s->walPages_ = pages;
    // Fallen behind (a writer that never pauses leaves no moment for the log to restart): wait for
    // a background checkpoint under way, copy the rest here (FULL), and the next commit restarts it.
    if (pages >= kCheckpointFallback * every) {
        s->checkpointer_->waitIdle();  // SQLite returns BUSY at once while another checkpoint runs
        sqlite3_wal_checkpoint_v2(db, name, SQLITE_CHECKPOINT_FULL, nullptr, nullptr);
    } else if (pages >= s->nextCheckpointAt_) {
        s->nextCheckpointAt_ = pages + every;
        s->checkpointer_->request();
    }
    return SQLITE_OK;
}

void SqliteStore::exec(const char* sql) const {
    char* err = nullptr;
    int rc = sqlite3_exec(db_, sql, nullptr, nullptr, &err);
    if (rc != SQLITE_OK) {
        std::string msg = err ? err : sqlite3_errstr(rc);
        sqlite3_free(err);
        throw SqliteError(rc, msg);
    }
}

void SqliteStore::initialize() {
    sqlite3_busy_timeout(db_, options_.busyTimeoutMs);
    sqlite3_extended_result_codes(db_, 0);
    // Switching to WAL needs a moment alone with the file; another process may be opening it too.
    for (int attempt = 0;; ++attempt) {
        try {
            exec("PRAGMA journal_mode=WAL");
            break;
        } catch (const SqliteError& e) {
            if (e.code != SQLITE_BUSY || attempt > 50) throw;
            std::this_thread::sleep_for(std::chrono::milliseconds(20));
        }
    }
    exec(options_.durable ? "PRAGMA synchronous=FULL" : "PRAGMA synchronous=NORMAL");
    synchronousFull_ = options_.durable;
    exec("BEGIN IMMEDIATE");
    try {
        Query tables(db_, statement("SELECT count(*), sum(name = 'schema_version') FROM sqlite_master WHERE type = 'table'"));
        tables.step();
        int64_t count = tables.integer(0), hasVersion = tables.integer(1);
        if (count == 0) {
            exec(kSchema);
            Query v(db_, statement("INSERT INTO schema_version(version) VALUES(?1)"));
            v.bind(1, int64_t{kSchemaVersion}).run();
        } else if (!hasVersion) {
            throw std::runtime_error("not a trainer-operator store (an SQLite database without a schema_version table)");
        } else {
            Query v(db_, statement("SELECT max(version) FROM schema_version"));
            int64_t version = v.step() ? v.integer(0) : 0;
            if (version > kSchemaVersion || version < 1)
                throw std::runtime_error("store schema version " + std::to_string(version) +
                                         " is not supported by this binary (supports " + std::to_string(kSchemaVersion) +
                                         ")");
        }
        exec("COMMIT");
    } catch (...) {
        sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
        throw;
    }
}

void SqliteStore::openReader() {
    int rc = sqlite3_open_v2(path_.c_str(), &readDb_, SQLITE_OPEN_READONLY | SQLITE_OPEN_FULLMUTEX, walCoalescingVfs());
    if (rc != SQLITE_OK) raise(readDb_, rc, "open the read connection");
    sqlite3_busy_timeout(readDb_, options_.busyTimeoutMs);
    sqlite3_extended_result_codes(readDb_, 0);
}

namespace {

sqlite3_stmt* prepared(sqlite3* db, std::unordered_map<std::string, sqlite3_stmt*>& cache, const std::string& sql) {
    if (auto it = cache.find(sql); it != cache.end()) return it->second;
    sqlite3_stmt* s = nullptr;
    int rc = sqlite3_prepare_v3(db, sql.c_str(), static_cast<int>(sql.size()), SQLITE_PREPARE_PERSISTENT, &s, nullptr);
    if (rc != SQLITE_OK) raise(db, rc, "sqlite prepare");
    cache.emplace(sql, s);
    return s;
}

}  // namespace

sqlite3_stmt* SqliteStore::statement(const std::string& sql) const { return prepared(db_, statements_, sql); }

// The connection a read runs on, and its statements.
struct SqliteReadConnection {
    sqlite3* db;
    std::unordered_map<std::string, sqlite3_stmt*>& cache;
    Query query(const std::string& sql) const { return Query(db, prepared(db, cache, sql)); }
};

int64_t SqliteStore::metaValue(const char* key) const {
    return metaValue(key, SqliteReadConnection{db_, statements_});
}

int64_t SqliteStore::metaValue(const char* key, const SqliteReadConnection& conn) const {
    Query q = conn.query("SELECT value FROM meta WHERE key=?1");
    q.bind(1, std::string_view(key));
    // The schema inserts every key; a missing row is a damaged store, not revision 0.
    if (!q.step()) throw std::runtime_error(std::string("corrupt store: meta row '") + key + "' is missing");
    return q.integer(0);
}

// SqliteStore::rederivableWriter: the store's reads, its writes without an fsync each.
class SqliteRederivableWriter : public TxnStore {
public:
    explicit SqliteRederivableWriter(SqliteStore& store) : TxnStore(store.options_.store), store_(store) {}
    ReadResult get(const ObjectKey& key) const override { return store_.get(key); }
    // The store's, so the controller shares what it parsed (the runtime of every TrainJob).
    std::shared_ptr<const ReadResult> share(const ObjectKey& key) const override { return store_.share(key); }
    ListResult list(const std::string& apiVersion, const std::string& kind,
                    const std::optional<std::string>& ns = std::nullopt) const override {
        return store_.list(apiVersion, kind, ns);
    }
    ListResult listAll() const override { return store_.listAll(); }
    // The store's: the keys from the table's columns, no body parsed (the controller's re-list).
    ReadValue<std::vector<ObjectKey>> listKeys(const std::string& apiVersion, const std::string& kind,
                                               const std::optional<std::string>& ns = std::nullopt) const override {
        return store_.listKeys(apiVersion, kind, ns);
    }
    ReadValue<std::vector<Change>> changesSince(int64_t revision, size_t limit) const override {
        return store_.changesSince(revision, limit);
    }
    ReadValue<int64_t> revision() const override { return store_.revision(); }
    ReadValue<int64_t> compactedRevision() const override { return store_.compactedRevision(); }
    ChangeSubscription onCommit(std::function<void()> fn) const override { return store_.onCommit(std::move(fn)); }

protected:
    void runWrite(const std::function<bool(StoreTxn&)>& body) override { store_.runWriteAs(body, /*durable=*/false); }

private:
    SqliteStore& store_;
};

std::unique_ptr<Store> SqliteStore::rederivableWriter() { return std::make_unique<SqliteRederivableWriter>(*this); }

void SqliteStore::runWrite(const std::function<bool(StoreTxn&)>& body) { runWriteAs(body, options_.durable); }

void SqliteStore::runWriteAs(const std::function<bool(StoreTxn&)>& body, bool durable) {
    if (commitWrite(body, durable)) committed_.notify();
}

bool SqliteStore::commitWrite(const std::function<bool(StoreTxn&)>& body, bool durable) {
    std::lock_guard lock(mutex_);
    // synchronous applies to the commits that follow: switched only when this write wants the
    // other level (a run of the controller's writes costs no PRAGMA each).
    const bool full = options_.durable && durable;
    if (full != synchronousFull_) {
        exec(full ? "PRAGMA synchronous=FULL" : "PRAGMA synchronous=NORMAL");
        synchronousFull_ = full;
    }
    for (int attempt = 0;; ++attempt) {
        int rc = sqlite3_exec(db_, "BEGIN IMMEDIATE", nullptr, nullptr, nullptr);
        if (rc == SQLITE_BUSY && attempt < 20) continue;
        if (rc != SQLITE_OK) raise(db_, rc, "begin transaction");
        break;
    }
    try {
        SqliteTxn txn(*this);
        if (!body(txn)) {
            exec("ROLLBACK");
            return false;
        }
        txn.compact(options_.keepChanges);
        exec("COMMIT");
        parsed_.committed(txn.base(), txn.revision(), txn.written());
        return true;
    } catch (...) {
        if (!sqlite3_get_autocommit(db_)) sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
        throw;
    }
}

template <class F>
auto SqliteStore::readGuarded(F&& f, ReadOn preferred, Confirms confirms) const
    -> ReadValue<decltype(f(std::declval<const SqliteReadConnection&>()))> {
    using Result = ReadValue<decltype(f(std::declval<const SqliteReadConnection&>()))>;
    std::unique_lock writer(mutex_, std::defer_lock);
    std::unique_lock reader(readMutex_, std::defer_lock);
    const bool onReader = preferred == ReadOn::ReadConnection && reader.try_lock();
    if (!onReader && !writer.try_lock()) reader.lock();
    const SqliteReadConnection conn = writer.owns_lock() ? SqliteReadConnection{db_, statements_}
                                                         : SqliteReadConnection{readDb_, readStatements_};
    Result result = [&] {
        try {
            return Result::of(f(conn));
        } catch (const std::exception& e) {
            return Result::failure(std::string("store: ") + e.what());
        } catch (...) {
            return Result::failure("store: unknown error");
        }
    }();
    if (confirms == Confirms::No) parsed_.readDone();  // before the caller learns what it read
    return result;
}

// Reads copy the stored text under their connection's mutex and parse it after releasing it: a
// parse is most of a read's time, and the mutex serialises the connection's users (issue 14 P4).
ReadResult SqliteStore::get(const ObjectKey& key) const {
    auto r = readGuarded([&](const SqliteReadConnection& conn) -> std::optional<std::string> {
        Query q = conn.query("SELECT body FROM objects WHERE api_version=?1 AND kind=?2 AND namespace=?3 AND name=?4");
        q.bindKey(1, key);
        if (!q.step()) return std::nullopt;
        return q.text(0);
    });
    if (!r.ok()) return ReadResult::error(std::move(*r.error));
    if (!r.value) return ReadResult::absent();
    try {
        return ReadResult::of(parseBody(*r.value, key));
    } catch (const std::exception& e) {
        return ReadResult::error(std::string("store: ") + e.what());
    }
}

std::shared_ptr<const ReadResult> SqliteStore::share(const ObjectKey& key) const {
    if (auto hit = parsed_.trusted(key, ParsedMemo::Clock::now())) return hit;
    struct Row {
        int64_t revision = 0;
        std::string body;  // empty when remembered
    };
    std::shared_ptr<const ReadResult> remembered;
    const ParsedMemo::Ticket ticket = parsed_.ticket();
    // The file's head and the row (if any) in one statement, so one read transaction: what
    // confirms the memo, found or not. A read that failed learnt nothing and confirms nothing.
    auto r = readGuarded([&](const SqliteReadConnection& conn) -> std::pair<int64_t, std::optional<Row>> {
        Query q = conn.query("SELECT m.value, o.revision, o.body FROM meta m LEFT JOIN objects o ON o.api_version=?1 "
                             "AND o.kind=?2 AND o.namespace=?3 AND o.name=?4 WHERE m.key='revision'");
        q.bindKey(1, key);
        if (!q.step()) throw std::runtime_error("corrupt store: meta row 'revision' is missing");
        const int64_t head = q.integer(0);
        if (q.isNull(1)) return {head, std::nullopt};
        Row row{q.integer(1), {}};
        remembered = parsed_.at(key, row.revision);
        if (!remembered) row.body = q.text(2);  // a remembered body is not copied
        return {head, std::move(row)};
    }, ReadOn::WriteConnection, Confirms::Yes);
    if (!r.ok()) return std::make_shared<const ReadResult>(ReadResult::error(std::move(*r.error)));
    const int64_t head = r.value.first;
    parsed_.confirm(ticket, head, ParsedMemo::Clock::now());
    if (!r.value.second) return sharedAbsent();
    const Row& row = *r.value.second;
    if (remembered) return remembered;
    try {
        auto parsed = std::make_shared<const ReadResult>(ReadResult::of(parseBody(row.body, key)));
        parsed_.remember(ticket, head, key, row.revision, parsed);
        return parsed;
    } catch (const std::exception& e) {
        return std::make_shared<const ReadResult>(ReadResult::error(std::string("store: ") + e.what()));
    }
}

ListResult SqliteStore::list(const std::string& apiVersion, const std::string& kind,
                             const std::optional<std::string>& ns) const {
    return readGuarded([&](const SqliteReadConnection& conn) {
        std::vector<json::object> out;
        Query q = conn.query(ns ? "SELECT body FROM objects WHERE api_version=?1 AND kind=?2 AND namespace=?3 "
                                  "ORDER BY namespace, name"
                                : "SELECT body FROM objects WHERE api_version=?1 AND kind=?2 ORDER BY namespace, name");
        q.bind(1, apiVersion).bind(2, kind);
        if (ns) q.bind(3, *ns);
        while (q.step()) out.push_back(parseBody(q.text(0), ObjectKey{apiVersion, kind, ns.value_or(""), ""}));
        return out;
    });
}

ReadValue<std::vector<ObjectKey>> SqliteStore::listKeys(const std::string& apiVersion, const std::string& kind,
                                                        const std::optional<std::string>& ns) const {
    return readGuarded([&](const SqliteReadConnection& conn) {
        std::vector<ObjectKey> out;
        Query q = conn.query(ns ? "SELECT api_version, kind, namespace, name FROM objects WHERE api_version=?1 "
                                  "AND kind=?2 AND namespace=?3 ORDER BY namespace, name"
                                : "SELECT api_version, kind, namespace, name FROM objects WHERE api_version=?1 "
                                  "AND kind=?2 ORDER BY namespace, name");
        q.bind(1, apiVersion).bind(2, kind);
        if (ns) q.bind(3, *ns);
        while (q.step()) out.push_back(q.key(0));
        return out;
    });
}

ListResult SqliteStore::listAll() const {
    return readGuarded([&](const SqliteReadConnection& conn) {
        std::vector<json::object> out;
        Query q = conn.query("SELECT body, api_version, kind, namespace, name FROM objects "
                             "ORDER BY api_version, kind, namespace, name");
        while (q.step()) out.push_back(parseBody(q.text(0), q.key(1)));
        return out;
    });
}

ReadValue<std::vector<Change>> SqliteStore::changesSince(int64_t revision, size_t limit) const {
    struct Row {
        Change change;
        std::string body;
    };
    auto rows = readGuarded([&](const SqliteReadConnection& conn) {
        std::vector<Row> out;
        Query q = conn.query("SELECT revision, type, api_version, kind, namespace, name, body FROM changes "
                             "WHERE revision > ?1 ORDER BY revision LIMIT ?2");
        q.bind(1, revision).bind(2, static_cast<int64_t>(std::min<size_t>(limit, INT64_MAX)));
        while (q.step()) {
            auto type = q.integer(1);
            if (type < 0 || type > 2) throw std::runtime_error("corrupt change feed entry");
            out.push_back(Row{Change{q.integer(0), static_cast<ChangeType>(type), q.key(2), {}}, q.text(6)});
        }
        return out;
    }, ReadOn::ReadConnection);
    using Result = ReadValue<std::vector<Change>>;
    if (!rows.ok()) return Result::failure(std::move(*rows.error));
    std::vector<Change> out;
    out.reserve(rows.value.size());
    try {
        for (auto& row : rows.value) {
            row.change.object = parseBody(row.body, row.change.key);
            std::string().swap(row.body);
            out.push_back(std::move(row.change));
        }
    } catch (const std::exception& e) {
        return Result::failure(std::string("store: ") + e.what());
    }
    return Result::of(std::move(out));
}

ReadValue<int64_t> SqliteStore::revision() const {
    return readGuarded([&](const SqliteReadConnection& conn) { return metaValue("revision", conn); });
}

ReadValue<int64_t> SqliteStore::compactedRevision() const {
    return readGuarded([&](const SqliteReadConnection& conn) { return metaValue("compacted", conn); });
}

std::string SqliteStore::integrityCheck() const {
    auto out = readGuarded([&](const SqliteReadConnection& conn) {
        std::string lines;
        Query q = conn.query("PRAGMA integrity_check");
        while (q.step()) lines += (lines.empty() ? "" : "\n") + q.text(0);
        return lines;
    });
    if (!out.ok()) return "integrity check failed: " + *out.error;
    return out.value.empty() ? "integrity check failed: no answer" : out.value;
}

}  // namespace trainer::core
