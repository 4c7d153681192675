#include "core/controller/own_writes.hpp"

namespace trainer::core::controller {

void OwnWrites::record(const ObjectKey& child, const json::object& written, const ObjectKey& trainJob) {
    auto rv = resourceVersionOf(written);
    if (rv.empty()) return;
    std::lock_guard lk(mu_);
    if (writes_.size() >= capacity_ && !writes_.contains(child)) writes_.clear();
    writes_.insert_or_assign(child, Write{std::move(rv), trainJob});
}

std::optional<ObjectKey> OwnWrites::take(const Change& change) {
    std::lock_guard lk(mu_);
    auto it = writes_.find(change.key);
    if (it == writes_.end()) return std::nullopt;
    if (change.type == ChangeType::Deleted) {
        writes_.erase(it);
        return std::nullopt;
    }
    // Another write of the object (before ours reached the feed, or after): queued as usual.
    if (resourceVersionOf(change.object) != it->second.resourceVersion) return std::nullopt;
    auto writer = std::move(it->second.trainJob);
    writes_.erase(it);
    return writer;
}

void OwnWrites::clear() {
    std::lock_guard lk(mu_);
    writes_.clear();
}

std::size_t OwnWrites::size() const {
    std::lock_guard lk(mu_);
    return writes_.size();
}

}  // namespace trainer::core::controller
