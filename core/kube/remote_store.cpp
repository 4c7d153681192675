#include "core/kube/remote_store.hpp"

#include "core/json/io.hpp"

namespace trainer::core::kube {

namespace {

std::string strOf(const json::object& o, std::string_view k) {
    auto* v = o.if_contains(k);
    return v && v->is_string() ? std::string(v->as_string()) : std::string();
}

std::optional<json::object> parseObject(std::string_view text) { return parseJsonObject(text); }

// Percent-encoding of a query value (field managers, names are plain; this keeps them so).
std::string queryEscape(std::string_view s) {
    static constexpr char hex[] = "0123456789ABCDEF";
    std::string out;
    for (unsigned char c : s) {
        if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~') out += static_cast<char>(c);
        else out += {'%', hex[c >> 4], hex[c & 15]};
    }
    return out;
}

}  // namespace

StoreResult storeResultOf(const HttpResult& res) {
    StoreResult r;
    if (res.ok()) {
        if (auto o = parseObject(res.body)) r.object = std::move(*o);
        return r;
    }
    if (res.status == 0) {
        r.status = StoreStatus::Error;
        r.message = "API server unreachable: " + res.error;
        return r;
    }
    auto status = parseObject(res.body);
    std::string reason = status ? strOf(*status, "reason") : "";
    r.message = status && !strOf(*status, "message").empty() ? strOf(*status, "message")
                                                             : "HTTP " + std::to_string(res.status) + ": " + res.body.substr(0, 300);
    if (res.status == 404) r.status = StoreStatus::NotFound;
    else if (res.status == 409) r.status = reason == "AlreadyExists" ? StoreStatus::AlreadyExists : StoreStatus::Conflict;
    else if (res.status == 422 || res.status == 400) r.status = StoreStatus::Invalid;
    else r.status = StoreStatus::Error;
    return r;
}

RemoteStore::RemoteStore(Client& client, InformerCache& cache, std::vector<WatchedResource> resources)
    : client_(client), cache_(cache) {
    for (auto& r : resources) {
        informed_.insert({r.apiVersion, r.kind});
        resources_[{r.apiVersion, r.kind}] = std::move(r);
    }
}

bool RemoteStore::informed(const std::string& apiVersion, const std::string& kind) const {
    return informed_.count({apiVersion, kind}) > 0;
}

std::optional<WatchedResource> RemoteStore::resourceOf(const std::string& apiVersion, const std::string& kind,
                                                       std::string* failure) const {
    {
        std::lock_guard lock(mu_);
        if (auto it = resources_.find({apiVersion, kind}); it != resources_.end()) return it->second;
    }
    std::string error;
    auto found = discoverResources(client_, {{apiVersion, kind}}, error);
    if (found.empty()) {
        // discoverResources says "<apiVersion>: discovery failed: ..." when it could not ask, and
        // "... not served by the API server" when the answer lacks the kind.
        if (failure && error.find(": discovery failed: ") != std::string::npos) *failure = error;
        return std::nullopt;
    }
    std::lock_guard lock(mu_);
    resources_[{apiVersion, kind}] = found.front();
    return found.front();
}

std::string RemoteStore::objectPath(const ObjectKey& key) const {
    auto r = resourceOf(key.apiVersion, key.kind);
    if (!r) return {};
    return r->collectionPath(r->namespaced ? key.ns : "") + "/" + key.name;
}

ReadResult RemoteStore::get(const ObjectKey& key) const {
    if (informed(key.apiVersion, key.kind)) {
        auto cached = cache_.get(key);
        return cached ? ReadResult::of(std::move(*cached)) : ReadResult::absent();
    }
    std::string failure;
    auto r = resourceOf(key.apiVersion, key.kind, &failure);
    if (!r) return failure.empty() ? ReadResult::absent() : ReadResult::error(failure);
    auto res = client_.request("GET", r->collectionPath(r->namespaced ? key.ns : "") + "/" + key.name);
    if (res.status == 404) return ReadResult::absent();
    if (!res.ok()) return ReadResult::error(storeResultOf(res).message);
    auto o = parseObject(res.body);
    if (!o) return ReadResult::error("the API server answered GET " + key.display() + " with a body that is not a JSON object");
    return ReadResult::of(std::move(*o));
}

std::shared_ptr<const ReadResult> RemoteStore::share(const ObjectKey& key) const {
    if (!informed(key.apiVersion, key.kind)) return Store::share(key);
    if (auto cached = cache_.share(key)) return cached;
    return sharedAbsent();
}

ListResult RemoteStore::list(const std::string& apiVersion, const std::string& kind,
                             const std::optional<std::string>& ns) const {
    if (informed(apiVersion, kind)) return ListResult::of(cache_.list(apiVersion, kind, ns));
    std::string failure;
    auto r = resourceOf(apiVersion, kind, &failure);
    if (!r) return failure.empty() ? ListResult::of({}) : ListResult::failure(failure);
    auto res = client_.request("GET", r->collectionPath(ns.value_or("")));
    if (!res.ok()) return ListResult::failure(storeResultOf(res).message);
    std::vector<json::object> out;
    auto list = parseObject(res.body);
    if (!list || !list->contains("items") || !list->at("items").is_array())
        return ListResult::failure("the API server answered the list of " + apiVersion + " " + kind +
                                   " with a body that is not a list");
    for (auto const& item : list->at("items").as_array())
        if (item.is_object()) {
            json::object o = item.as_object();
            o["apiVersion"] = apiVersion;
            o["kind"] = kind;
            out.push_back(std::move(o));
        }
    return ListResult::of(std::move(out));
}

StoreResult RemoteStore::write(const char* method, const std::string& path, const json::object& body,
                               const char* contentType) {
    if (path.empty()) {
        StoreResult r;
        r.status = StoreStatus::Error;
        r.message = "the API server does not serve " + strOf(body, "apiVersion") + " " + strOf(body, "kind");
        return r;
    }
    RequestOptions opts;
    opts.contentType = contentType;
    auto r = storeResultOf(client_.request(method, path, json::serialize(body), opts));
    // What the server answered is newer than anything the cache holds: readers see their writes.
    if (r.ok() && informed(strOf(r.object, "apiVersion"), strOf(r.object, "kind"))) cache_.upsert(r.object);
    return r;
}

StoreResult RemoteStore::create(const json::object& obj) {
    auto key = keyOf(obj);
    auto r = resourceOf(key.apiVersion, key.kind);
    return write("POST", r ? r->collectionPath(r->namespaced ? key.ns : "") : "", obj, "application/json");
}

StoreResult RemoteStore::update(const json::object& obj) {
    return write("PUT", objectPath(keyOf(obj)), obj, "application/json");
}

StoreResult RemoteStore::updateStatus(const json::object& obj) {
    auto path = objectPath(keyOf(obj));
    return write("PUT", path.empty() ? path : path + "/status", obj, "application/json");
}

ApplyResult RemoteStore::apply(const json::object& obj, std::string_view fieldManager) {
    auto key = keyOf(obj);
    auto before = get(key);
    auto path = objectPath(key);
    json::object body = obj;
    if (auto* m = body.if_contains("metadata"); m && m->is_object()) {
        m->as_object().erase("resourceVersion");
        m->as_object().erase("managedFields");
    }
    auto r = write("PATCH", path.empty() ? path : path + "?fieldManager=" + queryEscape(fieldManager) + "&force=true",
                   body, "application/apply-patch+yaml");
    ApplyResult out;
    static_cast<StoreResult&>(out) = r;
    if (!r.ok()) return out;
    // What was there before only names the outcome; a failed read of it says "configured".
    if (before.notFound()) out.outcome = ApplyOutcome::Created;
    else if (before.found() && resourceVersionOf(before.object) == resourceVersionOf(r.object))
        out.outcome = ApplyOutcome::Unchanged;
    else out.outcome = ApplyOutcome::Configured;
    return out;
}

StoreResult RemoteStore::remove(const ObjectKey& key, const DeleteOptions& options) {
    static constexpr const char* kPolicies[] = {"Background", "Foreground", "Orphan"};
    json::object body{{"kind", "DeleteOptions"}, {"apiVersion", "v1"},
                      {"propagationPolicy", kPolicies[static_cast<int>(options.propagation)]}};
    if (!options.uid.empty() || !options.resourceVersion.empty()) {
        json::object pre;
        if (!options.uid.empty()) pre["uid"] = options.uid;
        if (!options.resourceVersion.empty()) pre["resourceVersion"] = options.resourceVersion;
        body["preconditions"] = std::move(pre);
    }
    auto last = get(key);
    auto r = storeResultOf(client_.request("DELETE", objectPath(key), json::serialize(body)));
    if (r.ok()) {
        // A Status (deleted at once) or the object (waiting for finalizers).
        bool pending = strOf(r.object, "kind") == key.kind && r.object.contains("metadata");
        r.pending = pending;
        if (!pending) {
            if (last.found()) r.object = last.object;
            if (informed(key.apiVersion, key.kind) && last.found()) cache_.erase(key, last.object);
        }
    }
    return r;
}

// The change feed and listAll are the informers' cache, which holds what it holds and cannot fail.
ReadValue<std::vector<Change>> RemoteStore::changesSince(int64_t revision, size_t limit) const {
    return ReadValue<std::vector<Change>>::of(cache_.changesSince(revision, limit));
}

ReadValue<int64_t> RemoteStore::revision() const { return ReadValue<int64_t>::of(cache_.revision()); }
ReadValue<int64_t> RemoteStore::compactedRevision() const { return ReadValue<int64_t>::of(cache_.compactedRevision()); }
ListResult RemoteStore::listAll() const { return ListResult::of(cache_.listAll()); }

}  // namespace trainer::core::kube
