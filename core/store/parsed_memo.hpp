// What SqliteStore::share() remembers: the objects it parsed, and when one may be handed out
// without reading the file at all (issue 14 P5: admission reads one runtime per TrainJob, and a
// SQLite read transaction costs system calls whatever it reads).
//
// The memo keeps `head`, the file's newest revision as this process last knew it, and holds each
// remembered object current as of `head`: no write to its key in between. This process's own
// commits keep that true key by key (committed()); a read that finds the file's head moved past
// `head` (another process wrote) forgets everything. A remembered object is answered from memory
// (trusted()) only while this process has completed no other read of the file since a read
// confirmed `head`, and for at most its trust (kTrust unless told) after it: nothing in this
// process can have learnt of another process's write before share() answers with it, and another
// process's write that no read here has seen reaches share() within the trust.
#pragma once

#include "core/api/object_set.hpp"

#include <atomic>
#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <vector>

namespace trainer::core {

class ParsedMemo {
public:
    using Clock = std::chrono::steady_clock;
    static constexpr std::size_t kObjects = 64;
    static constexpr std::chrono::milliseconds kTrust{100};
    explicit ParsedMemo(Clock::duration trust = kTrust) : trust_(trust) {}

    // Taken before a read of the file that confirms the head (share's).
    struct Ticket {
        uint64_t reads = 0;
        uint64_t commits = 0;
    };
    Ticket ticket() const;

    // The object remembered for `key`, answered without a read: null unless trusted as above.
    std::shared_ptr<const ReadResult> trusted(const ObjectKey& key, Clock::time_point now) const;
    // The object remembered for `key` at the row's `revision`, or null.
    std::shared_ptr<const ReadResult> at(const ObjectKey& key, int64_t revision) const;
    // A read that began with `t` found the file's head at `head` (share's read, at `now`): forgets
    // everything when the head moved, and trusts the memo when no other read completed meanwhile.
    void confirm(const Ticket& t, int64_t head, Clock::time_point now);
    // Remembers `parsed`, the row of `key` at `revision` read with the head at `head`, unless this
    // process committed since `t` or the memo's head is no longer `head`.
    void remember(const Ticket& t, int64_t head, const ObjectKey& key, int64_t revision,
                  std::shared_ptr<const ReadResult> parsed);
    // Every other read of the file, once it has read: the memo is not trusted until confirmed again.
    void readDone() { reads_.fetch_add(1, std::memory_order_acq_rel); }
    // This process committed a write that found the head at `base`, left it at `head` and wrote
    // the rows of `written`; called before the commit's caller learns of it.
    void committed(int64_t base, int64_t head, const std::vector<ObjectKey>& written);

    std::size_t size() const;

private:
    struct Entry {
        int64_t revision = 0;
        std::shared_ptr<const ReadResult> result;
    };
    const Clock::duration trust_;
    mutable std::mutex mu_;
    std::map<ObjectKey, Entry> entries_;
    int64_t head_ = -1;  // unknown until a read or a commit
    uint64_t commits_ = 0;
    std::atomic<uint64_t> reads_{0};
    bool trusted_ = false;
    uint64_t trustedReads_ = 0;
    Clock::time_point trustedAt_{};
};

}  // namespace trainer::core
