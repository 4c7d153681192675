// An SQLite VFS for tests that forwards every call to the VFS that was the default when it was
// made and counts syncs, write-ahead-log writes and log-index locks: the real SQLite on a real
// file, observed.
// While it lives it is the default VFS (the stores the tests open sit on it).
#pragma once

#include <sqlite3.h>

#include <atomic>
#include <cstring>

namespace trainer::core::test {

struct VfsCounts {
    static inline std::atomic<int> syncs{0};
    static inline std::atomic<int> walWrites{0};  // writes that reached a write-ahead log
    static inline std::atomic<int> shmLocks{0};   // locks of the log's index: every read transaction takes one
    static inline sqlite3_vfs* real = nullptr;
};

namespace counting_vfs {

struct File {
    sqlite3_file base;  // first: SQLite sees a sqlite3_file
    sqlite3_file* real;
    bool wal;
};
inline sqlite3_file* real(sqlite3_file* f) { return reinterpret_cast<File*>(f)->real; }

inline int fClose(sqlite3_file* f) {
    int rc = real(f)->pMethods ? real(f)->pMethods->xClose(real(f)) : SQLITE_OK;
    sqlite3_free(real(f));
    return rc;
}
inline int fRead(sqlite3_file* f, void* b, int n, sqlite3_int64 o) { return real(f)->pMethods->xRead(real(f), b, n, o); }
inline int fWrite(sqlite3_file* f, const void* b, int n, sqlite3_int64 o) {
    if (reinterpret_cast<File*>(f)->wal) ++VfsCounts::walWrites;
    return real(f)->pMethods->xWrite(real(f), b, n, o);
}
inline int fTruncate(sqlite3_file* f, sqlite3_int64 s) { return real(f)->pMethods->xTruncate(real(f), s); }
inline int fSync(sqlite3_file* f, int flags) {
    ++VfsCounts::syncs;
    return real(f)->pMethods->xSync(real(f), flags);
}
inline int fSize(sqlite3_file* f, sqlite3_int64* s) { return real(f)->pMethods->xFileSize(real(f), s); }
inline int fLock(sqlite3_file* f, int l) { return real(f)->pMethods->xLock(real(f), l); }
inline int fUnlock(sqlite3_file* f, int l) { return real(f)->pMethods->xUnlock(real(f), l); }
inline int fReserved(sqlite3_file* f, int* r) { return real(f)->pMethods->xCheckReservedLock(real(f), r); }
inline int fControl(sqlite3_file* f, int op, void* a) { return real(f)->pMethods->xFileControl(real(f), op, a); }
inline int fSector(sqlite3_file* f) { return real(f)->pMethods->xSectorSize(real(f)); }
inline int fDevice(sqlite3_file* f) { return real(f)->pMethods->xDeviceCharacteristics(real(f)); }
inline int fShmMap(sqlite3_file* f, int i, int s, int e, void volatile** p) {
    return real(f)->pMethods->xShmMap(real(f), i, s, e, p);
}
inline int fShmLock(sqlite3_file* f, int o, int n, int fl) {
    ++VfsCounts::shmLocks;
    return real(f)->pMethods->xShmLock(real(f), o, n, fl);
}
inline void fShmBarrier(sqlite3_file* f) { real(f)->pMethods->xShmBarrier(real(f)); }
inline int fShmUnmap(sqlite3_file* f, int d) { return real(f)->pMethods->xShmUnmap(real(f), d); }
inline int fFetch(sqlite3_file* f, sqlite3_int64 o, int n, void** p) { return real(f)->pMethods->xFetch(real(f), o, n, p); }
inline int fUnfetch(sqlite3_file* f, sqlite3_int64 o, void* p) { return real(f)->pMethods->xUnfetch(real(f), o, p); }

inline const sqlite3_io_methods kMethods = {3,        fClose,      fRead,     fWrite,  fTruncate, fSync,   fSize,
                                            fLock,    fUnlock,     fReserved, fControl, fSector,  fDevice, fShmMap,
                                            fShmLock, fShmBarrier, fShmUnmap, fFetch,  fUnfetch};

inline int vOpen(sqlite3_vfs*, sqlite3_filename name, sqlite3_file* f, int flags, int* out) {
    auto* file = reinterpret_cast<File*>(f);
    file->base.pMethods = nullptr;
    file->wal = (flags & SQLITE_OPEN_WAL) != 0;
    file->real = static_cast<sqlite3_file*>(sqlite3_malloc(VfsCounts::real->szOsFile));
    if (!file->real) return SQLITE_NOMEM;
    std::memset(file->real, 0, static_cast<size_t>(VfsCounts::real->szOsFile));
    int rc = VfsCounts::real->xOpen(VfsCounts::real, name, file->real, flags, out);
    if (rc != SQLITE_OK) {
        sqlite3_free(file->real);
        return rc;
    }
    file->base.pMethods = &kMethods;
    return SQLITE_OK;
}

}  // namespace counting_vfs

// The default VFS while it lives; `name` tells tests' VFSes apart.
struct CountingVfs {
    sqlite3_vfs vfs{};
    explicit CountingVfs(const char* name = "trainer-counting") {
        VfsCounts::real = sqlite3_vfs_find(nullptr);
        vfs = *VfsCounts::real;
        vfs.zName = name;
        vfs.szOsFile = static_cast<int>(sizeof(counting_vfs::File));
        vfs.xOpen = counting_vfs::vOpen;
        vfs.pAppData = nullptr;
        sqlite3_vfs_register(&vfs, /*makeDflt=*/1);
    }
    ~CountingVfs() {
        sqlite3_vfs_unregister(&vfs);
        sqlite3_vfs_register(VfsCounts::real, 1);
    }
    CountingVfs(const CountingVfs&) = delete;
    CountingVfs& operator=(const CountingVfs&) = delete;
};

}  // namespace trainer::core::test
