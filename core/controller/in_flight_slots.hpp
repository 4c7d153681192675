// The poison-pill record (issue 12 item 2): which TrainJob each reconcile is working on, in a
// small file of fixed-size slots (`<store>.inflight` next to the embedded store; in cluster
// mode `run --in-flight-file`, default `<temp dir>/trainer-operator.inflight`), so that the
// process started after a fatal signal in a plugin hook knows which TrainJob's build killed
// its predecessor, and in which plugin and hook, instead of building it again and dying again.
//
// Each slot is written with pwrite(2) and never fsync'ed: a crashed process's writes stay in the
// page cache, which is all this record has to survive (after a machine crash the record may be
// lost; the TrainJob is then built once more). While a TrainJob is claimed, the crash handler
// writes its CrashNote (plugin, hook, signal; core/plugin/crash_context.hpp) into the slot on
// the same descriptor. The file is created 0600 (O_NOFOLLOW) and held with flock(LOCK_EX) while
// open, so one process at a time uses it.
#pragma once

#include "core/plugin/crash_context.hpp"

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace trainer::core::controller {

// A TrainJob whose reconcile was cut short by a fatal signal.
struct CrashedTrainJob {
    std::string uid;
    std::string ns;
    std::string name;
    int64_t generation = 0;
    std::string plugin;  // "" when no plugin hook was running (the operator's own fault)
    std::string hook;
    int signal = 0;
};

// "plugin P crashed the operator with SIGSEGV in hook H while building generation G of this TrainJob"
std::string describeCrash(const CrashedTrainJob& crash);

class InFlightSlots {
public:
    // Bytes per slot, and where in a slot the crash handler writes its CrashNote.
    static constexpr size_t kSlotBytes = 1024;
    static constexpr size_t kNoteOffset = 512;

    // Opens (creating it) and locks `path`, reads what the previous process left: slots still
    // in flight with a crash note become crashed() records, slots in flight without one (a
    // SIGKILL, a clean exit after the grace period) are freed. nullptr and `error` when the file
    // cannot be opened, read or locked.
    static std::unique_ptr<InFlightSlots> open(const std::string& path, std::string& error);
    ~InFlightSlots();
    InFlightSlots(const InFlightSlots&) = delete;
    InFlightSlots& operator=(const InFlightSlots&) = delete;

    const std::string& path() const { return path_; }
    // Unresolved crash records, in slot order.
    std::vector<CrashedTrainJob> crashed() const;
    // The unresolved crash record of the TrainJob with `uid`.
    std::optional<CrashedTrainJob> crashOf(const std::string& uid) const;
    // Forgets the crash record of `uid` (once the TrainJob is marked, changed or gone); its slot is free again.
    void resolve(const std::string& uid);

    // Records a TrainJob as in flight in a free slot for the Claim's life, and points the calling
    // thread's crash note at that slot (the Claim must end on the thread that made it).
    class Claim {
    public:
        Claim(InFlightSlots& slots, std::string_view uid, std::string_view ns, std::string_view name, int64_t generation);
        ~Claim();
        Claim(const Claim&) = delete;
        Claim& operator=(const Claim&) = delete;

    private:
        InFlightSlots& slots_;
        size_t slot_;
        std::optional<CrashNoteScope> note_;
    };

private:
    InFlightSlots(int fd, std::string path) : fd_(fd), path_(std::move(path)) {}
    size_t acquire();
    void release(size_t slot);
    void clear(size_t slot);

    int fd_;
    std::string path_;
    mutable std::mutex mu_;
    std::vector<bool> busy_;                        // in flight, or holding a crash record
    std::map<std::string, size_t> crashSlots_;      // uid -> slot of its crash record
    std::map<size_t, CrashedTrainJob> crashes_;     // slot -> record
};

}  // namespace trainer::core::controller
