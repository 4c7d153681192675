#include <boost/test/unit_test.hpp>

#include "core/server/sha256.hpp"

#include <string>

using namespace trainer::core::server;

namespace {
std::string hexOf(std::string_view text) {
    std::string out;
    const Sha256Digest d = sha256(text);
    appendHex(out, d.data(), d.size());
    return out;
}
}  // namespace

BOOST_AUTO_TEST_SUITE(sha256_digest)

// FIPS 180-2's examples (and what `sha256sum` prints for the same bytes).
BOOST_AUTO_TEST_CASE(known_digests) {
    BOOST_TEST(hexOf("") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    BOOST_TEST(hexOf("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    BOOST_TEST(hexOf("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq") ==
               "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
    std::string zeros(1000, '\0');
    BOOST_TEST(hexOf(zeros) == "541b3e9daa09b20bf85fa273e5cbd3e80185aa4ec298e765db87742b70138a53");
}

BOOST_AUTO_TEST_CASE(hex_appends_two_digits_per_byte) {
    const unsigned char bytes[] = {0x00, 0x0f, 0xa5, 0xff};
    std::string out = "x";
    appendHex(out, bytes, sizeof bytes);
    BOOST_TEST(out == "x000fa5ff");
}

BOOST_AUTO_TEST_SUITE_END()
