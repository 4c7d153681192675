#include "core/store/parsed_memo.hpp"

namespace trainer::core {

ParsedMemo::Ticket ParsedMemo::ticket() const {
    std::lock_guard lock(mu_);
    return Ticket{reads_.load(std::memory_order_acquire), commits_};
}

std::shared_ptr<const ReadResult> ParsedMemo::trusted(const ObjectKey& key, Clock::time_point now) const {
    std::lock_guard lock(mu_);
    if (!trusted_ || reads_.load(std::memory_order_acquire) != trustedReads_ || now - trustedAt_ >= trust_) return nullptr;
    auto it = entries_.find(key);
    return it == entries_.end() ? nullptr : it->second.result;
}

std::shared_ptr<const ReadResult> ParsedMemo::at(const ObjectKey& key, int64_t revision) const {
    std::lock_guard lock(mu_);
    auto it = entries_.find(key);
    return it != entries_.end() && it->second.revision == revision ? it->second.result : nullptr;
}

void ParsedMemo::confirm(const Ticket& t, int64_t head, Clock::time_point now) {
    std::lock_guard lock(mu_);
    if (head > head_) {  // another process wrote (or the head was unknown)
        entries_.clear();
        head_ = head;
    }
    // A head behind the memo's: this process committed after the read began; nothing to confirm.
    if (head != head_ || reads_.load(std::memory_order_acquire) != t.reads) return;
    trusted_ = true;
    trustedReads_ = t.reads;
    trustedAt_ = now;
}

void ParsedMemo::remember(const Ticket& t, int64_t head, const ObjectKey& key, int64_t revision,
                          std::shared_ptr<const ReadResult> parsed) {
    std::lock_guard lock(mu_);
    if (commits_ != t.commits || head != head_) return;
    if (entries_.size() >= kObjects && !entries_.count(key)) entries_.clear();  // bounded; the hot few come back
    entries_[key] = Entry{revision, std::move(parsed)};
}

void ParsedMemo::committed(int64_t base, int64_t head, const std::vector<ObjectKey>& written) {
    std::lock_guard lock(mu_);
    ++commits_;
    if (base != head_) entries_.clear();  // another process wrote before this commit (or unknown)
    else
        for (auto const& k : written) entries_.erase(k);
    head_ = head;
}

std::size_t ParsedMemo::size() const {
    std::lock_guard lock(mu_);
    return entries_.size();
}

}  // namespace trainer::core
