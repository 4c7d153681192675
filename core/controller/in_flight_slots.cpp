#include "core/controller/in_flight_slots.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace trainer::core::controller {

namespace {

constexpr char kSlotMagic[8] = {'T', 'R', 'N', 'S', 'L', 'O', 'T', '1'};
constexpr uint32_t kInFlight = 1;

// The start of a slot; the CrashNote follows at kNoteOffset, zeros elsewhere.
struct SlotHeader {
    char magic[8];
    uint32_t state;
    uint32_t reserved;
    int64_t generation;
    char uid[64];
    char ns[kCrashNamespaceBytes];
    char name[kCrashNameBytes];
};
static_assert(sizeof(SlotHeader) <= InFlightSlots::kNoteOffset);
static_assert(InFlightSlots::kNoteOffset + sizeof(CrashNote) <= InFlightSlots::kSlotBytes);

template <size_t N>
std::string fixedString(const char (&s)[N]) {
    return std::string(s, ::strnlen(s, N));
}

template <size_t N>
void putString(char (&dst)[N], std::string_view s) {
    size_t n = std::min(s.size(), N - 1);
    std::memcpy(dst, s.data(), n);
    std::memset(dst + n, 0, N - n);
}

std::string systemError(const std::string& what) { return what + ": " + std::strerror(errno); }

off_t slotOffset(size_t slot) { return static_cast<off_t>(slot * InFlightSlots::kSlotBytes); }

}  // namespace

std::string describeCrash(const CrashedTrainJob& c) {
    const std::string sig = signalName(c.signal);
    const std::string gen = std::to_string(c.generation);
    if (c.plugin.empty())
        return "the operator crashed with " + sig + " while reconciling generation " + gen +
               " of this TrainJob (no plugin hook was running)";
    return "plugin " + c.plugin + " crashed the operator with " + sig + " in hook " + c.hook + " while building generation " +
           gen + " of this TrainJob";
}

std::unique_ptr<InFlightSlots> InFlightSlots::open(const std::string& path, std::string& error) {
    int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (fd < 0) {
        error = systemError("opening " + path);
        return nullptr;
    }
    std::unique_ptr<InFlightSlots> s(new InFlightSlots(fd, path));
    if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
        error = errno == EWOULDBLOCK ? path + " is held by another operator process" : systemError("locking " + path);
        return nullptr;
    }
    struct stat st{};
    if (::fstat(fd, &st) != 0) {
        error = systemError("reading " + path);
        return nullptr;
    }
    const size_t count = static_cast<size_t>(st.st_size) / kSlotBytes;
    s->busy_.assign(count, false);
    for (size_t i = 0; i < count; ++i) {
        char buf[kSlotBytes];
        if (::pread(fd, buf, kSlotBytes, slotOffset(i)) != static_cast<ssize_t>(kSlotBytes)) {
            error = systemError("reading " + path);
            return nullptr;
        }
        SlotHeader h;
        CrashNote note;
        std::memcpy(&h, buf, sizeof h);
        std::memcpy(&note, buf + kNoteOffset, sizeof note);
        if (std::memcmp(h.magic, kSlotMagic, sizeof h.magic) != 0 || h.state != kInFlight) continue;
        if (std::memcmp(note.magic, kCrashNoteMagic, sizeof note.magic) != 0) {
            s->clear(i);  // in flight when the process ended without a fatal signal: nothing to hold against it
            continue;
        }
        CrashedTrainJob c{fixedString(h.uid),    fixedString(h.ns),   fixedString(h.name), h.generation,
                          fixedString(note.plugin), fixedString(note.hook), note.signal};
        if (auto old = s->crashSlots_.find(c.uid); old != s->crashSlots_.end()) {
            s->crashes_.erase(old->second);
            s->busy_[old->second] = false;
            s->clear(old->second);
        }
        s->busy_[i] = true;
        s->crashSlots_[c.uid] = i;
        s->crashes_[i] = std::move(c);
    }
    return s;
}

InFlightSlots::~InFlightSlots() { ::close(fd_); }

std::vector<CrashedTrainJob> InFlightSlots::crashed() const {
    std::lock_guard g(mu_);
    std::vector<CrashedTrainJob> out;
    for (auto const& [slot, c] : crashes_) out.push_back(c);
    return out;
}

std::optional<CrashedTrainJob> InFlightSlots::crashOf(const std::string& uid) const {
    std::lock_guard g(mu_);
    auto it = crashSlots_.find(uid);
    if (it == crashSlots_.end()) return std::nullopt;
    return crashes_.at(it->second);
}

void InFlightSlots::resolve(const std::string& uid) {
    std::lock_guard g(mu_);
    auto it = crashSlots_.find(uid);
    if (it == crashSlots_.end()) return;
    const size_t slot = it->second;
    crashSlots_.erase(it);
    crashes_.erase(slot);
    clear(slot);
    busy_[slot] = false;
}

size_t InFlightSlots::acquire() {
    std::lock_guard g(mu_);
    for (size_t i = 0; i < busy_.size(); ++i)
        if (!busy_[i]) {
            busy_[i] = true;
            return i;
        }
    busy_.push_back(true);  // the file grows by a slot at its first write
    return busy_.size() - 1;
}

void InFlightSlots::release(size_t slot) {
    clear(slot);
    std::lock_guard g(mu_);
    busy_[slot] = false;
}

void InFlightSlots::clear(size_t slot) {
    static const char zeros[kSlotBytes] = {};
    ssize_t ignored = ::pwrite(fd_, zeros, kSlotBytes, slotOffset(slot));
    (void)ignored;  // a failed write leaves a stale record: at worst a TrainJob built once more
}

InFlightSlots::Claim::Claim(InFlightSlots& slots, std::string_view uid, std::string_view ns, std::string_view name,
                            int64_t generation)
    : slots_(slots), slot_(slots.acquire()) {
    char buf[kSlotBytes] = {};
    SlotHeader h{};
    std::memcpy(h.magic, kSlotMagic, sizeof h.magic);
    h.state = kInFlight;
    h.generation = generation;
    putString(h.uid, uid);
    putString(h.ns, ns);
    putString(h.name, name);
    std::memcpy(buf, &h, sizeof h);
    ssize_t ignored = ::pwrite(slots_.fd_, buf, kSlotBytes, slotOffset(slot_));
    (void)ignored;  // unrecorded: the poison-pill guard does not cover this reconcile
    note_.emplace(slots_.fd_, slotOffset(slot_) + static_cast<off_t>(kNoteOffset));
}

InFlightSlots::Claim::~Claim() {
    note_.reset();
    slots_.release(slot_);
}

}  // namespace trainer::core::controller
