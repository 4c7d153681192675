// The sha256 of plugin files, remembered between start-ups (issue 14, P3). Every file is hashed
// before it loads (pins, and the shipped manifest that decides where its code runs), and reading
// every byte of 200 plugins costs more than dlopen'ing them. A plugin directory's cache file
// (kHashCacheFile) maps a file's identity (device, inode, size, mtime, ctime) to its hash, as
// git's index does, so an unchanged file is not read again.
//
// Why an entry can be trusted:
// - The cache file lives in the plugin directory and is read only when it passes the same checks
//   as a plugin file (owned by root or the operator's user, writable by no one else; the
//   directory itself passed them before any file loads). Whoever can write it can replace the
//   plugins themselves: it grants nothing new.
// - A file's content cannot change without its ctime changing, and ctime cannot be set from user
//   space (only by moving the system clock, which takes root); a replaced file has a new inode.
// - Timestamps are coarse (a clock tick), so a file changed twice within one tick keeps its
//   ctime: a file changed less than kHashCacheSettle ago is hashed but not remembered
//   ("racily clean" in git's terms).
// A directory the operator cannot write (a read-only image) keeps no cache: every file is hashed,
// as without one. Nothing fails because of the cache: an unreadable, untrusted or malformed
// cache file is ignored whole, and a failed write leaves the directory as it was.
#pragma once

#include <sys/stat.h>

#include <array>
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <tuple>
#include <unordered_map>

namespace trainer::core::detail {

inline constexpr std::string_view kHashCacheFile = ".sha256-cache";
inline constexpr std::chrono::seconds kHashCacheSettle{2};

// What a cache entry is keyed by: the file's identity as fstat reports it.
struct FileIdentity {
    uint64_t device = 0, inode = 0, size = 0;
    int64_t mtimeSec = 0, mtimeNsec = 0, ctimeSec = 0, ctimeNsec = 0;

    static FileIdentity of(const struct stat& st);
    auto tie() const { return std::tie(device, inode, size, mtimeSec, mtimeNsec, ctimeSec, ctimeNsec); }
    bool operator<(const FileIdentity& o) const { return tie() < o.tie(); }
    bool operator==(const FileIdentity& o) const { return tie() == o.tie(); }
    struct Hash {
        size_t operator()(const FileIdentity& id) const;
    };
};

// A remembered hash, and whether this start-up looked it up.
struct CachedHash {
    std::array<char, 64> sha256{};  // lowercase hex, as isSha256Hex checks: no allocation per entry
    bool used = false;

    std::string hex() const { return std::string(sha256.data(), sha256.size()); }
    static CachedHash of(std::string_view hex, bool used) {
        CachedHash c;
        c.used = used;
        hex.copy(c.sha256.data(), c.sha256.size());
        return c;
    }
};
using HashEntries = std::unordered_map<FileIdentity, CachedHash, FileIdentity::Hash>;

class HashCache {
public:
    using WallClock = std::function<std::chrono::system_clock::time_point()>;
    explicit HashCache(WallClock now = std::chrono::system_clock::now) : now_(std::move(now)) {}

    // The sha256 (lowercase hex) of the open file `fd`, which lives in directory `dir`: the
    // remembered one when its identity is unchanged, else read from the descriptor (sha256Fd)
    // and remembered unless it changed within kHashCacheSettle. "" when it cannot be read.
    std::string sha256(std::string_view dir, int fd);
    // The same, `st` being the descriptor's fstat already taken (TrustedFile::status()).
    std::string sha256(std::string_view dir, int fd, const struct stat& st);
    // Writes the cache of every directory whose entries changed (a temporary file renamed over
    // the old one, mode 0600). Returns how many were written.
    int save();
    // Files hashed (not found in a cache) since construction: what tests and the benchmark check.
    int filesRead() const { return filesRead_; }

private:
    struct Directory {
        HashEntries entries;
        bool changed = false;
    };
    Directory& directory(std::string_view dir);

    WallClock now_;
    std::map<std::string, Directory, std::less<>> dirs_;
    int filesRead_ = 0;
};

}  // namespace trainer::core::detail
