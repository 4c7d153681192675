// The plugin directory's hash cache (core/plugin/hash_cache.hpp, issue 14 P3): an unchanged
// file is not read again, a changed one always is, a file changed within the settle time is not
// remembered, and a cache file that is untrusted or cut short is ignored whole.
#define BOOST_TEST_MODULE test_core_plugin_hash_cache
#include <boost/test/unit_test.hpp>

#include "test_support.hpp"

#include "core/plugin/hash_cache.hpp"
#include "core/plugin/registry_internal.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <thread>

using namespace trainer::core;
using detail::HashCache;
using std::chrono::system_clock;

namespace {

struct File {
    std::string path;
    int fd = -1;
    explicit File(std::string p) : path(std::move(p)), fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC)) {
        BOOST_REQUIRE_MESSAGE(fd >= 0, "cannot open " + path);
    }
    ~File() { ::close(fd); }
    system_clock::time_point changed() const {
        struct stat st {};
        BOOST_REQUIRE(::fstat(fd, &st) == 0);
        auto ns = [](const timespec& t) { return std::chrono::seconds(t.tv_sec) + std::chrono::nanoseconds(t.tv_nsec); };
        return system_clock::time_point(std::chrono::duration_cast<system_clock::duration>(std::max(ns(st.st_mtim), ns(st.st_ctim))));
    }
};

// A clock `after` past the file's last change.
HashCache::WallClock settled(const File& f, std::chrono::milliseconds after) {
    const auto t = f.changed() + after;
    return [t] { return t; };
}

std::string cachePath(const PluginDir& d) { return (d.dir / std::string(detail::kHashCacheFile)).string(); }

// Rewrites one byte in place, keeping the size and putting the mtime back: only ctime moves.
void tamper(const std::string& path) {
    struct stat st {};
    BOOST_REQUIRE(::stat(path.c_str(), &st) == 0);
    int fd = ::open(path.c_str(), O_RDWR | O_CLOEXEC);
    BOOST_REQUIRE(fd >= 0);
    char byte = 0;
    BOOST_REQUIRE(::pread(fd, &byte, 1, 100) == 1);
    byte = static_cast<char>(byte ^ 0x5a);
    BOOST_REQUIRE(::pwrite(fd, &byte, 1, 100) == 1);
    const timespec times[2] = {st.st_atim, st.st_mtim};
    BOOST_REQUIRE(::futimens(fd, times) == 0);
    ::close(fd);
}

// Remembers f's hash in d's cache file (a settled file) and returns the file's text.
std::string cacheOnce(const PluginDir& d, const File& f) {
    HashCache cache(settled(f, std::chrono::seconds(10)));
    cache.sha256(d.dir.string(), f.fd);
    BOOST_REQUIRE(cache.save() == 1);
    std::ifstream in(cachePath(d));
    return std::string(std::istreambuf_iterator<char>(in), {});
}

// A directory with one file, "alpha", whose hash its cache file already remembers.
struct CachedAlpha {
    PluginDir d{{"alpha"}};
    const std::string dir = d.dir.string();
    File f{d.path("alpha")};
    const std::string truth = detail::sha256Fd(f.fd);
    const std::string text = cacheOnce(d, f);  // the cache file as written
};

}  // namespace

BOOST_AUTO_TEST_CASE(an_unchanged_file_is_read_once_across_start_ups) {
    PluginDir d({"alpha"});
    const std::string dir = d.dir.string();
    File f(d.path("alpha"));
    const std::string truth = detail::sha256Fd(f.fd);
    BOOST_REQUIRE_EQUAL(truth.size(), 64u);

    HashCache first(settled(f, std::chrono::seconds(10)));
    BOOST_TEST(first.sha256(dir, f.fd) == truth);
    BOOST_TEST(first.filesRead() == 1);
    BOOST_TEST(first.sha256(dir, f.fd) == truth);
    BOOST_TEST(first.filesRead() == 1);
    BOOST_TEST(first.save() == 1);
    struct stat st {};
    BOOST_REQUIRE(::stat(cachePath(d).c_str(), &st) == 0);
    BOOST_TEST((st.st_mode & 07777) == 0600u);

    HashCache second(settled(f, std::chrono::seconds(20)));
    BOOST_TEST(second.sha256(dir, f.fd) == truth);
    BOOST_TEST(second.filesRead() == 0);
    BOOST_TEST(second.save() == 0);  // nothing new: not rewritten
}

BOOST_AUTO_TEST_CASE(a_file_changed_in_place_is_read_again) {
    PluginDir d({"alpha"});
    const std::string dir = d.dir.string();
    {
        File f(d.path("alpha"));
        HashCache cache(settled(f, std::chrono::seconds(10)));
        cache.sha256(dir, f.fd);
        BOOST_REQUIRE(cache.save() == 1);
    }
    tamper(d.path("alpha"));  // same size, same mtime: only its ctime tells
    File f(d.path("alpha"));
    const std::string truth = detail::sha256Fd(f.fd);
    HashCache after(settled(f, std::chrono::seconds(10)));
    BOOST_TEST(after.sha256(dir, f.fd) == truth);
    BOOST_TEST(after.filesRead() == 1);
    BOOST_TEST(after.save() == 1);  // the new version replaces the old one

    HashCache again(settled(f, std::chrono::seconds(30)));
    BOOST_TEST(again.sha256(dir, f.fd) == truth);
    BOOST_TEST(again.filesRead() == 0);
}

BOOST_AUTO_TEST_CASE(a_file_changed_within_the_settle_time_is_not_remembered) {
    PluginDir d({"alpha"});
    File f(d.path("alpha"));
    HashCache cache(settled(f, std::chrono::milliseconds(500)));
    BOOST_TEST(cache.sha256(d.dir.string(), f.fd) == detail::sha256Fd(f.fd));
    BOOST_TEST(cache.save() == 0);
    BOOST_TEST(!fs::exists(cachePath(d)));
}

BOOST_FIXTURE_TEST_CASE(an_untrusted_or_cut_short_cache_is_ignored, CachedAlpha) {
    // Writable by the group: not trusted, so not read.
    BOOST_REQUIRE(::chmod(cachePath(d).c_str(), 0660) == 0);
    {
        HashCache cache(settled(f, std::chrono::seconds(10)));
        BOOST_TEST(cache.sha256(dir, f.fd) == truth);
        BOOST_TEST(cache.filesRead() == 1);
    }
    // Without its closing count line (a write cut short): ignored whole.
    BOOST_REQUIRE(::chmod(cachePath(d).c_str(), 0600) == 0);
    BOOST_REQUIRE(text.find("\nend 1\n") != std::string::npos);
    d.writeText(std::string(detail::kHashCacheFile), text.substr(0, text.find("end 1\n")));
    HashCache cache(settled(f, std::chrono::seconds(10)));
    BOOST_TEST(cache.sha256(dir, f.fd) == truth);
    BOOST_TEST(cache.filesRead() == 1);
}

// Every malformed line spoils the whole file: a missing or extra field, a bad hash, a count that
// does not match; the same file written correctly is used (the file is not read again).
BOOST_FIXTURE_TEST_CASE(a_malformed_cache_line_spoils_the_whole_cache, CachedAlpha) {
    const std::string& good = text;
    const size_t line = good.find('\n') + 1, hashAt = good.find(truth);
    BOOST_REQUIRE(hashAt != std::string::npos);
    const std::string head = good.substr(0, line), entry = good.substr(line, hashAt + 64 - line), tail = "\nend 1\n";
    BOOST_REQUIRE_EQUAL(head + entry + tail, good);
    const std::string fields7 = entry.substr(0, entry.rfind(' '));  // the hash dropped
    const std::string bad[] = {
        head + fields7 + tail,                                    // seven fields
        head + entry + " 9" + tail,                               // nine fields
        head + fields7 + " " + std::string(64, 'G') + tail,       // not a hash
        head + entry + "\nend 2\n",                               // count off by one
        head + entry + "\n" + entry + "\nend 1\n",                 // two lines counted as one
        head + entry + tail.substr(0, tail.size() - 1),           // no final newline
        head + "end 0",                                           // cut inside the count line
    };
    for (auto const& text : bad) {
        d.writeText(std::string(detail::kHashCacheFile), text);
        HashCache cache(settled(f, std::chrono::seconds(10)));
        BOOST_TEST(cache.sha256(dir, f.fd) == truth);
        BOOST_TEST(cache.filesRead() == 1, "a malformed cache was used: " << text);
    }
    d.writeText(std::string(detail::kHashCacheFile), good);
    HashCache cache(settled(f, std::chrono::seconds(10)));
    BOOST_TEST(cache.sha256(dir, f.fd) == truth);
    BOOST_TEST(cache.filesRead() == 0);
}

// A cache line's and a manifest line's hash: exactly 64 lowercase hex digits. Each character just
// outside the ranges ('/' ':' '`' 'g', upper case, a byte with the high bit set) is refused.
BOOST_AUTO_TEST_CASE(a_hash_is_64_lowercase_hex_digits) {
    const std::string good = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";
    BOOST_TEST(detail::isSha256Hex(good));
    BOOST_TEST(!detail::isSha256Hex(good.substr(1)));
    BOOST_TEST(!detail::isSha256Hex(good + "0"));
    BOOST_TEST(!detail::isSha256Hex(""));
    for (char bad : {'/', ':', '`', 'g', 'A', 'F', ' ', '\0', static_cast<char>('0' + 0x80), static_cast<char>('a' + 0x80)})
        for (size_t at : {size_t{0}, size_t{31}, size_t{63}}) {
            std::string s = good;
            s[at] = bad;
            BOOST_TEST(!detail::isSha256Hex(s), "character " << int(static_cast<unsigned char>(bad)) << " at " << at);
        }
}

// The registry's own use: a second start-up over the same settled files reads none of them and
// reports the same sha256 as sha256sum would.
BOOST_AUTO_TEST_CASE(the_registry_reads_settled_files_once) {
    PluginDir d({"alpha", "beta"});
    // Wait for the copies to settle (the event itself, with a generous bound).
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    for (auto const& name : {"alpha", "beta"}) {
        File f(d.path(name));
        while (system_clock::now() - f.changed() < detail::kHashCacheSettle + std::chrono::milliseconds(100)) {
            BOOST_REQUIRE(std::chrono::steady_clock::now() < deadline);
            std::this_thread::sleep_for(std::chrono::milliseconds(100));
        }
    }
    std::map<std::string, std::string> hashes;
    {
        PluginRegistry first;
        first.loadDirectory(d.dir.string(), testOptions());
        BOOST_REQUIRE_EQUAL(first.plugins().size(), 2u);
        BOOST_TEST(first.filesHashed() == 2);
        for (auto const& p : first.plugins()) hashes[p->name] = p->sha256;
    }
    PluginRegistry second;
    second.loadDirectory(d.dir.string(), testOptions());
    BOOST_REQUIRE_EQUAL(second.plugins().size(), 2u);
    BOOST_TEST(second.filesHashed() == 0);
    for (auto const& p : second.plugins()) {
        File f(p->path);
        BOOST_TEST(p->sha256 == hashes[p->name]);
        BOOST_TEST(p->sha256 == detail::sha256Fd(f.fd));
    }
}
