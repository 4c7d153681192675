// A ClusterReader in front of another that answers each key from its first read for as long as
// it lives: one admission decision reads one picture of the cluster, and each object once (the
// TrainJob webhook read the runtime twice, for the reference check and for the Info, each a
// store transaction and a JSON parse: issue 14 P5). A failed read is not remembered (the next
// asks again); lists are not remembered. Safe to share between threads.
#pragma once

#include "core/api/forwarding_reader.hpp"

#include <map>
#include <memory>
#include <mutex>

namespace trainer::core {

class ReadMemo : public ForwardingReader {
public:
    using ForwardingReader::ForwardingReader;

    ReadResult get(const ObjectKey& key) const override { return *share(key); }
    // The remembered answer itself: the first reader's, kept without a copy.
    std::shared_ptr<const ReadResult> share(const ObjectKey& key) const override {
        {
            std::lock_guard lock(mu_);
            if (auto it = answers_.find(key); it != answers_.end()) return it->second;
        }
        auto r = inner_.share(key);
        if (!r->failed()) {
            std::lock_guard lock(mu_);
            return answers_.emplace(key, std::move(r)).first->second;  // a racing first read keeps the earlier answer
        }
        return r;
    }
    // Keys answered so far (for tests).
    std::size_t remembered() const {
        std::lock_guard lock(mu_);
        return answers_.size();
    }

private:
    mutable std::mutex mu_;
    mutable std::map<ObjectKey, std::shared_ptr<const ReadResult>> answers_;
};

}  // namespace trainer::core
