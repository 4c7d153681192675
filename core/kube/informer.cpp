#include "core/kube/informer.hpp"

#include "core/json/io.hpp"
#include "core/log/log.hpp"

#include <charconv>

namespace trainer::core::kube {

namespace {

std::string strOf(const json::object& o, std::string_view k) {
    auto* v = o.if_contains(k);
    return v && v->is_string() ? std::string(v->as_string()) : std::string();
}

// Resource versions are opaque to clients; the servers here (and etcd) number them, so newer
// is larger when both are numbers, and merely different otherwise.
bool newer(const std::string& candidate, const std::string& current) {
    int64_t a = 0, b = 0;
    auto [pa, ea] = std::from_chars(candidate.data(), candidate.data() + candidate.size(), a);
    auto [pb, eb] = std::from_chars(current.data(), current.data() + current.size(), b);
    if (ea == std::errc() && eb == std::errc()) return a > b;
    return candidate != current;
}

std::optional<json::value> parseJson(std::string_view text) {
    auto o = parseJsonObject(text);
    if (!o) return std::nullopt;
    return json::value(std::move(*o));
}

// A Status body's code (410 for Expired), or 0.
int64_t statusCode(const json::value& v) {
    auto* o = v.if_object();
    auto* c = o ? o->if_contains("code") : nullptr;
    return c && c->is_int64() ? c->as_int64() : 0;
}

}  // namespace

std::string WatchedResource::collectionPath(const std::string& inNamespace) const {
    auto slash = apiVersion.find('/');
    std::string base = slash == std::string::npos ? "/api/" + apiVersion : "/apis/" + apiVersion;
    if (namespaced && !inNamespace.empty()) base += "/namespaces/" + inNamespace;
    return base + "/" + plural;
}

std::string WatchedResource::groupResource() const {
    auto slash = apiVersion.find('/');
    return slash == std::string::npos ? plural : plural + "." + apiVersion.substr(0, slash);
}

size_t InformerCache::bytesOf(const std::string& apiVersion, const std::string& kind) const {
    std::lock_guard lock(mu_);
    size_t total = 0;
    for (auto it = objects_.lower_bound(ObjectKey{apiVersion, kind, "", ""});
         it != objects_.end() && it->first.apiVersion == apiVersion && it->first.kind == kind; ++it)
        total += it->second.bytes;
    return total;
}

InformerCache::InformerCache(size_t keepChanges) : keep_(keepChanges ? keepChanges : 1) {}

std::optional<json::object> InformerCache::get(const ObjectKey& key) const {
    std::lock_guard lock(mu_);
    auto it = objects_.find(key);
    if (it == objects_.end()) return std::nullopt;
    return it->second.object();
}

std::shared_ptr<const ReadResult> InformerCache::share(const ObjectKey& key) const {
    std::lock_guard lock(mu_);
    auto it = objects_.find(key);
    return it == objects_.end() ? nullptr : it->second.read;
}

std::vector<json::object> InformerCache::list(const std::string& apiVersion, const std::string& kind,
                                              const std::optional<std::string>& ns) const {
    std::lock_guard lock(mu_);
    std::vector<json::object> out;
    auto it = objects_.lower_bound(ObjectKey{apiVersion, kind, ns.value_or(""), ""});
    for (; it != objects_.end(); ++it) {
        auto const& k = it->first;
        if (k.apiVersion != apiVersion || k.kind != kind || (ns && k.ns != *ns)) break;
        out.push_back(it->second.object());
    }
    return out;
}

std::vector<json::object> InformerCache::listAll() const {
    std::lock_guard lock(mu_);
    std::vector<json::object> out;
    for (auto const& [k, v] : objects_) out.push_back(v.object());
    return out;
}

std::vector<Change> InformerCache::changesSince(int64_t revision, size_t limit) const {
    std::lock_guard lock(mu_);
    std::vector<Change> out;
    for (auto const& c : changes_) {
        if (c.revision <= revision) continue;
        if (out.size() >= limit) break;
        out.push_back(c);
    }
    return out;
}

int64_t InformerCache::revision() const {
    std::lock_guard lock(mu_);
    return revision_;
}

int64_t InformerCache::compactedRevision() const {
    std::lock_guard lock(mu_);
    return compacted_;
}

void InformerCache::record(ChangeType type, const ObjectKey& key, const json::object& obj) {
    changes_.push_back(Change{++revision_, type, key, obj});
    while (changes_.size() > keep_) {
        compacted_ = changes_.front().revision;
        changes_.pop_front();
    }
    changed_.notify_all();
}

void InformerCache::upsert(const json::object& obj) {
    auto key = keyOf(obj);
    if (key.kind.empty() || key.name.empty()) return;
    std::lock_guard lock(mu_);
    auto it = objects_.find(key);
    if (it != objects_.end() && !newer(resourceVersionOf(obj), resourceVersionOf(it->second.object()))) return;
    bool added = it == objects_.end();
    objects_[key] = Cached{std::make_shared<const ReadResult>(ReadResult::of(obj)), json::serialize(obj).size()};
    record(added ? ChangeType::Added : ChangeType::Modified, key, obj);
}

void InformerCache::erase(const ObjectKey& key, const json::object& last) {
    std::lock_guard lock(mu_);
    auto it = objects_.find(key);
    if (it == objects_.end()) return;
    objects_.erase(it);
    record(ChangeType::Deleted, key, last);
}

void InformerCache::replace(const WatchedResource& resource, const std::vector<json::object>& objects) {
    std::set<ObjectKey> keep;
    for (auto const& o : objects) keep.insert(keyOf(o));
    std::vector<std::pair<ObjectKey, json::object>> gone;
    {
        std::lock_guard lock(mu_);
        for (auto const& [k, v] : objects_)
            if (k.apiVersion == resource.apiVersion && k.kind == resource.kind &&
                (resource.ns.empty() || k.ns == resource.ns) && !keep.count(k))
                gone.emplace_back(k, v.object());
    }
    for (auto const& [k, o] : gone) erase(k, o);
    for (auto const& o : objects) upsert(o);
}

std::map<std::string, size_t> InformerCache::bytesByKind() const {
    std::lock_guard lock(mu_);
    std::map<std::string, size_t> out;
    for (auto const& [k, v] : objects_) out[k.kind] += v.bytes;
    return out;
}

void InformerCache::waitForChange(int64_t revision, std::chrono::milliseconds timeout) const {
    std::unique_lock lock(mu_);
    changed_.wait_for(lock, timeout, [&] { return revision_ > revision; });
}

struct Informers::State {
    std::string resourceVersion;
    bool needList = true;
    int relists = 0;
    std::chrono::milliseconds backoff{0};
};

Informers::Informers(Client& client, InformerCache& cache, std::vector<WatchedResource> resources, InformerOptions options)
    : client_(client), cache_(cache), resources_(std::move(resources)), options_(options) {
    for (size_t i = 0; i < resources_.size(); ++i) states_.push_back(std::make_unique<State>());
}

Informers::~Informers() { stop(); }

std::string Informers::start() {
    for (size_t i = 0; i < resources_.size(); ++i) {
        std::string error;
        if (!relist(i, error)) return resources_[i].apiVersion + " " + resources_[i].kind + ": " + error;
    }
    for (size_t i = 0; i < resources_.size(); ++i) threads_.emplace_back([this, i] { run(i); });
    return {};
}

void Informers::stop() {
    stop_ = true;
    wake_.notify_all();
    for (auto& t : threads_)
        if (t.joinable()) t.join();
    threads_.clear();
}

std::vector<std::pair<WatchedResource, int>> Informers::relists() const {
    std::lock_guard lock(mu_);
    std::vector<std::pair<WatchedResource, int>> out;
    for (size_t i = 0; i < resources_.size(); ++i) out.emplace_back(resources_[i], states_[i]->relists);
    return out;
}

bool Informers::relist(size_t index, std::string& error) {
    auto const& r = resources_[index];
    std::vector<json::object> items;
    std::string cont, rv;
    do {
        std::string path = r.collectionPath(r.ns) + "?limit=" + std::to_string(options_.pageSize);
        if (!cont.empty()) path += "&continue=" + cont;
        auto res = client_.request("GET", path);
        if (!res.ok()) {
            error = res.status ? "list: HTTP " + std::to_string(res.status) + ": " + res.body.substr(0, 300) : res.error;
            return false;
        }
        auto v = parseJson(res.body);
        if (!v || !v->is_object() || !v->as_object().contains("items")) {
            error = "list: not a list: " + res.body.substr(0, 200);
            return false;
        }
        auto const& list = v->as_object();
        auto const& meta = list.contains("metadata") && list.at("metadata").is_object() ? list.at("metadata").as_object()
                                                                                        : json::object{};
        rv = strOf(meta, "resourceVersion");
        cont = strOf(meta, "continue");
        if (list.at("items").is_array())
            for (auto const& item : list.at("items").as_array()) {
                if (!item.is_object()) continue;
                json::object o = item.as_object();
                o["apiVersion"] = r.apiVersion;  // list items of built-in kinds carry no type
                o["kind"] = r.kind;
                items.push_back(std::move(o));
            }
    } while (!cont.empty() && !stop_);
    cache_.replace(r, items);
    std::lock_guard lock(mu_);
    auto& s = *states_[index];
    s.resourceVersion = rv;
    s.needList = false;
    ++s.relists;
    return true;
}

// One watch request; false when it failed (the caller backs off).
bool Informers::watch(size_t index) {
    auto const& r = resources_[index];
    std::string rv;
    {
        std::lock_guard lock(mu_);
        rv = states_[index]->resourceVersion;
    }
    std::string path = r.collectionPath(r.ns) + "?watch=true&allowWatchBookmarks=true&resourceVersion=" + rv +
                       "&timeoutSeconds=" + std::to_string(options_.watchTimeoutSeconds);
    bool expired = false, sawEvent = false;
    auto res = client_.stream(
        path,
        [&](std::string_view line) {
            auto v = parseJson(line);
            if (!v || !v->is_object()) return true;
            auto const& ev = v->as_object();
            auto type = strOf(ev, "type");
            auto* obj = ev.if_contains("object");
            if (!obj || !obj->is_object()) return true;
            if (type == "ERROR") {
                expired = statusCode(*obj) == 410;
                return false;
            }
            auto const& o = obj->as_object();
            if (type == "ADDED" || type == "MODIFIED") cache_.upsert(o);
            else if (type == "DELETED") cache_.erase(keyOf(o), o);
            sawEvent = true;
            std::lock_guard lock(mu_);
            if (auto v2 = resourceVersionOf(o); !v2.empty()) states_[index]->resourceVersion = v2;
            return true;
        },
        stop_);
    std::lock_guard lock(mu_);
    auto& s = *states_[index];
    if (expired || res.status == 410) {
        s.needList = true;
        return true;
    }
    if (res.status == 0 || !res.ok()) return sawEvent;
    return true;
}

void Informers::run(size_t index) {
    log::Logger logger("informer", {{"kind", resources_[index].kind}});
    while (!stop_) {
        bool needList;
        {
            std::lock_guard lock(mu_);
            needList = states_[index]->needList;
        }
        bool ok = true;
        if (needList) {
            std::string error;
            ok = relist(index, error);
            if (ok) logger.info("Relisted", {{"resourceVersion", states_[index]->resourceVersion}});
            else logger.error("List failed", {{"error", error}});
        } else {
            ok = watch(index);
        }
        std::unique_lock lock(mu_);
        auto& s = *states_[index];
        if (ok) {
            s.backoff = std::chrono::milliseconds(0);
            continue;
        }
        s.backoff = s.backoff.count() ? std::min(s.backoff * 2, options_.maxBackoff) : options_.minBackoff;
        logger.debug("Watch failed; backing off", {{"backoffMs", static_cast<int64_t>(s.backoff.count())}});
        wake_.wait_for(lock, s.backoff, [&] { return stop_.load(); });
    }
}

std::vector<WatchedResource> discoverResources(Client& client,
                                               const std::vector<std::pair<std::string, std::string>>& kinds,
                                               std::string& error) {
    std::vector<WatchedResource> out;
    std::map<std::string, json::array> lists;
    for (auto const& [apiVersion, kind] : kinds) {
        if (!lists.count(apiVersion)) {
            std::string path = apiVersion.find('/') == std::string::npos ? "/api/" + apiVersion : "/apis/" + apiVersion;
            auto res = client.request("GET", path);
            auto v = res.ok() ? parseJson(res.body) : std::nullopt;
            auto* o = v ? v->if_object() : nullptr;
            auto* rs = o ? o->if_contains("resources") : nullptr;
            lists[apiVersion] = rs && rs->is_array() ? rs->as_array() : json::array{};
            if (!res.ok() && res.status != 404) {
                error += (error.empty() ? "" : "; ") + apiVersion + ": discovery failed: " +
                         (res.status ? "HTTP " + std::to_string(res.status) : res.error);
                continue;
            }
        }
        bool found = false;
        for (auto const& r : lists[apiVersion]) {
            auto const* ro = r.if_object();
            if (!ro || strOf(*ro, "kind") != kind || strOf(*ro, "name").find('/') != std::string::npos) continue;
            auto* ns = ro->if_contains("namespaced");
            out.push_back(WatchedResource{apiVersion, kind, strOf(*ro, "name"), ns && ns->is_bool() && ns->as_bool(), ""});
            found = true;
            break;
        }
        if (!found) error += (error.empty() ? "" : "; ") + apiVersion + " " + kind + ": not served by the API server";
    }
    return out;
}

}  // namespace trainer::core::kube
