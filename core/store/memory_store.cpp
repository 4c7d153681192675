#include "core/store/memory_store.hpp"

#include <algorithm>

namespace trainer::core {

namespace {

bool ownedBy(const json::object& o, const std::string& uid) {
    auto m = o.find("metadata");
    if (m == o.end() || !m->value().is_object()) return false;
    auto refs = m->value().as_object().find("ownerReferences");
    if (refs == m->value().as_object().end() || !refs->value().is_array()) return false;
    return std::any_of(refs->value().as_array().begin(), refs->value().as_array().end(), [&](const json::value& r) {
        auto const* ro = r.if_object();
        auto const* u = ro ? ro->if_contains("uid") : nullptr;
        return u && u->is_string() && u->as_string() == uid;
    });
}

bool hasUid(const json::object& o, const std::string& uid) {
    auto const* m = o.if_contains("metadata");
    auto const* u = (m && m->is_object()) ? m->as_object().if_contains("uid") : nullptr;
    return u && u->is_string() && u->as_string() == uid;
}

}  // namespace

// Writes staged over the committed maps until the transaction commits.
class MemoryTxn : public StoreTxn {
public:
    explicit MemoryTxn(MemoryStore& s) : s_(s), revision_(s.revision_) {}

    std::optional<json::object> read(const ObjectKey& key) override {
        if (auto it = staged_.find(key); it != staged_.end()) return it->second;
        auto it = s_.objects_.find(key);
        if (it == s_.objects_.end()) return std::nullopt;
        return it->second;
    }
    void put(const ObjectKey& key, const json::object& obj) override { staged_[key] = obj; }
    void erase(const ObjectKey& key) override { staged_[key] = std::nullopt; }
    std::vector<ObjectKey> dependents(const std::string& ownerUid) override {
        std::vector<ObjectKey> out;
        forEach([&](const ObjectKey& k, const json::object& o) {
            if (ownedBy(o, ownerUid)) out.push_back(k);
        });
        return out;
    }
    bool uidExists(const std::string& uid) override {
        bool found = false;
        forEach([&](const ObjectKey&, const json::object& o) { found = found || hasUid(o, uid); });
        return found;
    }
    int64_t revision() override { return revision_; }
    void record(int64_t revision, ChangeType type, const ObjectKey& key, const json::object& object) override {
        changes_.push_back(Change{revision, type, key, object});
        revision_ = revision;
    }

    void commit() {
        for (auto& [k, v] : staged_) {
            if (v)
                s_.objects_[k] = std::move(*v);
            else
                s_.objects_.erase(k);
        }
        for (auto& c : changes_) s_.changes_.push_back(std::move(c));
        s_.revision_ = revision_;
    }

private:
    template <class F>
    void forEach(F&& f) {
        for (auto const& [k, o] : s_.objects_)
            if (!staged_.contains(k)) f(k, o);
        for (auto const& [k, o] : staged_)
            if (o) f(k, *o);
    }

    MemoryStore& s_;
    std::map<ObjectKey, std::optional<json::object>> staged_;
    std::vector<Change> changes_;
    int64_t revision_;
};

MemoryStore::MemoryStore(StoreOptions options) : TxnStore(std::move(options)) {}

void MemoryStore::runWrite(const std::function<bool(StoreTxn&)>& body) {
    {
        std::lock_guard lock(mutex_);
        MemoryTxn txn(*this);
        if (!body(txn)) return;
        txn.commit();
    }
    committed_.notify();
}

ReadResult MemoryStore::get(const ObjectKey& key) const {
    std::lock_guard lock(mutex_);
    auto it = objects_.find(key);
    if (it == objects_.end()) return ReadResult::absent();
    return ReadResult::of(it->second);
}

ListResult MemoryStore::list(const std::string& apiVersion, const std::string& kind,
                             const std::optional<std::string>& ns) const {
    std::lock_guard lock(mutex_);
    std::vector<json::object> out;
    for (auto const& [k, o] : objects_)
        if (k.apiVersion == apiVersion && k.kind == kind && (!ns || k.ns == *ns)) out.push_back(o);
    return ListResult::of(std::move(out));
}

ListResult MemoryStore::listAll() const {
    std::lock_guard lock(mutex_);
    std::vector<json::object> out;
    for (auto const& [k, o] : objects_) out.push_back(o);
    return ListResult::of(std::move(out));
}

ReadValue<std::vector<Change>> MemoryStore::changesSince(int64_t revision, size_t limit) const {
    std::lock_guard lock(mutex_);
    auto it = std::upper_bound(changes_.begin(), changes_.end(), revision,
                               [](int64_t r, const Change& c) { return r < c.revision; });
    std::vector<Change> out;
    for (; it != changes_.end() && out.size() < limit; ++it) out.push_back(*it);
    return ReadValue<std::vector<Change>>::of(std::move(out));
}

ReadValue<int64_t> MemoryStore::revision() const {
    std::lock_guard lock(mutex_);
    return ReadValue<int64_t>::of(revision_);
}

}  // namespace trainer::core
