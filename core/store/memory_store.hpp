// The Store seam in memory: the fake for controller tests, same semantics as SqliteStore.
#pragma once

#include "core/store/txn_store.hpp"

#include <map>
#include <mutex>

namespace trainer::core {

class MemoryStore : public TxnStore {
public:
    explicit MemoryStore(StoreOptions options = {});

    ReadResult get(const ObjectKey& key) const override;
    ListResult list(const std::string& apiVersion, const std::string& kind,
                    const std::optional<std::string>& ns = std::nullopt) const override;
    ListResult listAll() const override;
    ReadValue<std::vector<Change>> changesSince(int64_t revision, size_t limit) const override;
    ReadValue<int64_t> revision() const override;
    ReadValue<int64_t> compactedRevision() const override { return ReadValue<int64_t>::of(0); }
    ChangeSubscription onCommit(std::function<void()> fn) const override { return committed_.subscribe(std::move(fn)); }

protected:
    void runWrite(const std::function<bool(StoreTxn&)>& body) override;

private:
    friend class MemoryTxn;
    mutable std::mutex mutex_;
    mutable ChangeSignal committed_;  // notified after each commit, mutex_ released
    std::map<ObjectKey, json::object> objects_;
    std::vector<Change> changes_;
    int64_t revision_ = 0;
};

}  // namespace trainer::core
