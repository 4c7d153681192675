// A Store that forwards every call to another one: the base of the tests' fakes, which override
// the few calls they make fail, count or interleave.
#pragma once

#include "core/store/store.hpp"

namespace trainer::test {

// applyAll and listKeys are not forwarded: they keep Store's defaults, built on this store's
// apply and list, so a fake that overrides those sees every write and list that goes through them
// (the controller applies a TrainJob's children with applyAll and re-lists with listKeys).
class ForwardingStore : public core::Store {
public:
    explicit ForwardingStore(core::Store& inner) : inner_(inner) {}

    core::ReadResult get(const core::ObjectKey& k) const override { return inner_.get(k); }
    core::ListResult list(const std::string& a, const std::string& k,
                          const std::optional<std::string>& ns) const override {
        return inner_.list(a, k, ns);
    }
    core::StoreResult create(const core::json::object& o) override { return inner_.create(o); }
    core::StoreResult update(const core::json::object& o) override { return inner_.update(o); }
    core::StoreResult updateStatus(const core::json::object& o) override { return inner_.updateStatus(o); }
    core::ApplyResult apply(const core::json::object& o, std::string_view m) override { return inner_.apply(o, m); }
    using core::Store::remove;
    core::StoreResult remove(const core::ObjectKey& k, const core::DeleteOptions& o) override {
        return inner_.remove(k, o);
    }
    core::ReadValue<std::vector<core::Change>> changesSince(int64_t r, size_t l) const override {
        return inner_.changesSince(r, l);
    }
    core::ReadValue<int64_t> revision() const override { return inner_.revision(); }
    core::ReadValue<int64_t> compactedRevision() const override { return inner_.compactedRevision(); }
    core::ListResult listAll() const override { return inner_.listAll(); }
    core::ChangeSubscription onCommit(std::function<void()> fn) const override { return inner_.onCommit(std::move(fn)); }

private:
    core::Store& inner_;
};

}  // namespace trainer::test
