// The cluster of a RealHost (sdk/include/trainer/testing/real_host.hpp): the objects a test
// gives, or a failure on every read when the test asks for one.
#pragma once

#include "core/api/object_set.hpp"

#include <optional>
#include <string>

namespace trainer::core::sdk_testing {

class TestCluster : public ClusterReader {
public:
    void put(json::object o) { objects_.put(std::move(o)); }
    void failReads(std::string why) { failure_ = std::move(why); }

    ReadResult get(const ObjectKey& key) const override {
        return failure_ ? ReadResult::error(*failure_) : objects_.get(key);
    }
    ListResult list(const std::string& apiVersion, const std::string& kind,
                    const std::optional<std::string>& ns = std::nullopt) const override {
        return failure_ ? ListResult::failure(*failure_) : objects_.list(apiVersion, kind, ns);
    }

private:
    ObjectSet objects_;
    std::optional<std::string> failure_;
};

}  // namespace trainer::core::sdk_testing
