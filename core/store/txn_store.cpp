#include "core/store/txn_store.hpp"

#include "core/store/immutable_fields.hpp"

#include <algorithm>
#include <exception>
#include <set>

namespace trainer::core {

namespace {

// Metadata the server owns: never taken from a client's object, ignored when comparing content.
constexpr std::string_view kServerMetadata[] = {"uid", "resourceVersion", "generation", "creationTimestamp",
                                                "managedFields", "selfLink", "deletionTimestamp"};
// Metadata apply takes from the applied object when present.
constexpr std::string_view kAppliedMetadata[] = {"labels", "annotations", "ownerReferences", "finalizers"};

std::string strOf(const json::object& o, std::string_view k) {
    auto it = o.find(k);
    return (it != o.end() && it->value().is_string()) ? std::string(it->value().as_string()) : std::string();
}

const json::object& metaOf(const json::object& o) {
    static const json::object empty;
    auto it = o.find("metadata");
    return (it != o.end() && it->value().is_object()) ? it->value().as_object() : empty;
}

json::object& metaOf(json::object& o) {
    auto& v = o["metadata"];
    if (!v.is_object()) v = json::object{};
    return v.as_object();
}

int64_t generationOf(const json::object& o) {
    auto const& m = metaOf(o);
    auto it = m.find("generation");
    if (it == m.end()) return 0;
    if (it->value().is_int64()) return it->value().as_int64();
    if (it->value().is_uint64()) return static_cast<int64_t>(it->value().as_uint64());
    return 0;
}

// Everything outside metadata and status: what a generation counts.
json::object specOf(json::object o) {
    o.erase("metadata");
    o.erase("status");
    return o;
}

// The object without server-set metadata (and without status when it is a subresource).
json::object contentOf(json::object o, bool statusSubresource) {
    auto& m = metaOf(o);
    for (auto k : kServerMetadata) m.erase(k);
    if (statusSubresource) o.erase("status");
    return o;
}

void copyMember(json::object& to, const json::object& from, std::string_view k) {
    if (auto it = from.find(k); it != from.end())
        to[k] = it->value();
    else
        to.erase(k);
}

// Carries the server-owned metadata of `from` over to `to`.
void keepServerMetadata(json::object& to, const json::object& from) {
    auto& tm = metaOf(to);
    auto const& fm = metaOf(from);
    for (auto k : {"uid", "creationTimestamp", "generation", "deletionTimestamp", "resourceVersion"}) copyMember(tm, fm, k);
    if (!tm.contains("managedFields") && fm.contains("managedFields")) tm["managedFields"] = fm.at("managedFields");
}

std::vector<std::string> ownerUids(const json::object& o) {
    std::vector<std::string> out;
    auto const& m = metaOf(o);
    auto it = m.find("ownerReferences");
    if (it == m.end() || !it->value().is_array()) return out;
    for (auto const& r : it->value().as_array())
        if (r.is_object()) {
            auto uid = strOf(r.as_object(), "uid");
            if (!uid.empty()) out.push_back(std::move(uid));
        }
    return out;
}

void setManager(json::object& o, std::string_view manager, std::string_view time) {
    auto& m = metaOf(o);
    json::array fields;
    if (auto it = m.find("managedFields"); it != m.end() && it->value().is_array())
        for (auto const& e : it->value().as_array())
            if (!(e.is_object() && strOf(e.as_object(), "manager") == manager && strOf(e.as_object(), "operation") == "Apply"))
                fields.push_back(e);
    fields.push_back(json::object{{"manager", manager}, {"operation", "Apply"}, {"apiVersion", strOf(o, "apiVersion")},
                                  {"time", time}, {"fieldsType", "FieldsV1"}});
    m["managedFields"] = std::move(fields);
}

}  // namespace

TxnStore::TxnStore(StoreOptions options) : options_(std::move(options)) {}

std::chrono::system_clock::time_point TxnStore::now() const {
    return options_.clock ? options_.clock() : std::chrono::system_clock::now();
}

// Runs a write, turning storage exceptions into StoreStatus::Error.
template <class Result, class Body>
Result TxnStore::write(Body&& body) {
    Result result;
    try {
        runWrite([&](StoreTxn& txn) {
            result = Result{};
            body(txn, result);
            return result.ok();
        });
    } catch (const std::exception& e) {
        result = Result{};
        result.status = StoreStatus::Error;
        result.message = std::string("store: ") + e.what();
    } catch (...) {
        result = Result{};
        result.status = StoreStatus::Error;
        result.message = "store: unknown error";
    }
    return result;
}

namespace {

struct Messages {
    const ResourceTable& table;
    std::string resource(const ObjectKey& k) const { return table.qualifiedResource(k.apiVersion, k.kind); }
    std::string notFound(const ObjectKey& k) const { return resource(k) + " \"" + k.name + "\" not found"; }
    std::string exists(const ObjectKey& k) const { return resource(k) + " \"" + k.name + "\" already exists"; }
    std::string conflictDetail(const ObjectKey& k, std::string_view detail) const {
        return "Operation cannot be fulfilled on " + resource(k) + " \"" + k.name + "\": " + std::string(detail);
    }
    std::string conflict(const ObjectKey& k) const {
        return "Operation cannot be fulfilled on " + resource(k) + " \"" + k.name +
               "\": the object has been modified; please apply your changes to the latest version and try again";
    }
    std::string invalid(const ObjectKey& k, std::string_view detail) const {
        auto group = groupOf(k.apiVersion);
        return k.kind + (group.empty() ? "" : "." + std::string(group)) + " \"" + k.name + "\" is invalid: " +
               std::string(detail);
    }
};

template <class Result>
void fail(Result& r, StoreStatus s, std::string message) {
    r.status = s;
    r.message = std::move(message);
}

// Identity checks every write makes; fills `r` and returns false on failure.
template <class Result>
bool validKey(const ObjectKey& k, const Messages& msg, Result& r, bool allowGenerateName = false) {
    if (k.apiVersion.empty()) return fail(r, StoreStatus::Invalid, msg.invalid(k, "apiVersion: Required value")), false;
    if (k.kind.empty()) return fail(r, StoreStatus::Invalid, msg.invalid(k, "kind: Required value")), false;
    if (k.name.empty() && !allowGenerateName)
        return fail(r, StoreStatus::Invalid, msg.invalid(k, "metadata.name: Required value: name is required")), false;
    if (k.name.size() > 253)
        return fail(r, StoreStatus::Invalid, msg.invalid(k, "metadata.name: Too long: must have at most 253 bytes")), false;
    return true;
}

// Invalid when `next` changes a field `current` makes immutable; true when the update may proceed.
template <class Result>
bool mutableFields(const ObjectKey& k, const json::object& current, const json::object& next, const Messages& msg,
                   Result& r) {
    auto errors = immutableFieldErrors(current, next);
    if (errors.empty()) return true;
    fail(r, StoreStatus::Invalid, msg.invalid(k, joinFieldErrors(errors)));
    return false;
}

bool staleVersion(const json::object& given, const json::object& current) {
    auto rv = strOf(metaOf(given), "resourceVersion");
    return !rv.empty() && rv != strOf(metaOf(current), "resourceVersion");
}

// Stamps the next revision into the object, stores it and records the change.
void commitObject(StoreTxn& txn, const ObjectKey& key, json::object& obj, ChangeType type) {
    int64_t rev = txn.revision() + 1;
    metaOf(obj)["resourceVersion"] = std::to_string(rev);
    txn.putAndRecord(key, obj, rev, type);
}

std::string randomSuffix() {
    static constexpr char alphabet[] = "bcdfghjklmnpqrstvwxz2456789";
    auto uuid = newUuid();
    std::string s;
    for (size_t i = 0; s.size() < 5 && i < uuid.size(); ++i)
        if (uuid[i] != '-') s += alphabet[static_cast<unsigned char>(uuid[i]) % (sizeof alphabet - 1)];
    return s;
}

}  // namespace

namespace {

bool hasFinalizers(const json::object& o) {
    auto const& m = metaOf(o);
    auto it = m.find("finalizers");
    return it != m.end() && it->value().is_array() && !it->value().as_array().empty();
}

bool markedForDeletion(const json::object& o) { return metaOf(o).contains("deletionTimestamp"); }

// Gives `obj` a deletionTimestamp (once) and records it: it waits for its finalizers.
void markDeleted(StoreTxn& txn, const ObjectKey& key, json::object& obj, const std::string& stamp) {
    if (markedForDeletion(obj)) return;
    auto& m = metaOf(obj);
    m["deletionTimestamp"] = stamp;
    m["deletionGracePeriodSeconds"] = 0;
    commitObject(txn, key, obj, ChangeType::Modified);
}

// Erases `obj` (or marks it when it has finalizers) and what it owns, per `propagation`.
// Returns the root's final state.
json::object deleteTree(StoreTxn& txn, const ObjectKey& rootKey, json::object root, Propagation propagation,
                        const std::string& stamp, bool& pending) {
    pending = false;
    if (hasFinalizers(root)) {
        markDeleted(txn, rootKey, root, stamp);
        pending = true;
        return root;
    }
    std::string rootUid = strOf(metaOf(root), "uid");
    if (propagation == Propagation::Orphan) {
        for (auto const& depKey : txn.dependents(rootUid)) {
            auto dep = txn.read(depKey);
            if (!dep) continue;
            auto& refs = metaOf(*dep)["ownerReferences"];
            if (refs.is_array()) {
                json::array kept;
                for (auto const& ref : refs.as_array())
                    if (!(ref.is_object() && strOf(ref.as_object(), "uid") == rootUid)) kept.push_back(ref);
                refs = std::move(kept);
            }
            commitObject(txn, depKey, *dep, ChangeType::Modified);
        }
    }
    std::vector<std::pair<ObjectKey, json::object>> work{{rootKey, root}};
    std::vector<std::pair<ObjectKey, json::object>> order;  // erase order
    std::set<ObjectKey> seen;
    while (!work.empty()) {
        auto [key, obj] = std::move(work.back());
        work.pop_back();
        if (!seen.insert(key).second) continue;
        if (hasFinalizers(obj)) {
            markDeleted(txn, key, obj, stamp);
            continue;
        }
        txn.erase(key);
        order.emplace_back(key, obj);
        if (propagation == Propagation::Orphan && key == rootKey) continue;
        // Dependents left with no existing owner are collected.
        for (auto const& depKey : txn.dependents(strOf(metaOf(obj), "uid"))) {
            auto dep = txn.read(depKey);
            if (!dep) continue;
            bool orphan = true;
            for (auto const& uid : ownerUids(*dep)) orphan = orphan && !txn.uidExists(uid);
            if (orphan) work.emplace_back(depKey, std::move(*dep));
        }
    }
    // Foreground: dependents' deletions are recorded before their owner's.
    if (propagation == Propagation::Foreground) std::reverse(order.begin(), order.end());
    json::object result = root;
    for (auto& [key, obj] : order) {
        int64_t rev = txn.revision() + 1;
        metaOf(obj)["resourceVersion"] = std::to_string(rev);
        txn.record(rev, ChangeType::Deleted, key, obj);
        if (key == rootKey) result = obj;
    }
    return result;
}

}  // namespace

StoreResult TxnStore::create(const json::object& input) {
    Messages msg{options_.resources};
    return write<StoreResult>([&](StoreTxn& txn, StoreResult& r) {
        json::object obj = input;
        auto key = keyOf(obj);
        auto& m = metaOf(obj);
        auto generateName = strOf(m, "generateName");
        if (!validKey(key, msg, r, !generateName.empty())) return;
        if (!strOf(m, "resourceVersion").empty())
            return fail(r, StoreStatus::Invalid,
                        msg.invalid(key, "metadata.resourceVersion: Invalid value: \"" + strOf(m, "resourceVersion") +
                                             "\": must be empty on create"));
        if (key.name.empty()) {
            for (int i = 0; i < 8 && (key.name.empty() || txn.read(key)); ++i) key.name = generateName + randomSuffix();
            m["name"] = key.name;
        }
        if (txn.read(key)) return fail(r, StoreStatus::AlreadyExists, msg.exists(key));
        // managedFields are the API server's to record (core/apiserver/field_manager.hpp).
        for (auto k : kServerMetadata)
            if (k != "managedFields") m.erase(k);
        m["uid"] = newUuid();
        m["generation"] = 1;
        m["creationTimestamp"] = formatRfc3339(now());
        if (options_.resources.lookup(key.apiVersion, key.kind).statusSubresource) obj.erase("status");
        commitObject(txn, key, obj, ChangeType::Added);
        r.object = std::move(obj);
    });
}

StoreResult TxnStore::update(const json::object& input) {
    Messages msg{options_.resources};
    return write<StoreResult>([&](StoreTxn& txn, StoreResult& r) {
        auto key = keyOf(input);
        if (!validKey(key, msg, r)) return;
        auto current = txn.read(key);
        if (!current) return fail(r, StoreStatus::NotFound, msg.notFound(key));
        if (staleVersion(input, *current)) return fail(r, StoreStatus::Conflict, msg.conflict(key));
        json::object next = input;
        keepServerMetadata(next, *current);
        if (options_.resources.lookup(key.apiVersion, key.kind).statusSubresource) copyMember(next, *current, "status");
        if (next == *current) {
            r.object = std::move(next);
            return;
        }
        if (!mutableFields(key, *current, next, msg, r)) return;
        if (specOf(next) != specOf(*current)) metaOf(next)["generation"] = generationOf(*current) + 1;
        commitObject(txn, key, next, ChangeType::Modified);
        if (markedForDeletion(next) && !hasFinalizers(next)) {
            bool pending = false;
            next = deleteTree(txn, key, std::move(next), Propagation::Background, "", pending);
        }
        r.object = std::move(next);
    });
}

StoreResult TxnStore::updateStatus(const json::object& input) {
    Messages msg{options_.resources};
    return write<StoreResult>([&](StoreTxn& txn, StoreResult& r) {
        auto key = keyOf(input);
        if (!validKey(key, msg, r)) return;
        auto current = txn.read(key);
        if (!current) return fail(r, StoreStatus::NotFound, msg.notFound(key));
        if (staleVersion(input, *current)) return fail(r, StoreStatus::Conflict, msg.conflict(key));
        json::object next = *current;
        copyMember(next, input, "status");
        // The API server records who wrote the status (core/apiserver/field_manager.hpp).
        if (auto* mf = metaOf(input).if_contains("managedFields")) metaOf(next)["managedFields"] = *mf;
        if (next == *current) {
            r.object = std::move(next);
            return;
        }
        commitObject(txn, key, next, ChangeType::Modified);
        r.object = std::move(next);
    });
}

ApplyResult TxnStore::apply(const json::object& input, std::string_view fieldManager) {
    auto stamp = formatRfc3339(now());
    return write<ApplyResult>(
        [&](StoreTxn& txn, ApplyResult& r) { applyIn(txn, input, fieldManager, stamp, r); });
}

ApplyAllResult TxnStore::applyAll(const std::vector<json::object>& objs, std::string_view fieldManager) {
    auto stamp = formatRfc3339(now());
    ApplyAllResult all;
    auto done = write<StoreResult>([&](StoreTxn& txn, StoreResult& status) {
        all = ApplyAllResult{};
        for (size_t i = 0; i < objs.size(); ++i) {
            ApplyResult r;
            applyIn(txn, objs[i], fieldManager, stamp, r);
            if (!r.ok()) {
                all.failed = i;
                status.status = r.status;  // rolls the transaction back
                all.failure = std::move(r);
                return;
            }
            all.applied.push_back(std::move(r));
        }
    });
    if (!done.ok() && !all.failed) {  // the storage failed (begin, commit, a read)
        all = ApplyAllResult{};
        all.failed = 0;
        all.failure.status = done.status;
        all.failure.message = done.message;
    }
    if (all.failed) all.applied.clear();
    return all;
}

void TxnStore::applyIn(StoreTxn& txn, const json::object& input, std::string_view fieldManager,
                       const std::string& stamp, ApplyResult& r) {
    Messages msg{options_.resources};
    auto key = keyOf(input);
    if (!validKey(key, msg, r)) return;
    bool statusSub = options_.resources.lookup(key.apiVersion, key.kind).statusSubresource;
    auto current = txn.read(key);
    if (!current) {
        json::object obj = input;
        auto& m = metaOf(obj);
        for (auto k : kServerMetadata) m.erase(k);
        m["uid"] = newUuid();
        m["generation"] = 1;
        m["creationTimestamp"] = stamp;
        if (statusSub) obj.erase("status");
        setManager(obj, fieldManager, stamp);
        commitObject(txn, key, obj, ChangeType::Added);
        r.object = std::move(obj);
        r.outcome = ApplyOutcome::Created;
        return;
    }
    if (staleVersion(input, *current)) return fail(r, StoreStatus::Conflict, msg.conflict(key));
    json::object next = *current;
    for (auto const& [k, v] : input) {
        if (k == "metadata" || (k == "status" && statusSub)) continue;
        next[k] = v;
    }
    auto const& im = metaOf(input);
    auto& nm = metaOf(next);
    for (auto k : kAppliedMetadata)
        if (auto it = im.find(k); it != im.end()) nm[k] = it->value();
    r.object = next;
    if (contentOf(next, statusSub) == contentOf(*current, statusSub)) {
        r.object = std::move(*current);
        r.outcome = ApplyOutcome::Unchanged;
        return;
    }
    if (!mutableFields(key, *current, next, msg, r)) return;
    if (specOf(next) != specOf(*current)) nm["generation"] = generationOf(*current) + 1;
    setManager(next, fieldManager, stamp);
    commitObject(txn, key, next, ChangeType::Modified);
    if (markedForDeletion(next) && !hasFinalizers(next)) {
        bool pending = false;
        next = deleteTree(txn, key, std::move(next), Propagation::Background, "", pending);
    }
    r.object = std::move(next);
    r.outcome = ApplyOutcome::Configured;
}

StoreResult TxnStore::remove(const ObjectKey& root, const DeleteOptions& options) {
    Messages msg{options_.resources};
    auto stamp = formatRfc3339(now());
    return write<StoreResult>([&](StoreTxn& txn, StoreResult& r) {
        auto first = txn.read(root);
        if (!first) return fail(r, StoreStatus::NotFound, msg.notFound(root));
        auto const& m = metaOf(*first);
        if (!options.uid.empty() && options.uid != strOf(m, "uid"))
            return fail(r, StoreStatus::Conflict,
                        msg.conflictDetail(root, "Precondition failed: UID in precondition: " + options.uid +
                                                     ", UID in object meta: " + strOf(m, "uid")));
        if (!options.resourceVersion.empty() && options.resourceVersion != strOf(m, "resourceVersion"))
            return fail(r, StoreStatus::Conflict,
                        msg.conflictDetail(root, "Precondition failed: ResourceVersion in precondition: " +
                                                     options.resourceVersion + ", ResourceVersion in object meta: " +
                                                     strOf(m, "resourceVersion")));
        r.object = deleteTree(txn, root, std::move(*first), options.propagation, stamp, r.pending);
    });
}

}  // namespace trainer::core
