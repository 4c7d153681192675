// The plugin directory's hash cache (hash_cache.hpp). The file is text, one entry a line, and
// ends with a line counting them, so a cut-short file is recognised and ignored:
//   trainer-operator sha256-cache v1
//   <device> <inode> <size> <mtime s> <mtime ns> <ctime s> <ctime ns> <sha256 hex>
//   end <entries>
#include "core/plugin/hash_cache.hpp"

#include "core/plugin/registry_internal.hpp"

#include <fcntl.h>
#include <unistd.h>

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
constexpr size_t kMaxEntries = 4096;      // past this, only this start-up's files are kept

template <class T>
bool number(std::string_view text, T& out) {
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
    return ec == std::errc() && end == text.data() + text.size();
}

std::vector<std::string_view> fields(std::string_view line) {
    std::vector<std::string_view> out;
    for (size_t at = 0; at <= line.size();) {
        size_t end = line.find(' ', at);
        if (end == std::string_view::npos) end = line.size();
        out.push_back(line.substr(at, end - at));
        at = end + 1;
    }
    return out;
}

// The entries of `text`; false when any line is malformed or the count line is missing.
bool parse(std::string_view text, std::map<FileIdentity, std::string>& out) {
    std::vector<std::string_view> lines;
    for (size_t at = 0; at < text.size();) {
        size_t end = text.find('\n', at);
        if (end == std::string_view::npos) return false;  // every line ends with a newline
        lines.push_back(text.substr(at, end - at));
        at = end + 1;
    }
    if (lines.size() < 2 || lines.front() != kHeader) return false;
    auto last = fields(lines.back());
    size_t count = 0;
    if (last.size() != 2 || last[0] != "end" || !number(last[1], count) || count != lines.size() - 2) return false;
    for (size_t i = 1; i + 1 < lines.size(); ++i) {
        auto f = fields(lines[i]);
        FileIdentity id;
        if (f.size() != 8 || !number(f[0], id.device) || !number(f[1], id.inode) || !number(f[2], id.size) ||
            !number(f[3], id.mtimeSec) || !number(f[4], id.mtimeNsec) || !number(f[5], id.ctimeSec) ||
            !number(f[6], id.ctimeNsec) || !isSha256Hex(f[7]))
            return false;
        out[id] = std::string(f[7]);
    }
    return true;
}

std::map<FileIdentity, std::string> readCache(const std::string& dir) {
    std::map<FileIdentity, std::string> entries;
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

std::string render(const std::map<FileIdentity, std::string>& entries) {
    std::ostringstream out;
    out << kHeader << '\n';
    for (auto const& [id, hash] : entries)
        out << id.device << ' ' << id.inode << ' ' << id.size << ' ' << id.mtimeSec << ' ' << id.mtimeNsec << ' '
            << id.ctimeSec << ' ' << id.ctimeNsec << ' ' << hash << '\n';
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

HashCache::Directory& HashCache::directory(const std::string& dir) {
    auto it = dirs_.find(dir);
    if (it == dirs_.end()) it = dirs_.emplace(dir, Directory{readCache(dir), {}, false}).first;
    return it->second;
}

std::string HashCache::sha256(const std::string& dir, int fd) {
    struct stat st {};
    if (::fstat(fd, &st) != 0) return "";
    return sha256(dir, fd, st);
}

std::string HashCache::sha256(const std::string& dir, int fd, const struct stat& st) {
    const FileIdentity id = FileIdentity::of(st);
    Directory& d = directory(dir);
    d.used.insert(id);
    if (auto it = d.entries.find(id); it != d.entries.end()) return it->second;
    ++filesRead_;
    std::string hash = sha256Fd(fd);
    const int64_t now = std::chrono::duration_cast<std::chrono::nanoseconds>(now_().time_since_epoch()).count();
    const int64_t changed = std::max(nanos(id.mtimeSec, id.mtimeNsec), nanos(id.ctimeSec, id.ctimeNsec));
    if (hash.empty() || now - changed < std::chrono::nanoseconds(kHashCacheSettle).count()) return hash;
    // An earlier version of the same file is stale from now on.
    for (auto e = d.entries.begin(); e != d.entries.end();)
        e = e->first.device == id.device && e->first.inode == id.inode ? d.entries.erase(e) : std::next(e);
    d.entries[id] = hash;
    d.changed = true;
    return hash;
}

int HashCache::save() {
    int written = 0;
    for (auto& [dir, d] : dirs_) {
        if (!d.changed) continue;
        if (d.entries.size() > kMaxEntries)
            for (auto e = d.entries.begin(); e != d.entries.end();) e = d.used.count(e->first) ? std::next(e) : d.entries.erase(e);
        if (writeCache(dir, render(d.entries))) ++written;
        d.changed = false;
    }
    return written;
}

}  // namespace trainer::core::detail
