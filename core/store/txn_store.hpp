// The API-server semantics of the Store seam written once over a small set of transactional
// primitives; SqliteStore and MemoryStore implement only the primitives.
#pragma once

#include "core/store/store.hpp"

#include <functional>

namespace trainer::core {

// Options shared by every backend.
struct StoreOptions {
    ResourceTable resources;
    // The time stamped into creationTimestamp and managedFields; system_clock::now when empty.
    std::function<std::chrono::system_clock::time_point()> clock;
};

// Primitive operations inside one write transaction. Backends may throw std::exception on
// storage failure; the transaction is then rolled back and the call returns StoreStatus::Error.
class StoreTxn {
public:
    virtual ~StoreTxn() = default;
    // nullopt only when the object is absent; a read that fails throws (never "absent").
    virtual std::optional<json::object> read(const ObjectKey& key) = 0;
    // Inserts or replaces the object at `key`.
    virtual void put(const ObjectKey& key, const json::object& obj) = 0;
    virtual void erase(const ObjectKey& key) = 0;
    // Keys of stored objects with an ownerReference to `ownerUid`.
    virtual std::vector<ObjectKey> dependents(const std::string& ownerUid) = 0;
    virtual bool uidExists(const std::string& uid) = 0;
    // The newest revision, including changes recorded earlier in this transaction.
    virtual int64_t revision() = 0;
    // Appends `object` at `key` to the change feed; `revision` becomes the newest revision.
    virtual void record(int64_t revision, ChangeType type, const ObjectKey& key, const json::object& object) = 0;
    // put(key, obj) then record(revision, type, key, obj): a backend may write both from one
    // serialisation (the SQLite store's body and feed row are the same text).
    virtual void putAndRecord(const ObjectKey& key, const json::object& obj, int64_t revision, ChangeType type) {
        put(key, obj);
        record(revision, type, key, obj);
    }
};

// Store whose writes are the shared logic run inside a backend transaction.
class TxnStore : public Store {
public:
    StoreResult create(const json::object& obj) final;
    StoreResult update(const json::object& obj) final;
    StoreResult updateStatus(const json::object& obj) final;
    ApplyResult apply(const json::object& obj, std::string_view fieldManager) final;
    // One transaction for all the objects: a failure rolls back the ones before it.
    ApplyAllResult applyAll(const std::vector<json::object>& objs, std::string_view fieldManager) final;
    using Store::remove;
    StoreResult remove(const ObjectKey& key, const DeleteOptions& options) final;
    const ResourceTable& resources() const { return options_.resources; }

protected:
    explicit TxnStore(StoreOptions options);
    // Runs `body` in one atomic write transaction: committed when it returns true, rolled back
    // when it returns false or throws (the exception is rethrown after the rollback).
    virtual void runWrite(const std::function<bool(StoreTxn&)>& body) = 0;

private:
    template <class Result, class Body>
    Result write(Body&& body);
    // apply's body inside a transaction `txn`; `stamp` is the write's time (RFC 3339).
    void applyIn(StoreTxn& txn, const json::object& input, std::string_view fieldManager, const std::string& stamp,
                 ApplyResult& r);
    std::chrono::system_clock::time_point now() const;

    StoreOptions options_;
};

}  // namespace trainer::core
