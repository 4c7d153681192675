// The write-ahead log's frames in one write per commit (sqlite_wal_coalescing_vfs.hpp).
#include "core/store/sqlite_wal_coalescing_vfs.hpp"

#include <sqlite3.h>

#include <algorithm>
#include <atomic>
#include <mutex>
#include <new>
#include <string>
#include <utility>
#include <vector>

namespace trainer::core {
namespace {

// SQLite's unix VFS writes at most 128 KiB - 1 bytes a call (seekAndWriteFd masks the length with
// 0x1ffff: it never writes more than a page); a larger write would come back short, as a full disk.
constexpr size_t kHoldBytes = 124 * 1024;
constexpr int kFrameHeaderBytes = 24;  // WAL format: page number, commit mark, salts, checksums
constexpr int kLogHeaderBytes = 32;

std::atomic<uint64_t> gWrites{0}, gFileWrites{0};

struct CoalescingVfs {
    sqlite3_vfs base;  // first: SQLite hands back &base
    sqlite3_vfs* under;
    std::string name;
};

sqlite3_vfs* underOf(sqlite3_vfs* vfs) { return reinterpret_cast<CoalescingVfs*>(vfs)->under; }

// A log file: SQLite allocates szOsFile bytes; this struct, then the underlying file.
struct WalFile {
    sqlite3_file base;  // first: pMethods = &kWalMethods
    sqlite3_file* real = nullptr;
    std::vector<unsigned char> held;
    sqlite3_int64 heldAt = 0;
    sqlite3_int64 end = -1;    // the log's end, as this handle wrote it (-1: not known yet)
    bool commitFrame = false;  // the last write was a commit frame's header
};

constexpr size_t walFileBytes() { return (sizeof(WalFile) + 15) & ~size_t{15}; }
WalFile* walOf(sqlite3_file* f) { return reinterpret_cast<WalFile*>(f); }

uint32_t bigEndian32(const unsigned char* p) {
    return uint32_t{p[0]} << 24 | uint32_t{p[1]} << 16 | uint32_t{p[2]} << 8 | uint32_t{p[3]};
}

int writeThrough(WalFile* f, const void* data, int n, sqlite3_int64 at) {
    gFileWrites.fetch_add(1, std::memory_order_relaxed);
    return f->real->pMethods->xWrite(f->real, data, n, at);
}

// What is held, to the file; dropped either way (a failed write fails the operation that flushed).
int flush(WalFile* f) {
    if (f->held.empty()) return SQLITE_OK;
    int rc = writeThrough(f, f->held.data(), static_cast<int>(f->held.size()), f->heldAt);
    f->held.clear();
    return rc;
}

// Only writes at the log's end are held. A write below it (a page SQLite rewrites in place within
// a transaction, the frame headers whose checksums it then recomputes: walRewriteChecksums) goes
// straight through, after what is held. The log's end is unknown until this handle's first write,
// which goes through too; the log header (32 bytes at offset 0) starts the log again.
int walWrite(sqlite3_file* file, const void* data, int n, sqlite3_int64 at) {
    WalFile* f = walOf(file);
    gWrites.fetch_add(1, std::memory_order_relaxed);
    const auto* bytes = static_cast<const unsigned char*>(data);
    const bool completesCommit = f->commitFrame && n != kFrameHeaderBytes;
    f->commitFrame = n == kFrameHeaderBytes && bigEndian32(bytes + 4) != 0;
    if (at == 0 && n == kLogHeaderBytes) {
        if (int rc = flush(f); rc != SQLITE_OK) return rc;
        f->end = 0;
    }
    const bool atEnd = f->end == at;
    if (!atEnd || f->held.size() + static_cast<size_t>(n) > kHoldBytes) {
        if (int rc = flush(f); rc != SQLITE_OK) return rc;
        if (!atEnd || static_cast<size_t>(n) > kHoldBytes) {
            f->end = std::max(f->end, at + n);
            return writeThrough(f, data, n, at);
        }
    }
    if (f->held.empty()) f->heldAt = at;
    f->held.insert(f->held.end(), bytes, bytes + n);
    f->end = at + n;
    return completesCommit ? flush(f) : SQLITE_OK;
}

int walClose(sqlite3_file* file) {
    WalFile* f = walOf(file);
    int rc = flush(f);
    int closed = f->real->pMethods ? f->real->pMethods->xClose(f->real) : SQLITE_OK;
    f->~WalFile();
    return rc != SQLITE_OK ? rc : closed;
}

// Any other operation on the log: what is held first, then the underlying file's own method.
template <auto Method>
struct FlushedThen;
template <class... Args, int (*sqlite3_io_methods::*Method)(sqlite3_file*, Args...)>
struct FlushedThen<Method> {
    static int call(sqlite3_file* file, Args... args) {
        WalFile* f = walOf(file);
        if (int rc = flush(f); rc != SQLITE_OK) return rc;
        return (f->real->pMethods->*Method)(f->real, args...);
    }
};

int walSectorSize(sqlite3_file* file) { return walOf(file)->real->pMethods->xSectorSize(walOf(file)->real); }

int walDeviceCharacteristics(sqlite3_file* file) {
    return walOf(file)->real->pMethods->xDeviceCharacteristics(walOf(file)->real);
}

// Version 1: a log file is never memory-mapped and has no shared memory of its own (SQLite keeps
// those on the database file, which is the underlying VFS's own).
using Io = sqlite3_io_methods;
const sqlite3_io_methods kWalMethods = {
    1,
    walClose,
    FlushedThen<&Io::xRead>::call,
    walWrite,
    FlushedThen<&Io::xTruncate>::call,
    FlushedThen<&Io::xSync>::call,
    FlushedThen<&Io::xFileSize>::call,
    FlushedThen<&Io::xLock>::call,
    FlushedThen<&Io::xUnlock>::call,
    FlushedThen<&Io::xCheckReservedLock>::call,
    FlushedThen<&Io::xFileControl>::call,
    walSectorSize,
    walDeviceCharacteristics,
    nullptr,
    nullptr,
    nullptr,
    nullptr,
    nullptr,
    nullptr};

int vfsOpen(sqlite3_vfs* vfs, sqlite3_filename name, sqlite3_file* file, int flags, int* outFlags) {
    sqlite3_vfs* under = underOf(vfs);
    if (!(flags & SQLITE_OPEN_WAL)) return under->xOpen(under, name, file, flags, outFlags);
    auto* f = new (file) WalFile();
    f->real = reinterpret_cast<sqlite3_file*>(reinterpret_cast<char*>(file) + walFileBytes());
    f->real->pMethods = nullptr;
    int rc = under->xOpen(under, name, f->real, flags, outFlags);
    if (rc != SQLITE_OK) {
        if (f->real->pMethods) f->real->pMethods->xClose(f->real);
        f->~WalFile();
        file->pMethods = nullptr;
        return rc;
    }
    f->base.pMethods = &kWalMethods;
    return SQLITE_OK;
}

// Everything else is the underlying VFS's method, called with its own object.
template <auto Method>
struct Forward;
template <class R, class... Args, R (*sqlite3_vfs::*Method)(sqlite3_vfs*, Args...)>
struct Forward<Method> {
    static R call(sqlite3_vfs* v, Args... args) { return (underOf(v)->*Method)(underOf(v), args...); }
};

}  // namespace

sqlite3_vfs* registerWalCoalescingVfs(const char* name, sqlite3_vfs* under) {
    if (!under) return nullptr;
    auto* v = new CoalescingVfs{};  // lives as long as the process: SQLite keeps the pointer
    v->under = under;
    v->name = name;
    sqlite3_vfs& b = v->base;
    // The layer below's version: the methods of later versions are forwarded when it has them.
    b.iVersion = under->iVersion;
    b.szOsFile = static_cast<int>(walFileBytes()) + under->szOsFile;
    b.mxPathname = under->mxPathname;
    b.zName = v->name.c_str();
    b.xOpen = vfsOpen;
    b.xDelete = Forward<&sqlite3_vfs::xDelete>::call;
    b.xAccess = Forward<&sqlite3_vfs::xAccess>::call;
    b.xFullPathname = Forward<&sqlite3_vfs::xFullPathname>::call;
    b.xDlOpen = Forward<&sqlite3_vfs::xDlOpen>::call;
    b.xDlError = Forward<&sqlite3_vfs::xDlError>::call;
    b.xDlSym = Forward<&sqlite3_vfs::xDlSym>::call;
    b.xDlClose = Forward<&sqlite3_vfs::xDlClose>::call;
    b.xRandomness = Forward<&sqlite3_vfs::xRandomness>::call;
    b.xSleep = Forward<&sqlite3_vfs::xSleep>::call;
    b.xCurrentTime = Forward<&sqlite3_vfs::xCurrentTime>::call;
    b.xGetLastError = Forward<&sqlite3_vfs::xGetLastError>::call;
    if (under->iVersion >= 2) b.xCurrentTimeInt64 = Forward<&sqlite3_vfs::xCurrentTimeInt64>::call;
    if (under->iVersion >= 3) {
        b.xSetSystemCall = Forward<&sqlite3_vfs::xSetSystemCall>::call;
        b.xGetSystemCall = Forward<&sqlite3_vfs::xGetSystemCall>::call;
        b.xNextSystemCall = Forward<&sqlite3_vfs::xNextSystemCall>::call;
    }
    if (sqlite3_vfs_register(&b, 0) != SQLITE_OK) {
        delete v;
        return nullptr;
    }
    return &b;
}

const char* walCoalescingVfs() {
    static std::mutex mutex;
    static std::vector<std::pair<sqlite3_vfs*, sqlite3_vfs*>> made;  // (the default then, ours over it)
    sqlite3_vfs* under = sqlite3_vfs_find(nullptr);
    if (!under) return nullptr;
    std::lock_guard lock(mutex);
    for (auto const& [below, ours] : made)
        if (below == under) return ours->zName;
    const std::string name = "trainer-wal-coalescing-" + std::to_string(made.size()) + "-" + under->zName;
    sqlite3_vfs* ours = registerWalCoalescingVfs(name.c_str(), under);
    if (!ours) return nullptr;
    made.emplace_back(under, ours);
    return ours->zName;
}

WalCoalescingStats walCoalescingStats() {
    return {gWrites.load(std::memory_order_relaxed), gFileWrites.load(std::memory_order_relaxed)};
}

}  // namespace trainer::core
