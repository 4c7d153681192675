// The objects the benchmarks of issue 14 work on: two ClusterTrainingRuntimes from examples/ (torch
// and an MPI one) and generated TrainJobs of about 380 bytes of JSON each, plus an embedded store
// seeded with them through the store API (no HTTP: 100,000 TrainJobs are written in seconds).
#pragma once

#include "bench_support.hpp"

#include "core/api/schema.hpp"
#include "core/json/io.hpp"
#include "core/store/sqlite_store.hpp"

#include <boost/json.hpp>

#include <memory>

namespace trainer::bench {

namespace json = boost::json;

struct Runtime {
    std::string id;       // torch, mpi
    std::string file;     // under examples/
    std::string name;     // the ClusterTrainingRuntime's name
    std::string trainer;  // the TrainJobs' spec.trainer, JSON
};

inline const std::vector<Runtime>& runtimes() {
    static const std::vector<Runtime> all = {
        {"torch", "10-runtime-torch-distributed.yaml", "torch-distributed",
         R"({"numNodes":2,"command":["torchrun","train.py"],"args":["--epochs","3"],"env":[{"name":"LR","value":"0.001"}],)"
         R"("resourcesPerNode":{"requests":{"cpu":"2","memory":"4Gi"}}})"},
        {"mpi", "11-runtime-deepspeed-distributed.yaml", "deepspeed-distributed",
         R"({"numNodes":2,"numProcPerNode":2,"args":["deepspeed","--hostfile","/etc/mpi/hostfile","train.py"],)"
         R"("env":[{"name":"LR","value":"0.001"}],"resourcesPerNode":{"requests":{"cpu":"2","memory":"4Gi"}}})"},
    };
    return all;
}

inline const Runtime& runtimeById(const std::string& id) {
    for (auto const& rt : runtimes())
        if (rt.id == id) return rt;
    fail("no runtime " + id);
}

// The runtime object of examples/<file>.
inline json::object runtimeObject(const Runtime& rt) {
    std::vector<json::value> docs;
    std::string error;
    const std::string path = std::string(TRAINER_SOURCE_DIR) + "/examples/" + rt.file;
    if (!core::parseYaml(readFile(path), docs, error) || docs.size() != 1 || !docs.front().is_object())
        fail(path + ": " + error);
    return docs.front().as_object();
}

// TrainJob number `i` (bench-000042 in namespace default) of runtime `rt`. Its spec differs from
// every other's (its last argument is --run=i), as users' TrainJobs do: what is remembered by a member's
// text (sdk/include/trainer/info_members.hpp) serves no TrainJob from the one before it.
inline json::object trainJob(const Runtime& rt, long i) {
    char name[32];
    std::snprintf(name, sizeof name, "bench-%06ld", i);
    json::value trainer = json::parse(rt.trainer);
    trainer.as_object()["args"].as_array().push_back(json::string("--run=" + std::to_string(i)));
    return json::object{{"apiVersion", "trainer.kubeflow.org/v1alpha1"},
                        {"kind", "TrainJob"},
                        {"metadata", {{"name", name}, {"namespace", "default"}, {"labels", {{"team", "bench"}}}}},
                        {"spec", {{"runtimeRef", {{"name", rt.name}}}, {"trainer", std::move(trainer)}}}};
}

// An embedded store at `path` (synchronous=NORMAL unless `durable`: seeding is set-up, not what is
// measured).
inline std::unique_ptr<core::SqliteStore> openStore(const std::string& path, bool durable = false) {
    core::SqliteStoreOptions o;
    o.durable = durable;
    auto r = core::SqliteStore::open(path, o);
    if (!r.store) fail(r.error);
    return std::move(r.store);
}

// Creates `obj` as the API server stores it after admission's defaults.
inline void create(core::Store& store, json::object obj) {
    core::applyDefaults(obj);
    auto r = store.create(obj);
    if (!r.ok()) fail("store create: " + r.message);
}

// The runtime and TrainJobs [first, first + n) in `store`.
inline void seed(core::Store& store, const Runtime& rt, long first, long n, bool withRuntime) {
    if (withRuntime) create(store, runtimeObject(rt));
    for (long i = first; i < first + n; ++i) create(store, trainJob(rt, i));
}

}  // namespace trainer::bench
