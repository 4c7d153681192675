// Informers: for each watched kind, list then watch from the listed resourceVersion (with
// bookmarks), relist on 410 Gone, reconnect with backoff when a watch drops, and keep the objects
// in a local cache. Every change the cache sees is appended to one change feed (local revisions),
// which is what the controller's work queue is fed from (core/controller/manager.cpp polls it
// through the Store seam).
#pragma once

#include "core/kube/client.hpp"
#include "core/store/store.hpp"

#include <condition_variable>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

namespace trainer::core::kube {

// One kind to watch, resolved by discovery: its REST path pieces.
struct WatchedResource {
    std::string apiVersion;  // "v1", "trainer.kubeflow.org/v1alpha1"
    std::string kind;
    std::string plural;
    bool namespaced = true;
    std::string ns;  // watch only this namespace ("" = all)

    // "/api/v1/namespaces/<ns>/configmaps" or "/apis/<g>/<v>/<plural>".
    std::string collectionPath(const std::string& inNamespace) const;
    // "configmaps" or "podgroups.scheduling.x-k8s.io", as metrics and messages name it.
    std::string groupResource() const;
};

// The cache and change feed shared by every informer. Thread-safe.
class InformerCache {
public:
    explicit InformerCache(size_t keepChanges = 100000);

    std::optional<json::object> get(const ObjectKey& key) const;
    // The object as the cache holds it, shared and immutable (an upsert replaces it, and what was
    // handed out stays with its holders); null when the cache does not hold the key. What
    // ClusterReader::share answers from the cache: admission reads a TrainJob's runtime this way
    // on every review, and a copy cost as much as the rest of the read.
    std::shared_ptr<const ReadResult> share(const ObjectKey& key) const;
    std::vector<json::object> list(const std::string& apiVersion, const std::string& kind,
                                   const std::optional<std::string>& ns) const;
    std::vector<json::object> listAll() const;
    std::vector<Change> changesSince(int64_t revision, size_t limit) const;
    int64_t revision() const;
    int64_t compactedRevision() const;

    // An object as the server now has it (from a watch event, a list or a write's answer);
    // ignored when the cache already holds a newer resourceVersion of it.
    void upsert(const json::object& obj);
    void erase(const ObjectKey& key, const json::object& last);
    // A relist: objects of (apiVersion, kind[, ns]) not in `objects` are deleted, the rest upserted.
    void replace(const WatchedResource& resource, const std::vector<json::object>& objects);

    // Bytes of JSON held per kind ("ConfigMap" -> bytes), for /metrics.
    std::map<std::string, size_t> bytesByKind() const;
    // Bytes of JSON held for one kind (0 when none).
    size_t bytesOf(const std::string& apiVersion, const std::string& kind) const;
    // Blocks until the feed passes `revision` or `timeout` passes.
    void waitForChange(int64_t revision, std::chrono::milliseconds timeout) const;

private:
    void record(ChangeType type, const ObjectKey& key, const json::object& obj);
    mutable std::mutex mu_;
    mutable std::condition_variable changed_;
    struct Cached {
        std::shared_ptr<const ReadResult> read;  // Found, with the object
        size_t bytes = 0;                        // its JSON size
        const json::object& object() const { return read->object; }
    };
    std::map<ObjectKey, Cached> objects_;
    std::deque<Change> changes_;
    size_t keep_;
    int64_t revision_ = 0;
    int64_t compacted_ = 0;
};

struct InformerOptions {
    std::chrono::milliseconds minBackoff{200};
    std::chrono::milliseconds maxBackoff{30000};
    int watchTimeoutSeconds = 300;  // each watch request; then re-watched from the last version
    size_t pageSize = 500;
};

// Runs one thread per resource. start() lists each resource once synchronously (so the cache is
// complete before the controllers start) and returns an error message when a first list fails.
class Informers {
public:
    Informers(Client& client, InformerCache& cache, std::vector<WatchedResource> resources, InformerOptions options = {});
    ~Informers();
    std::string start();
    void stop();
    // Lists made so far (start-up and after 410 Gone), per informed resource, in order.
    std::vector<std::pair<WatchedResource, int>> relists() const;

private:
    struct State;
    void run(size_t index);
    bool relist(size_t index, std::string& error);
    bool watch(size_t index);

    Client& client_;
    InformerCache& cache_;
    std::vector<WatchedResource> resources_;
    InformerOptions options_;
    std::vector<std::unique_ptr<State>> states_;
    std::vector<std::thread> threads_;
    std::atomic<bool> stop_{false};
    mutable std::mutex mu_;
    std::condition_variable wake_;
};

// Resolves kinds to resources through discovery (GET /api/v1, /apis/<group>/<version>).
// Unknown kinds are reported in `error` ("example.com/v1 Widget: not served by the API server").
std::vector<WatchedResource> discoverResources(Client& client,
                                               const std::vector<std::pair<std::string, std::string>>& kinds,
                                               std::string& error);

}  // namespace trainer::core::kube
