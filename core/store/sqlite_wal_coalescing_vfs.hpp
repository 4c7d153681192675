// An SQLite VFS that hands each transaction's write-ahead-log frames to the file in one write
// (issue 14 P4). SQLite writes every frame as two writes, its 24-byte header and then its page
// (walWriteOneFrame in SQLite's src/wal.c), so a commit of 20 pages is 40 pwrite calls: on the
// virtual machines the benchmarks ran on, ~70 us a commit against ~7 us for one write of the same
// bytes, a sixth of the controller's cost per TrainJob (test/bench/README.md).
//
// Contract. Only files SQLite opens as a write-ahead log (SQLITE_OPEN_WAL) are wrapped; every other
// file is the underlying VFS's own, untouched. Writes at the log's end are held (up to 124 KiB,
// the most the unix VFS writes in one call) and reach the file
//  - inside the write that completes a commit frame: the page following a frame header whose
//    "database size after commit" field is non-zero (the WAL format's commit mark). SQLite
//    publishes a commit in the shared wal-index only after that write returned, so every reader,
//    in this process or another, finds the frames in the file; a failed write fails the commit;
//  - before any other operation on the file (read, sync, truncate, size, lock, file control,
//    close), and before a write anywhere else. Writes below the log's end (a page rewritten in
//    place within a transaction, the frame headers whose checksums SQLite then recomputes) go
//    straight through, so nothing of a committed transaction is ever left held.
// So whenever anything can look, the file holds exactly what it would hold without this layer:
// the on-disk format and the locking are SQLite's, and other processes need not use this VFS.
#pragma once

#include <cstdint>

struct sqlite3_vfs;

namespace trainer::core {

// The name, for sqlite3_open_v2, of this VFS over the process's current default VFS (registered
// the first time that default is seen, so a VFS a test makes the default stays below it);
// nullptr when it could not be registered (open with SQLite's default then).
const char* walCoalescingVfs();

// Registers a VFS of this kind named `name` over `underlying` (tests put a counting VFS below it).
// The VFS lives as long as the process.
sqlite3_vfs* registerWalCoalescingVfs(const char* name, sqlite3_vfs* underlying);

// Process-wide: writes SQLite issued to logs of these VFSes, and writes that reached the files.
struct WalCoalescingStats {
    uint64_t writes = 0;
    uint64_t fileWrites = 0;
};
WalCoalescingStats walCoalescingStats();

}  // namespace trainer::core
