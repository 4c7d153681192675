// SqliteStore::rederivableWriter (issue 14 P4): the controller's writes land in the same store
// and change feed, without a sync of the file each, and the store's own writes stay durable
// (a sync per commit). The syncs are counted by an SQLite VFS that forwards every call to the
// default one and counts xSync: the real SQLite on a real file.
#include <boost/test/unit_test.hpp>

#include "store_test_util.hpp"

#include <sqlite3.h>

#include <atomic>
#include <cstring>

using namespace trainer::core;
using namespace trainer::core::test;

namespace {

std::atomic<int> syncs{0};
sqlite3_vfs* realVfs = nullptr;

struct CountingFile {
    sqlite3_file base;  // first: SQLite sees a sqlite3_file
    sqlite3_file* real;
};
sqlite3_file* real(sqlite3_file* f) { return reinterpret_cast<CountingFile*>(f)->real; }

int fClose(sqlite3_file* f) {
    int rc = real(f)->pMethods ? real(f)->pMethods->xClose(real(f)) : SQLITE_OK;
    sqlite3_free(real(f));
    return rc;
}
int fRead(sqlite3_file* f, void* b, int n, sqlite3_int64 o) { return real(f)->pMethods->xRead(real(f), b, n, o); }
int fWrite(sqlite3_file* f, const void* b, int n, sqlite3_int64 o) { return real(f)->pMethods->xWrite(real(f), b, n, o); }
int fTruncate(sqlite3_file* f, sqlite3_int64 s) { return real(f)->pMethods->xTruncate(real(f), s); }
int fSync(sqlite3_file* f, int flags) {
    ++syncs;
    return real(f)->pMethods->xSync(real(f), flags);
}
int fSize(sqlite3_file* f, sqlite3_int64* s) { return real(f)->pMethods->xFileSize(real(f), s); }
int fLock(sqlite3_file* f, int l) { return real(f)->pMethods->xLock(real(f), l); }
int fUnlock(sqlite3_file* f, int l) { return real(f)->pMethods->xUnlock(real(f), l); }
int fReserved(sqlite3_file* f, int* r) { return real(f)->pMethods->xCheckReservedLock(real(f), r); }
int fControl(sqlite3_file* f, int op, void* a) { return real(f)->pMethods->xFileControl(real(f), op, a); }
int fSector(sqlite3_file* f) { return real(f)->pMethods->xSectorSize(real(f)); }
int fDevice(sqlite3_file* f) { return real(f)->pMethods->xDeviceCharacteristics(real(f)); }
int fShmMap(sqlite3_file* f, int i, int s, int e, void volatile** p) { return real(f)->pMethods->xShmMap(real(f), i, s, e, p); }
int fShmLock(sqlite3_file* f, int o, int n, int fl) { return real(f)->pMethods->xShmLock(real(f), o, n, fl); }
void fShmBarrier(sqlite3_file* f) { real(f)->pMethods->xShmBarrier(real(f)); }
int fShmUnmap(sqlite3_file* f, int d) { return real(f)->pMethods->xShmUnmap(real(f), d); }
int fFetch(sqlite3_file* f, sqlite3_int64 o, int n, void** p) { return real(f)->pMethods->xFetch(real(f), o, n, p); }
int fUnfetch(sqlite3_file* f, sqlite3_int64 o, void* p) { return real(f)->pMethods->xUnfetch(real(f), o, p); }

const sqlite3_io_methods kMethods = {3,       fClose,   fRead,    fWrite,   fTruncate,  fSync,      fSize,
                                     fLock,   fUnlock,  fReserved, fControl, fSector,   fDevice,    fShmMap,
                                     fShmLock, fShmBarrier, fShmUnmap, fFetch, fUnfetch};

int vOpen(sqlite3_vfs*, sqlite3_filename name, sqlite3_file* f, int flags, int* out) {
    auto* file = reinterpret_cast<CountingFile*>(f);
    file->base.pMethods = nullptr;
    file->real = static_cast<sqlite3_file*>(sqlite3_malloc(realVfs->szOsFile));
    if (!file->real) return SQLITE_NOMEM;
    std::memset(file->real, 0, static_cast<size_t>(realVfs->szOsFile));
    int rc = realVfs->xOpen(realVfs, name, file->real, flags, out);
    if (rc != SQLITE_OK) {
        sqlite3_free(file->real);
        return rc;
    }
    file->base.pMethods = &kMethods;
    return SQLITE_OK;
}

// The default VFS with counted syncs, made the default for the stores these tests open.
struct CountingVfs {
    sqlite3_vfs vfs{};
    CountingVfs() {
        realVfs = sqlite3_vfs_find(nullptr);
        vfs = *realVfs;
        vfs.zName = "trainer-counting";
        vfs.szOsFile = static_cast<int>(sizeof(CountingFile));
        vfs.xOpen = vOpen;
        vfs.pAppData = nullptr;
        sqlite3_vfs_register(&vfs, /*makeDflt=*/1);
    }
    ~CountingVfs() {
        sqlite3_vfs_unregister(&vfs);
        sqlite3_vfs_register(realVfs, 1);
    }
};

}  // namespace

BOOST_AUTO_TEST_CASE(the_controllers_writes_land_in_the_store_without_a_sync_each) {
    CountingVfs counting;
    TempDir dir;
    auto opened = SqliteStore::open(dir.file("s.db"), {});
    BOOST_REQUIRE_MESSAGE(opened.store, opened.error);
    SqliteStore& store = *opened.store;
    auto writer = store.rederivableWriter();

    const int before = syncs.load();
    for (int i = 0; i < 20; ++i) BOOST_REQUIRE(store.create(configMap("durable-" + std::to_string(i))).status == StoreStatus::Ok);
    const int durableSyncs = syncs.load() - before;
    BOOST_TEST(durableSyncs >= 20);  // one per commit at least

    const int64_t revision = store.revision().value;
    const int relaxedStart = syncs.load();
    for (int i = 0; i < 20; ++i)
        BOOST_REQUIRE(writer->create(configMap("rederivable-" + std::to_string(i))).status == StoreStatus::Ok);
    BOOST_TEST(syncs.load() - relaxedStart < 5);  // none per commit (a checkpoint may sync)

    // The same store: visible to its readers and in its change feed, in order.
    auto got = store.get(ObjectKey{"v1", "ConfigMap", "default", "rederivable-7"});
    BOOST_TEST(got.found());
    auto feed = store.changesSince(revision, 100);
    BOOST_REQUIRE(feed.ok());
    BOOST_TEST(feed.value.size() == 20u);
    // A failed write through the view is an error and changes nothing.
    BOOST_TEST(writer->create(configMap("rederivable-3")).status == StoreStatus::AlreadyExists);
    BOOST_TEST(store.revision().value == revision + 20);

    // The store's own writes are durable again after the view's.
    const int after = syncs.load();
    BOOST_REQUIRE(store.create(configMap("durable-after")).status == StoreStatus::Ok);
    BOOST_TEST(syncs.load() - after >= 1);
}
