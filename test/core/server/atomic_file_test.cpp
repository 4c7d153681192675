// The one writer of private files: modes from creation, planted links never followed, every
// failing step reported with its path and errno text, nothing left behind on failure.
#include <boost/test/unit_test.hpp>

#include "core/server/atomic_file.hpp"
#include "core/server/certs.hpp"
#include "test_util.hpp"
#include "../../support/unprivileged.hpp"

#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <csignal>

using namespace trainer::core::server;
namespace fs = std::filesystem;
using trainer::test::readFile;
using trainer::test::tempDir;
using trainer::test::writeFile;

namespace {

unsigned modeOf(const fs::path& p) {
    struct stat st {};
    return ::lstat(p.c_str(), &st) == 0 ? unsigned(st.st_mode & 07777) : 01000000u;
}

// Names in `dir` starting with '.' and ending in ".tmp" that are not symlinks: leftovers.
std::vector<std::string> leftovers(const fs::path& dir) {
    std::vector<std::string> out;
    for (auto const& e : fs::directory_iterator(dir)) {
        auto name = e.path().filename().string();
        if (name.starts_with(".") && name.ends_with(".tmp") && !e.is_symlink()) out.push_back(name);
    }
    return out;
}

struct UmaskScope {
    explicit UmaskScope(mode_t mask) : old(::umask(mask)) {}
    ~UmaskScope() { ::umask(old); }
    mode_t old;
};

}  // namespace

BOOST_AUTO_TEST_SUITE(atomic_file)

BOOST_AUTO_TEST_CASE(writes_bytes_with_exactly_the_mode) {
    auto dir = tempDir("atomic-modes");
    for (mode_t mask : {mode_t(0), mode_t(022), mode_t(0777)}) {
        UmaskScope scope(mask);
        for (mode_t mode : {mode_t(0600), mode_t(0644), mode_t(0400)}) {
            BOOST_TEST_CONTEXT("umask " << std::oct << mask << " mode " << mode) {
                auto path = dir / ("f" + std::to_string(mode));
                auto r = writeFileAtomically(path, std::string("secret\0bytes", 12), {mode});
                BOOST_TEST_REQUIRE(r.ok(), r.error);
                BOOST_TEST(readFile(path) == std::string("secret\0bytes", 12));
                BOOST_TEST(modeOf(path) == unsigned(mode));
                BOOST_TEST(writeFileAtomically(path, "again", {mode}).ok());
                BOOST_TEST(readFile(path) == "again");
            }
        }
    }
    BOOST_TEST(leftovers(dir).empty());
}

// A planted temporary name or a symlink at the final name: the link's target is never written,
// the final name becomes a regular private file.
BOOST_AUTO_TEST_CASE(planted_symlinks_are_never_written_through) {
    auto dir = tempDir("atomic-links");
    auto victim = dir / "victim";
    writeFile(victim, "untouched");
    fs::create_symlink(victim, dir / ".key.tmp");
    fs::create_symlink(victim, dir / "key");
    auto r = writeFileAtomically(dir / "key", "PRIVATE KEY");
    BOOST_TEST_REQUIRE(r.ok(), r.error);
    BOOST_TEST(readFile(victim) == "untouched");
    BOOST_TEST(!fs::is_symlink(dir / "key"));
    BOOST_TEST(readFile(dir / "key") == "PRIVATE KEY");
    BOOST_TEST(modeOf(dir / "key") == 0600u);
    BOOST_TEST(fs::read_symlink(dir / ".key.tmp") == victim);
}

BOOST_AUTO_TEST_CASE(no_replace_keeps_an_existing_file) {
    auto dir = tempDir("atomic-noreplace");
    writeFile(dir / "key", "first");
    auto r = writeFileAtomically(dir / "key", "second", {0600, false});
    BOOST_TEST(!r.ok());
    BOOST_TEST(r.code == EEXIST);
    BOOST_TEST(r.error.find((dir / "key").string() + ": File exists") != std::string::npos, r.error);
    BOOST_TEST(readFile(dir / "key") == "first");
    BOOST_TEST(leftovers(dir).empty());
    BOOST_TEST(writeFileAtomically(dir / "new", "x", {0600, false}).ok());
}

BOOST_AUTO_TEST_CASE(every_failing_step_is_an_error_with_path_and_cause) {
    auto dir = tempDir("atomic-errors");
    struct Case {
        std::string name;
        fs::path target;
        std::string expected;
    };
    fs::create_directories(dir / "a-directory");
    writeFile(dir / "plain", "x");
    std::vector<Case> cases{
        {"missing directory", dir / "nope" / "key", "open directory " + (dir / "nope").string() + ": No such file or directory"},
        {"parent is a file", dir / "plain" / "key", "open directory " + (dir / "plain").string() + ": Not a directory"},
        {"target is a directory", dir / "a-directory", "rename "},
        {"no file name", dir / "", "not a file name"},
        // /proc refuses new files even to root: an unwritable directory for any user.
        {"unwritable directory", fs::path("/proc/self/key"), "create /proc/self/.key."},
    };
    for (auto const& c : cases) {
        BOOST_TEST_CONTEXT(c.name) {
            auto r = writeFileAtomically(c.target, "data");
            BOOST_TEST(!r.ok());
            BOOST_TEST(r.code != 0);
            BOOST_TEST(r.error.find(c.expected) != std::string::npos, r.error);
        }
    }
    BOOST_TEST(leftovers(dir).empty());
    BOOST_TEST(fs::is_directory(dir / "a-directory"));
    // A directory the writer may not write: as `nobody` (test/support/unprivileged.hpp), whom its
    // mode stops even when the suite runs as root.
    fs::create_directories(dir / "read-only");
    fs::permissions(dir / "read-only", fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec |
                                           fs::perms::others_read | fs::perms::others_exec);
    auto refused = trainer::test::asUnprivileged([&] {
        auto r = writeFileAtomically(dir / "read-only" / "key", "data");
        return (r.ok() ? std::string("written") : std::string("refused")) + ": " + r.error;
    });
    BOOST_TEST(refused.rfind("refused: ", 0) == 0u, refused);
    BOOST_TEST(refused.find("Permission denied") != std::string::npos, refused);
    BOOST_TEST(!fs::exists(dir / "read-only" / "key"));
}

// A write that fails half-way (the file size limit: EFBIG) leaves the old file and no temporary.
BOOST_AUTO_TEST_CASE(a_failed_write_keeps_the_old_file) {
    auto dir = tempDir("atomic-efbig");
    writeFile(dir / "key", "old");
    auto previous = std::signal(SIGXFSZ, SIG_IGN);
    rlimit old {};
    ::getrlimit(RLIMIT_FSIZE, &old);
    rlimit small = old;
    small.rlim_cur = 16;
    BOOST_TEST_REQUIRE(::setrlimit(RLIMIT_FSIZE, &small) == 0);
    auto r = writeFileAtomically(dir / "key", std::string(4096, 'k'));
    ::setrlimit(RLIMIT_FSIZE, &old);
    std::signal(SIGXFSZ, previous);
    BOOST_TEST(!r.ok());
    BOOST_TEST(r.code == EFBIG);
    BOOST_TEST(r.error.find("write " + (dir / ".key.").string()) == 0u, r.error);
    BOOST_TEST(r.error.find("File too large") != std::string::npos, r.error);
    BOOST_TEST(readFile(dir / "key") == "old");
    BOOST_TEST(leftovers(dir).empty());
}

BOOST_AUTO_TEST_CASE(new_files_refuse_existing_names_and_links) {
    auto dir = tempDir("atomic-new");
    UmaskScope scope(0);
    auto r = writeNewFile(dir / "a", "bytes", 0440);
    BOOST_TEST_REQUIRE(r.ok(), r.error);
    BOOST_TEST(modeOf(dir / "a") == 0440u);
    BOOST_TEST(readFile(dir / "a") == "bytes");
    BOOST_TEST(writeNewFile(dir / "a", "again", 0600).code == EEXIST);
    writeFile(dir / "victim", "untouched");
    fs::create_symlink(dir / "victim", dir / "link");
    BOOST_TEST(writeNewFile(dir / "link", "x", 0600).code == EEXIST);
    BOOST_TEST(readFile(dir / "victim") == "untouched");
}

BOOST_AUTO_TEST_CASE(private_directories_are_made_or_narrowed_to_0700) {
    auto dir = tempDir("atomic-dirs");
    UmaskScope scope(0);
    BOOST_TEST(ensurePrivateDirectory(dir / "x" / "y") == "");
    BOOST_TEST(modeOf(dir / "x" / "y") == 0700u);
    fs::create_directories(dir / "loose");
    fs::permissions(dir / "loose", fs::perms::all);
    BOOST_TEST(ensurePrivateDirectory(dir / "loose") == "");
    BOOST_TEST(modeOf(dir / "loose") == 0700u);
    writeFile(dir / "file", "x");
    BOOST_TEST(ensurePrivateDirectory(dir / "file").find("Not a directory") != std::string::npos);
}

// certs into a directory where someone planted the old temporary name and the key's name as
// symlinks: the key lands in a new private file, the links' target is untouched.
BOOST_AUTO_TEST_CASE(certificates_never_follow_planted_links) {
    auto dir = tempDir("atomic-certs");
    auto victim = dir / "victim";
    writeFile(victim, "untouched");
    fs::create_symlink(victim, dir / ".tls.key.tmp");
    fs::create_symlink(victim, dir / "tls.key");
    BOOST_TEST_REQUIRE(generateCertificates(dir.string(), CertOptions{}) == "");
    BOOST_TEST(readFile(victim) == "untouched");
    BOOST_TEST(!fs::is_symlink(dir / "tls.key"));
    BOOST_TEST(modeOf(dir / "tls.key") == 0600u);
    BOOST_TEST(readFile(dir / "tls.key").find("PRIVATE KEY") != std::string::npos);
    BOOST_TEST(leftovers(dir).empty());
}

BOOST_AUTO_TEST_SUITE_END()
