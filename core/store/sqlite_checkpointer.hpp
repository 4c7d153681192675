// Checkpoints of the embedded store's write-ahead log on a thread of their own (issue 14 P4).
// SQLite's automatic checkpoint runs inside the commit that crosses its threshold: the writer
// (the controller's one worker) copies the log into the database and waits for two fdatasyncs,
// and `perf` showed that worker blocked in those syncs for a fifth of a 10,000-TrainJob cold
// start. Here a commit only notes the log's size (SqliteStore's WAL hook); this thread runs a
// PASSIVE checkpoint over its own connection, which never blocks readers or the writer. Should it
// fall behind, or the writer never pause long enough for the log to restart (it restarts only
// when a commit begins with every frame copied), the commit that finds the log past eight times
// the threshold checkpoints inline (SqliteStore::walHook), so the log's size stays bounded.
#pragma once

#include <atomic>
#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>

struct sqlite3;

namespace trainer::core {

class SqliteCheckpointer {
public:
    // Opens its own connection to `path` (already a WAL database); `durable` picks the sync level
    // of its checkpoints as the store's (FULL or NORMAL: a checkpoint syncs in both).
    SqliteCheckpointer(const std::string& path, int busyTimeoutMs, bool durable);
    ~SqliteCheckpointer();  // stops and joins the thread, then closes its connection
    SqliteCheckpointer(const SqliteCheckpointer&) = delete;
    SqliteCheckpointer& operator=(const SqliteCheckpointer&) = delete;

    // False when the connection could not be opened (the store then checkpoints inline).
    bool running() const { return db_ != nullptr; }
    // Asks for a checkpoint; returns at once (one pending request covers any number of calls).
    void request();
    // Waits until no checkpoint of this thread is running and drops a pending request: the caller
    // is about to checkpoint itself.
    void waitIdle();
    // Checkpoints that have run, whatever they managed to copy: what tests wait for.
    int completed() const { return completed_.load(); }

private:
    void loop();

    sqlite3* db_ = nullptr;
    std::mutex mutex_;
    std::condition_variable wake_, idle_;
    bool pending_ = false, stopping_ = false, busy_ = false;
    std::atomic<int> completed_{0};
    std::thread thread_;
};

}  // namespace trainer::core
