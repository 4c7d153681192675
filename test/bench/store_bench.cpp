// Store benchmark: creates N objects, gets each, lists them, on SQLite (durable and not) and in
// memory; prints ops/s. Usage: store_bench [N] [directory for the database]
#include "core/store/memory_store.hpp"
#include "core/store/sqlite_store.hpp"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>

using namespace trainer::core;

namespace {

json::object object(int i) {
    return json::object{{"apiVersion", "v1"},
                        {"kind", "ConfigMap"},
                        {"metadata", {{"name", "cm-" + std::to_string(i)}, {"namespace", "bench"}}},
                        {"data", {{"payload", std::string(512, 'x')}}}};
}

template <class F>
void timed(const char* backend, const char* what, int n, F&& f) {
    auto start = std::chrono::steady_clock::now();
    int failures = f();
    double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::printf("%-22s %-8s %7d ops %9.3f s %12.0f ops/s%s\n", backend, what, n, secs, n / (secs > 0 ? secs : 1e-9),
                failures ? " (FAILURES)" : "");
}

void run(const char* backend, Store& store, int n) {
    timed(backend, "create", n, [&] {
        int bad = 0;
        for (int i = 0; i < n; ++i) bad += store.create(object(i)).ok() ? 0 : 1;
        return bad;
    });
    timed(backend, "get", n, [&] {
        int bad = 0;
        for (int i = 0; i < n; ++i) bad += store.get(ObjectKey{"v1", "ConfigMap", "bench", "cm-" + std::to_string(i)}).found() ? 0 : 1;
        return bad;
    });
    timed(backend, "list", n, [&] { return static_cast<int>(store.list("v1", "ConfigMap", std::string("bench")).value.size()) != n; });
    timed(backend, "feed", n, [&] { return static_cast<int>(store.changesSince(0, static_cast<size_t>(n)).value.size()) != n; });
}

}  // namespace

int main(int argc, char** argv) {
    int n = argc > 1 ? std::atoi(argv[1]) : 10000;
    std::filesystem::path dir = argc > 2 ? argv[2] : std::filesystem::temp_directory_path();
    for (bool durable : {false, true}) {
        auto path = dir / ("store_bench_" + std::to_string(::getpid()) + (durable ? "_full.db" : "_normal.db"));
        SqliteStoreOptions o;
        o.durable = durable;
        auto r = SqliteStore::open(path.string(), o);
        if (!r.store) {
            std::fprintf(stderr, "store_bench: %s\n", r.error.c_str());
            return 1;
        }
        run(durable ? "sqlite synchronous=FULL" : "sqlite synchronous=NORMAL", *r.store, durable ? std::min(n, 2000) : n);
        r.store.reset();
        for (auto suffix : {"", "-wal", "-shm"}) std::filesystem::remove(path.string() + suffix);
    }
    MemoryStore memory;
    run("memory", memory, n);
    return 0;
}
