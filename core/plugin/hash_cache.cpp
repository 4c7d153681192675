// The plugin directory's hash cache (hash_cache.hpp). The file is text, one entry a line, and
// ends with a line counting them, so a cut-short file is recognised and ignored:
//   trainer-operator sha256-cache v1
//   <device> <inode> <size> <mtime s> <mtime ns> <ctime s> <ctime ns> <sha256 hex>
//   end <entries>
#include "core/plugin/hash_cache.hpp"

#include "core/plugin/registry_internal.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <filesystem>
#include <sstream>
#include <vector>

namespace trainer::core::detail {

namespace fs = std::filesystem;

namespace {

constexpr std::string_view kHeader = "trainer-operator sha256-cache v1";
constexpr size_t kMaxBytes = 4 << 20;     // a larger file is not ours: ignored
constexpr size_t kMaxHashEntries = 4096;  // past this, only this start-up's files are kept

template <class T>
bool number(std::string_view text, T& out) {
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
    return ec == std::errc() && end == text.data() + text.size();
}

// The number at `p`, which must be followed by a space; `p` is moved past that space.
template <class T>
bool numberThenSpace(const char*& p, const char* end, T& out) {
    auto [next, ec] = std::from_chars(p, end, out);
    if (ec != std::errc() || next == end || *next != ' ') return false;
    p = next + 1;
    return true;
}

// One entry line: exactly eight fields, each followed by one space but the last.
bool entry(std::string_view line, FileIdentity& id, std::string_view& hash) {
    const char* p = line.data();
    const char* end = p + line.size();
    bool ok = numberThenSpace(p, end, id.device) && numberThenSpace(p, end, id.inode) && numberThenSpace(p, end, id.size) &&
              numberThenSpace(p, end, id.mtimeSec) && numberThenSpace(p, end, id.mtimeNsec) &&
              numberThenSpace(p, end, id.ctimeSec) && numberThenSpace(p, end, id.ctimeNsec);
    hash = ok ? std::string_view(p, static_cast<size_t>(end - p)) : std::string_view();
    return ok && isSha256Hex(hash);
}

// The entries of `text`; false when any line is malformed or the count line is missing.
bool parse(std::string_view text, HashEntries& out) {
    if (text.empty() || text.back() != '\n') return false;  // every line ends with a newline
    const size_t header = text.find('\n');
    const size_t last = text.rfind('\n', text.size() - 2);
    if (text.substr(0, header) != kHeader || last == std::string_view::npos || last < header) return false;
    std::string_view tail = text.substr(last + 1, text.size() - last - 2);
    size_t count = 0;
    if (!tail.starts_with("end ") || !number(tail.substr(4), count)) return false;
    out.reserve(std::min(count, kMaxHashEntries * 2));
    size_t lines = 0;
    for (size_t at = header + 1; at < last + 1; ++lines) {
        const size_t end = text.find('\n', at);
        FileIdentity id;
        std::string_view hash;
        if (!entry(text.substr(at, end - at), id, hash)) return false;
        out.insert_or_assign(id, CachedHash::of(hash, false));
        at = end + 1;
    }
    return lines == count;
}

HashEntries readCache(const std::string& dir) {
    HashEntries entries;
    const std::string path = (fs::path(dir) / std::string(kHashCacheFile)).string();
    struct stat st {};
    if (::lstat(path.c_str(), &st) != 0) return entries;  // none yet
    TrustedFile file;
    if (TrustedFile::open(path, file) || st.st_size <= 0 || static_cast<size_t>(st.st_size) > kMaxBytes) return entries;
    std::string text(static_cast<size_t>(st.st_size), '\0');
    size_t got = 0;
    while (got < text.size()) {
        ssize_t n = ::pread(file.fd(), text.data() + got, text.size() - got, static_cast<off_t>(got));
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return entries;
        got += static_cast<size_t>(n);
    }
    if (!parse(text, entries)) entries.clear();
    return entries;
}

// In identity order, so that the same entries always make the same file.
std::string render(const HashEntries& entries) {
    std::vector<std::pair<const FileIdentity*, const std::array<char, 64>*>> sorted;
    sorted.reserve(entries.size());
    for (auto const& [id, e] : entries) sorted.emplace_back(&id, &e.sha256);
    std::sort(sorted.begin(), sorted.end(), [](auto const& a, auto const& b) { return *a.first < *b.first; });
    std::ostringstream out;
    out << kHeader << '\n';
    for (auto const& [at, hash] : sorted)
        out << at->device << ' ' << at->inode << ' ' << at->size << ' ' << at->mtimeSec << ' ' << at->mtimeNsec << ' '
            << at->ctimeSec << ' ' << at->ctimeNsec << ' ' << std::string_view(hash->data(), hash->size()) << '\n';
    out << "end " << entries.size() << '\n';
    return out.str();
}

// Writes `text` as the directory's cache through a temporary file renamed over the old one;
// false (the directory left as it was) when any step fails.
bool writeCache(const std::string& dir, const std::string& text) {
    std::string temp = (fs::path(dir) / kHashCacheFile).string();
    temp.append(".XXXXXX");
    int fd = ::mkostemp(temp.data(), O_CLOEXEC);
    if (fd < 0) return false;  // read-only or not ours: no cache
    bool ok = ::fchmod(fd, 0600) == 0;
    for (size_t done = 0; ok && done < text.size();) {
        ssize_t n = ::write(fd, text.data() + done, text.size() - done);
        if (n < 0 && errno == EINTR) continue;
        ok = n > 0;
        if (ok) done += static_cast<size_t>(n);
    }
    ok = ::close(fd) == 0 && ok;
    const std::string path = (fs::path(dir) / std::string(kHashCacheFile)).string();
    if (ok && ::rename(temp.c_str(), path.c_str()) == 0) return true;
    ::unlink(temp.c_str());
    return false;
}

int64_t nanos(int64_t s, int64_t ns) { return s * 1'000'000'000 + ns; }

}  // namespace

FileIdentity FileIdentity::of(const struct stat& st) {
    FileIdentity id;
    id.device = static_cast<uint64_t>(st.st_dev);
    id.inode = static_cast<uint64_t>(st.st_ino);
    id.size = static_cast<uint64_t>(st.st_size);
    id.mtimeSec = st.st_mtim.tv_sec;
    id.mtimeNsec = st.st_mtim.tv_nsec;
    id.ctimeSec = st.st_ctim.tv_sec;
    id.ctimeNsec = st.st_ctim.tv_nsec;
    return id;
}

size_t FileIdentity::Hash::operator()(const FileIdentity& id) const {
    uint64_t h = id.inode * 0x9E3779B97F4A7C15ull;
    for (uint64_t v : {id.device, id.size, static_cast<uint64_t>(id.mtimeNsec), static_cast<uint64_t>(id.ctimeNsec)})
        h = (h ^ v) * 0x100000001B3ull;
    return static_cast<size_t>(h ^ (h >> 32));
}

HashCache::Directory& HashCache::directory(std::string_view dir) {
    auto it = dirs_.find(dir);
    if (it != dirs_.end()) return it->second;
    std::string key(dir);
    auto entries = readCache(key);
    return dirs_.emplace(std::move(key), Directory{std::move(entries), false}).first->second;
}

std::string HashCache::sha256(std::string_view dir, int fd) {
    struct stat st {};
    if (::fstat(fd, &st) != 0) return "";
    return sha256(dir, fd, st);
}

std::string HashCache::sha256(std::string_view dir, int fd, const struct stat& st) {
    const FileIdentity id = FileIdentity::of(st);
    Directory& d = directory(dir);
    if (auto it = d.entries.find(id); it != d.entries.end()) {
        it->second.used = true;
        return it->second.hex();
    }
    ++filesRead_;
    std::string hash = sha256Fd(fd);
    const int64_t now = std::chrono::duration_cast<std::chrono::nanoseconds>(now_().time_since_epoch()).count();
    const int64_t changed = std::max(nanos(id.mtimeSec, id.mtimeNsec), nanos(id.ctimeSec, id.ctimeNsec));
    if (hash.empty() || now - changed < std::chrono::nanoseconds(kHashCacheSettle).count()) return hash;
    // An earlier version of the same file is stale from now on.
    for (auto e = d.entries.begin(); e != d.entries.end();)
        e = e->first.device == id.device && e->first.inode == id.inode ? d.entries.erase(e) : std::next(e);
    d.entries[id] = CachedHash::of(hash, true);
    d.changed = true;
    return hash;
}

int HashCache::save() {
    int written = 0;
    for (auto& [dir, d] : dirs_) {
        if (!d.changed) continue;
        if (d.entries.size() > kMaxHashEntries)
            for (auto e = d.entries.begin(); e != d.entries.end();) e = e->second.used ? std::next(e) : d.entries.erase(e);
        if (writeCache(dir, render(d.entries))) ++written;
        d.changed = false;
    }
    return written;
}

}  // namespace trainer::core::detail
