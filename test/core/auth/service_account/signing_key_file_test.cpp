// The signing key on disk: made once (0600, no temporary left behind), reused by the next
// issuer, and never replaced when what is there is unusable.
#include "token_fixture.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <fstream>

using namespace token_test;

namespace {

unsigned modeOf(const fs::path& p) {
    struct stat st {};
    BOOST_REQUIRE(::lstat(p.c_str(), &st) == 0);
    return st.st_mode & 07777;
}

fs::path keyFile(const fs::path& dir) { return dir / std::string(auth::kSigningKeyFileName); }

void writeKeyFile(const fs::path& dir, const std::string& text, unsigned mode = 0600) {
    fs::create_directories(dir);
    std::ofstream(keyFile(dir)) << text;
    BOOST_REQUIRE(::chmod(keyFile(dir).c_str(), mode) == 0);
}

// The error of opening an issuer over `dir` (which must fail), with the key file left as it was.
std::string openFails(const fs::path& dir) {
    std::string before = fs::is_regular_file(keyFile(dir)) ? trainer::test::slurp(keyFile(dir)) : "";
    std::string error;
    BOOST_TEST(!auth::ServiceAccountTokenIssuer::open(dir, error));
    BOOST_TEST(!error.empty());
    if (fs::is_regular_file(keyFile(dir))) BOOST_TEST(trainer::test::slurp(keyFile(dir)) == before);
    return error;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(signing_key_file)

BOOST_AUTO_TEST_CASE(key_is_created_private_and_reused_by_the_next_issuer) {
    TempDir dir;
    const fs::path keys = dir.path / "state" / "keys";
    std::string error;
    auto first = auth::ServiceAccountTokenIssuer::open(keys, error);
    BOOST_REQUIRE_MESSAGE(first, error);
    BOOST_TEST(modeOf(keyFile(keys)) == 0600u);
    BOOST_TEST(modeOf(keys) == 0700u);
    std::vector<std::string> names;
    for (auto const& e : fs::directory_iterator(keys)) names.push_back(e.path().filename().string());
    BOOST_TEST(names == std::vector<std::string>{std::string(auth::kSigningKeyFileName)}, "no temporary file is left");
    const std::string pem = trainer::test::slurp(keyFile(keys));
    BOOST_TEST(pem.rfind("-----BEGIN PRIVATE KEY-----", 0) == 0);

    controller::FakeClock clock;
    auto token = first->mint(binding(), clock.now());
    BOOST_REQUIRE(token.ok());
    first.reset();
    auto second = auth::ServiceAccountTokenIssuer::open(keys, error);
    BOOST_REQUIRE_MESSAGE(second, error);
    BOOST_TEST(trainer::test::slurp(keyFile(keys)) == pem, "the key file is not rewritten");
    auto verified = second->verify(token.token, auth::tokenAudience("team", "job"), clock.now());
    BOOST_TEST(verified.ok(), verified.error);
    BOOST_TEST(second->mint(binding(), clock.now()).token != token.token);  // a fresh jti
}

BOOST_AUTO_TEST_CASE(two_directories_have_two_keys) {
    TempDir dir;
    std::string error;
    auto a = auth::ServiceAccountTokenIssuer::open(dir.path / "a", error);
    auto b = auth::ServiceAccountTokenIssuer::open(dir.path / "b", error);
    BOOST_REQUIRE(a);
    BOOST_REQUIRE(b);
    BOOST_TEST(a->keyId() != b->keyId());
    controller::FakeClock clock;
    auto v = b->verify(a->mint(binding(), clock.now()).token, auth::tokenAudience("team", "job"), clock.now());
    BOOST_TEST(!v.ok());
    BOOST_TEST(v.error == "the header's kid is not this issuer's key");
}

BOOST_AUTO_TEST_CASE(corrupt_key_file_is_an_error_and_stays) {
    TempDir dir;
    writeKeyFile(dir.path, "-----BEGIN PRIVATE KEY-----\nnot base64\n-----END PRIVATE KEY-----\n");
    std::string error = openFails(dir.path);
    BOOST_TEST(error.find(keyFile(dir.path).string() + ": not a PEM private key") == 0, error);
    BOOST_TEST(error.find("remove the file to make a new key") != std::string::npos, error);
    writeKeyFile(dir.path, "");
    BOOST_TEST(openFails(dir.path).find("not a PEM private key") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(readable_by_others_symlink_directory_and_huge_files_are_errors) {
    TempDir dir;
    std::string error;
    BOOST_REQUIRE(auth::ServiceAccountTokenIssuer::open(dir.path / "good", error));
    const std::string pem = trainer::test::slurp(keyFile(dir.path / "good"));

    writeKeyFile(dir.path / "open", pem, 0644);
    BOOST_TEST(openFails(dir.path / "open") == keyFile(dir.path / "open").string() +
                                                   " is accessible by group or others (mode 0644, want 0600)");
    fs::create_directories(dir.path / "link");
    fs::create_symlink(keyFile(dir.path / "good"), keyFile(dir.path / "link"));
    BOOST_TEST(openFails(dir.path / "link") == keyFile(dir.path / "link").string() + " is a symbolic link");
    BOOST_TEST(fs::is_symlink(keyFile(dir.path / "link")));
    fs::create_directories(keyFile(dir.path / "dir"));
    BOOST_TEST(openFails(dir.path / "dir") == keyFile(dir.path / "dir").string() + " is not a regular file");
    writeKeyFile(dir.path / "huge", std::string(65 * 1024, 'k'));
    BOOST_TEST(openFails(dir.path / "huge") == keyFile(dir.path / "huge").string() + " is larger than 64 KiB");
}

BOOST_AUTO_TEST_CASE(key_directory_through_a_symlink_or_under_a_file_is_an_error) {
    TempDir dir;
    fs::create_directories(dir.path / "real");
    fs::create_directory_symlink(dir.path / "real", dir.path / "alias");
    std::string error;
    BOOST_TEST(!auth::ServiceAccountTokenIssuer::open(dir.path / "alias", error));
    BOOST_TEST(error.rfind("open directory " + (dir.path / "alias").string() + ": ", 0) == 0, error);
    BOOST_TEST(fs::is_empty(dir.path / "real"));
    std::ofstream(dir.path / "file") << "x";
    error.clear();
    BOOST_TEST(!auth::ServiceAccountTokenIssuer::open(dir.path / "file" / "keys", error));
    BOOST_TEST(!error.empty());
}

BOOST_AUTO_TEST_SUITE_END()
