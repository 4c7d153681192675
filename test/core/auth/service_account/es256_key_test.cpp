// base64url and the ES256 key, checked against openssl(1) as an independent implementation.
#define BOOST_TEST_MODULE core_auth_service_account
#include "token_fixture.hpp"

#include <fstream>

using namespace token_test;

namespace {

// One DER INTEGER of an unsigned big-endian number (leading zeros dropped, 0x00 added before a
// high bit): written here by hand so the check does not reuse OpenSSL's encoder.
std::string derInteger(std::string bytes) {
    while (bytes.size() > 1 && bytes[0] == '\0') bytes.erase(0, 1);
    if (static_cast<unsigned char>(bytes[0]) & 0x80) bytes.insert(0, 1, '\0');
    return std::string{'\x02', static_cast<char>(bytes.size())} + bytes;
}

// The DER ECDSA-Sig-Value of a JWS ES256 signature R || S.
std::string rawToDer(const std::string& raw) {
    std::string body = derInteger(raw.substr(0, 32)) + derInteger(raw.substr(32));
    return std::string{'\x30', static_cast<char>(body.size())} + body;
}

void writeFile(const fs::path& p, const std::string& bytes) {
    std::ofstream out(p, std::ios::binary);
    out.write(bytes.data(), std::streamsize(bytes.size()));
}

// `openssl dgst -sha256 -verify` of `signature` (raw R || S) over `data` with `publicPem`.
trainer::test::Result opensslVerify(const TempDir& dir, const std::string& publicPem, const std::string& data,
                                    const std::string& signature) {
    writeFile(dir.path / "pub.pem", publicPem);
    writeFile(dir.path / "data", data);
    writeFile(dir.path / "sig.der", rawToDer(signature));
    return trainer::test::sh("openssl dgst -sha256 -verify " + (dir.path / "pub.pem").string() + " -signature " +
                             (dir.path / "sig.der").string() + " " + (dir.path / "data").string());
}

}  // namespace

BOOST_AUTO_TEST_SUITE(base64url)

BOOST_AUTO_TEST_CASE(round_trips_every_length_and_byte) {
    std::string bytes;
    for (int i = 0; i < 300; ++i) {
        BOOST_TEST_CONTEXT("length " << bytes.size()) {
            auto text = auth::base64UrlEncode(bytes);
            BOOST_TEST(text.find_first_of("+/=") == std::string::npos);
            BOOST_TEST((auth::base64UrlDecode(text) == std::optional<std::string>(bytes)));
        }
        bytes.push_back(static_cast<char>(i * 37));
    }
    BOOST_TEST(auth::base64UrlEncode("\xfb\xff") == "-_8");
}

BOOST_AUTO_TEST_CASE(rejects_padding_other_alphabets_and_non_canonical_text) {
    for (std::string bad : {"QQ==", "QQ=", "+/8", "a b", "A", "AAAAA", "QR", "QUJ", "eyJ\n"})
        BOOST_TEST(!auth::base64UrlDecode(bad).has_value(), bad);
    BOOST_TEST((auth::base64UrlDecode("QQ") == std::optional<std::string>("A")));
    BOOST_TEST((auth::base64UrlDecode("") == std::optional<std::string>("")));
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(es256_key)

BOOST_AUTO_TEST_CASE(signature_verifies_here_and_with_openssl) {
    std::string error;
    auto key = auth::Es256Key::generate(error);
    BOOST_REQUIRE_MESSAGE(key, error);
    TempDir dir;
    // Several signatures: some R or S have a high bit or a leading zero byte.
    for (int i = 0; i < 8; ++i) {
        std::string data = "header.payload-" + std::to_string(i);
        std::string sig = key->sign(data);
        BOOST_REQUIRE_EQUAL(sig.size(), 64u);
        BOOST_TEST(key->verify(data, sig));
        BOOST_TEST(!key->verify(data + "x", sig));
        auto r = opensslVerify(dir, key->publicPem(), data, sig);
        BOOST_TEST(r.exit == 0, "openssl: " << r.out << r.err);
        BOOST_TEST(r.out.find("Verified OK") != std::string::npos, r.out);
        std::string flipped = sig;
        flipped[10] ^= 1;
        BOOST_TEST(!key->verify(data, flipped));
        BOOST_TEST(opensslVerify(dir, key->publicPem(), data, flipped).exit != 0);
    }
    BOOST_TEST(!key->verify("x", std::string(64, '\0')));
    BOOST_TEST(!key->verify("x", std::string(63, 'a')));
}

BOOST_AUTO_TEST_CASE(key_id_is_the_sha256_of_the_public_key_der) {
    std::string error;
    auto key = auth::Es256Key::generate(error);
    BOOST_REQUIRE(key);
    TempDir dir;
    writeFile(dir.path / "pub.pem", key->publicPem());
    auto r = trainer::test::sh("openssl pkey -pubin -in " + (dir.path / "pub.pem").string() +
                               " -outform DER | openssl dgst -sha256 -binary | base64 -w0 | tr '+/' '-_' | tr -d '='");
    BOOST_REQUIRE(r.exit == 0);
    BOOST_TEST(key->keyId() == r.out);
    BOOST_TEST(key->keyId().size() == 43u);
}

BOOST_AUTO_TEST_CASE(private_pem_round_trips_and_other_keys_are_refused) {
    std::string error;
    auto key = auth::Es256Key::generate(error);
    BOOST_REQUIRE(key);
    auto again = auth::Es256Key::fromPrivatePem(key->privatePem(), error);
    BOOST_REQUIRE_MESSAGE(again, error);
    BOOST_TEST(again->keyId() == key->keyId());
    BOOST_TEST(again->verify("d", key->sign("d")));
    TempDir dir;
    auto rsa = trainer::test::sh("openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048 2>/dev/null");
    auto p384 = trainer::test::sh("openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-384");
    BOOST_REQUIRE(rsa.exit == 0);
    BOOST_REQUIRE(p384.exit == 0);
    auto encrypted = trainer::test::sh(
        "openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -aes256 -pass pass:secret");
    BOOST_REQUIRE(encrypted.exit == 0);
    error.clear();
    BOOST_TEST(!auth::Es256Key::fromPrivatePem(encrypted.out, error));  // refused, never a prompt
    BOOST_TEST(error.rfind("not a PEM private key", 0) == 0, error);
    for (auto const& pem : {rsa.out, p384.out}) {
        error.clear();
        BOOST_TEST(!auth::Es256Key::fromPrivatePem(pem, error));
        BOOST_TEST(error == "the key is not an ECDSA P-256 key");
    }
    for (std::string bad : {std::string(), std::string("garbage"), key->privatePem().substr(0, 100), key->publicPem()}) {
        error.clear();
        BOOST_TEST(!auth::Es256Key::fromPrivatePem(bad, error));
        BOOST_TEST(error.rfind("not a PEM private key", 0) == 0, error);
    }
}

BOOST_AUTO_TEST_SUITE_END()
