// A ClusterReader in front of another that remembers the first read that failed, so a caller
// handing it to code that reads deep inside (runtime resolution, plugin lookups, status hooks)
// learns afterwards that some answer was "could not read" and discards what was built on it.
#pragma once

#include "core/api/forwarding_reader.hpp"

#include <mutex>

namespace trainer::core {

class ReadErrorLatch : public ForwardingReader {
public:
    using ForwardingReader::ForwardingReader;

    ReadResult get(const ObjectKey& key) const override {
        auto r = inner_.get(key);
        if (r.failed()) remember(readFailureMessage(key, r.message));
        return r;
    }
    std::shared_ptr<const ReadResult> share(const ObjectKey& key) const override {
        auto r = inner_.share(key);
        if (r->failed()) remember(readFailureMessage(key, r->message));
        return r;
    }
    ListResult list(const std::string& apiVersion, const std::string& kind,
                    const std::optional<std::string>& ns = std::nullopt) const override {
        auto r = inner_.list(apiVersion, kind, ns);
        if (!r.ok())
            remember("cluster list of " + quoteForError(apiVersion) + " " + quoteForError(kind) +
                     (ns ? " in namespace " + quoteForError(*ns) : std::string()) + " failed: " + *r.error);
        return r;
    }

    // The first failed read ("cluster read of ConfigMap ns/name failed: <why>"), or nullopt.
    std::optional<std::string> firstError() const {
        std::lock_guard lock(mu_);
        return first_;
    }
    bool failed() const { return firstError().has_value(); }

private:
    void remember(std::string message) const {
        std::lock_guard lock(mu_);
        if (!first_) first_ = std::move(message);
    }

    mutable std::mutex mu_;
    mutable std::optional<std::string> first_;
};

}  // namespace trainer::core
