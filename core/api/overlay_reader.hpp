// A ClusterReader that sees a set of objects first and another reader behind it: `apply`'s inputs
// over the store (core/cli/store_commands.cpp), a reconcile's just-applied children over the
// cluster (core/controller/trainjob_reconciler.cpp).
#pragma once

#include "core/api/object_set.hpp"

namespace trainer::core {

class OverlayReader : public ClusterReader {
public:
    OverlayReader(const ObjectSet& overlay, const ClusterReader& base) : overlay_(overlay), base_(base) {}
    ReadResult get(const ObjectKey& key) const override;
    // An object of the overlay as the overlay shares it (one copy however often it is read).
    std::shared_ptr<const ReadResult> share(const ObjectKey& key) const override;
    // The base's list with the overlay's objects in place of theirs and beside them, by key;
    // the base failing is the list failing (the overlay alone is not the cluster).
    ListResult list(const std::string& apiVersion, const std::string& kind,
                    const std::optional<std::string>& ns = std::nullopt) const override;

private:
    const ObjectSet& overlay_;
    const ClusterReader& base_;
};

}  // namespace trainer::core
