// The Store seam over a Kubernetes API server (cluster mode): reads from the informers' cache
// (kinds nobody informs on are read from the server), writes as upstream's controller writes
// them — create (POST), update (PUT), status through the `status` subresource, children by
// server-side apply (field manager given, force), delete with propagation — and the change feed
// is the informers'. The controller, the pipeline and the plugins see the same seam as on the
// embedded store.
#pragma once

#include "core/kube/client.hpp"
#include "core/kube/informer.hpp"
#include "core/store/store.hpp"

#include <map>
#include <mutex>

namespace trainer::core::kube {

class RemoteStore : public Store {
public:
    // `resources` are the kinds informed on (the cache answers reads of them).
    RemoteStore(Client& client, InformerCache& cache, std::vector<WatchedResource> resources);

    // Informed kinds are read from the cache; others from the server, where a 404 or a kind the
    // server does not serve is NotFound and any other failure (unreachable, 5xx, 403, an answer
    // that does not parse, discovery failing) is Error.
    ReadResult get(const ObjectKey& key) const override;
    // An informed kind's object as the cache holds it, not copied (InformerCache::share); others
    // as get() reads them.
    std::shared_ptr<const ReadResult> share(const ObjectKey& key) const override;
    ListResult list(const std::string& apiVersion, const std::string& kind,
                    const std::optional<std::string>& ns = std::nullopt) const override;
    StoreResult create(const json::object& obj) override;
    StoreResult update(const json::object& obj) override;
    StoreResult updateStatus(const json::object& obj) override;
    ApplyResult apply(const json::object& obj, std::string_view fieldManager) override;
    using Store::remove;
    StoreResult remove(const ObjectKey& key, const DeleteOptions& options) override;
    ReadValue<std::vector<Change>> changesSince(int64_t revision, size_t limit) const override;
    ReadValue<int64_t> revision() const override;
    ReadValue<int64_t> compactedRevision() const override;
    ListResult listAll() const override;

    // The path of an object ("/apis/<g>/<v>/namespaces/<ns>/<plural>/<name>"); kinds not informed
    // on are resolved by discovery once and remembered.
    std::string objectPath(const ObjectKey& key) const;

private:
    // The resource serving (apiVersion, kind); nullopt when the server does not serve it, or when
    // discovery failed, which then sets `failure`.
    std::optional<WatchedResource> resourceOf(const std::string& apiVersion, const std::string& kind,
                                              std::string* failure = nullptr) const;
    bool informed(const std::string& apiVersion, const std::string& kind) const;
    StoreResult write(const char* method, const std::string& path, const json::object& body, const char* contentType);

    Client& client_;
    InformerCache& cache_;
    mutable std::mutex mu_;
    mutable std::map<std::pair<std::string, std::string>, WatchedResource> resources_;
    std::set<std::pair<std::string, std::string>> informed_;
};

// A Status answer as a store result: NotFound, AlreadyExists, Conflict, Invalid, or Error.
StoreResult storeResultOf(const HttpResult& res);

}  // namespace trainer::core::kube
