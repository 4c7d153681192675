// The Store seam in memory: the fake for controller tests, same semantics as SqliteStore.
#pragma once

#include "core/store/txn_store.hpp"

#include <map>
#include <mutex>

namespace trainer::core {

class MemoryStore : public TxnStore {
public:
    explicit MemoryStore(StoreOptions options = {});

    std::optional<json::object> get(const ObjectKey& key) const override;
    std::vector<json::object> list(const std::string& apiVersion, const std::string& kind,
                                   const std::optional<std::string>& ns = std::nullopt) const override;
    std::vector<json::object> listAll() const override;
    std::vector<Change> changesSince(int64_t revision, size_t limit) const override;
    int64_t revision() const override;
    int64_t compactedRevision() const override { return 0; }

protected:
    void runWrite(const std::function<bool(StoreTxn&)>& body) override;

private:
    friend class MemoryTxn;
    mutable std::mutex mutex_;
    std::map<ObjectKey, json::object> objects_;
    std::vector<Change> changes_;
    int64_t revision_ = 0;
};

}  // namespace trainer::core
