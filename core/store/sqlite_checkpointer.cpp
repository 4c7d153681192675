// The store's background checkpoints (sqlite_checkpointer.hpp).
#include "core/store/sqlite_checkpointer.hpp"
#include "core/store/sqlite_wal_coalescing_vfs.hpp"

#include <sqlite3.h>

namespace trainer::core {

SqliteCheckpointer::SqliteCheckpointer(const std::string& path, int busyTimeoutMs, bool durable) {
    if (sqlite3_open_v2(path.c_str(), &db_, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, walCoalescingVfs()) != SQLITE_OK) {
        sqlite3_close_v2(db_);
        db_ = nullptr;
        return;
    }
    sqlite3_busy_timeout(db_, busyTimeoutMs);
    sqlite3_exec(db_, durable ? "PRAGMA synchronous=FULL" : "PRAGMA synchronous=NORMAL", nullptr, nullptr, nullptr);
    thread_ = std::thread([this] { loop(); });
}

SqliteCheckpointer::~SqliteCheckpointer() {
    {
        std::lock_guard lock(mutex_);
        stopping_ = true;
    }
    wake_.notify_one();
    if (thread_.joinable()) thread_.join();
    if (db_) sqlite3_close_v2(db_);
}

void SqliteCheckpointer::request() {
    {
        std::lock_guard lock(mutex_);
        if (pending_) return;
        pending_ = true;
    }
    wake_.notify_one();
}

void SqliteCheckpointer::waitIdle() {
    std::unique_lock lock(mutex_);
    pending_ = false;
    idle_.wait(lock, [this] { return !busy_; });
}

void SqliteCheckpointer::loop() {
    std::unique_lock lock(mutex_);
    for (;;) {
        wake_.wait(lock, [this] { return pending_ || stopping_; });
        if (stopping_) return;
        pending_ = false;
        busy_ = true;
        lock.unlock();
        // PASSIVE: copies what no reader still needs, waits for no lock; SQLITE_BUSY (another
        // process checkpointing) leaves the work to the next request.
        sqlite3_wal_checkpoint_v2(db_, nullptr, SQLITE_CHECKPOINT_PASSIVE, nullptr, nullptr);
        ++completed_;
        lock.lock();
        busy_ = false;
        idle_.notify_all();
    }
}

}  // namespace trainer::core
