// A ClusterReader that passes every read to another: the base of readers that stand in front of
// one to watch or remember its answers (ReadErrorLatch, ReadMemo), overriding what they change.
#pragma once

#include "core/api/object_set.hpp"

namespace trainer::core {

class ForwardingReader : public ClusterReader {
public:
    explicit ForwardingReader(const ClusterReader& inner) : inner_(inner) {}
    ReadResult get(const ObjectKey& key) const override { return inner_.get(key); }
    std::shared_ptr<const ReadResult> share(const ObjectKey& key) const override { return inner_.share(key); }
    ListResult list(const std::string& apiVersion, const std::string& kind,
                    const std::optional<std::string>& ns = std::nullopt) const override {
        return inner_.list(apiVersion, kind, ns);
    }

protected:
    const ClusterReader& inner_;
};

}  // namespace trainer::core
