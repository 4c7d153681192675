// The SSH Secret checked with real clients: ssh-keygen and openssl must accept the key.
#include <boost/test/unit_test.hpp>

#include "mpi.hpp"
#include "ssh_key.hpp"

#include <trainer/testing.hpp>

#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/encoder.h>
#include <openssl/evp.h>

#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <memory>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>

namespace mpi = trainer::plugins::mpi;
namespace sdk = trainer::sdk;
namespace json = boost::json;

namespace {

std::string base64Decode(std::string_view in) {
    std::string out(in.size() / 4 * 3 + 3, '\0');
    int n = EVP_DecodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                            reinterpret_cast<const unsigned char*>(in.data()), static_cast<int>(in.size()));
    if (n < 0) return "<invalid base64>";
    size_t pad = 0;
    if (!in.empty() && in.back() == '=') ++pad;
    if (in.size() > 1 && in[in.size() - 2] == '=') ++pad;
    out.resize(static_cast<size_t>(n) - pad);
    return out;
}

std::vector<std::string> fields(const std::string& s) {
    std::istringstream in(s);
    std::vector<std::string> out;
    for (std::string f; in >> f;) out.push_back(f);
    return out;
}

struct Command {
    int status;
    std::string out;
};
Command runCommand(const std::string& cmd) {
    Command r{-1, {}};
    FILE* p = popen(cmd.c_str(), "r");
    if (!p) return r;
    std::array<char, 4096> buf{};
    size_t n;
    while ((n = fread(buf.data(), 1, buf.size(), p)) > 0) r.out.append(buf.data(), n);
    r.status = pclose(p);
    return r;
}

// A private temp file (mode 0600) holding `content`, removed at scope exit.
struct TempKeyFile {
    std::string path;
    explicit TempKeyFile(const std::string& content) {
        std::string tmpl = "/tmp/mpi-test-key-XXXXXX";
        int fd = mkstemp(tmpl.data());
        BOOST_TEST_REQUIRE(fd >= 0);
        BOOST_TEST_REQUIRE(fchmod(fd, 0600) == 0);
        BOOST_TEST_REQUIRE(write(fd, content.data(), content.size()) == static_cast<ssize_t>(content.size()));
        close(fd);
        path = tmpl;
    }
    ~TempKeyFile() { std::remove(path.c_str()); }
};

json::object minimalInfo() {
    return json::parse(R"({"infoVersion":1,
        "trainJob":{"metadata":{"name":"job","namespace":"ns","uid":"u1"},"spec":{}},
        "runtimePolicy":{"mlPolicy":{"mpi":{"numProcPerNode":1,"mpiImplementation":"OpenMPI",
                         "sshAuthMountPath":"/root/.ssh","runLauncherAsNode":false}}},
        "jobSetSpec":{"replicatedJobs":[]},"podSets":[]})")
        .as_object();
}

struct Built {
    std::string privatePem, publicLine;
    std::vector<std::string> said;  // every log line and diagnostic
};
Built buildSecret() {
    sdk::testing::Host host;
    auto ctx = host.context("mpi");
    mpi::MpiPlugin plugin(json::object{}, ctx);
    sdk::Objects objects(ctx);
    plugin.build(sdk::Info(minimalInfo()), objects, ctx);
    Built b;
    for (auto const& o : host.emitted)
        if (o.at("kind").as_string() == "Secret") {
            auto const& data = o.at("data").as_object();
            b.privatePem = base64Decode(data.at("ssh-privatekey").as_string());
            b.publicLine = base64Decode(data.at("ssh-publickey").as_string());
        }
    b.said = host.logs;
    for (auto const& d : host.diagnostics) b.said.push_back(d.path + " " + d.message);
    return b;
}

}  // namespace

BOOST_AUTO_TEST_CASE(secret_key_accepted_by_ssh_keygen_and_openssl) {
    Built b = buildSecret();
    BOOST_TEST_REQUIRE(!b.privatePem.empty());
    BOOST_TEST(b.privatePem.rfind("-----BEGIN EC PRIVATE KEY-----\n", 0) == 0u);
    BOOST_TEST(b.privatePem.find("-----END EC PRIVATE KEY-----") != std::string::npos);
    BOOST_TEST(b.publicLine.rfind("ecdsa-sha2-nistp521 ", 0) == 0u);
    BOOST_TEST(b.publicLine.back() == '\n');

    TempKeyFile key(b.privatePem);
    auto derived = runCommand("ssh-keygen -y -f " + key.path + " 2>&1");
    BOOST_TEST_REQUIRE(derived.status == 0, derived.out);
    auto got = fields(derived.out), want = fields(b.publicLine);
    BOOST_TEST_REQUIRE(got.size() >= 2u);
    BOOST_TEST_REQUIRE(want.size() == 2u);
    BOOST_TEST(got[0] == want[0]);
    BOOST_TEST(got[1] == want[1]);

    auto text = runCommand("openssl ec -in " + key.path + " -noout -text 2>&1");
    BOOST_TEST_REQUIRE(text.status == 0, text.out);
    BOOST_TEST(text.out.find("Private-Key: (521 bit)") != std::string::npos, text.out);
    BOOST_TEST(text.out.find("NIST CURVE: P-521") != std::string::npos);
    BOOST_TEST(text.out.find("ASN1 OID: secp521r1") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(public_key_wire_blob_layout) {
    std::string err;
    auto keys = mpi::generateSshKeyPair(err);
    BOOST_TEST_REQUIRE(keys.has_value(), err);
    auto f = fields(keys->authorizedKey);
    BOOST_TEST_REQUIRE(f.size() == 2u);
    std::string blob = base64Decode(f[1]);
    // string "ecdsa-sha2-nistp521", string "nistp521", string Q (0x04 || X || Y, 133 bytes).
    auto u32 = [&](size_t at) {
        return (uint32_t(uint8_t(blob[at])) << 24) | (uint32_t(uint8_t(blob[at + 1])) << 16) |
               (uint32_t(uint8_t(blob[at + 2])) << 8) | uint32_t(uint8_t(blob[at + 3]));
    };
    BOOST_TEST_REQUIRE(blob.size() == 4u + 19 + 4 + 8 + 4 + 133);
    BOOST_TEST(u32(0) == 19u);
    BOOST_TEST(blob.substr(4, 19) == "ecdsa-sha2-nistp521");
    BOOST_TEST(u32(23) == 8u);
    BOOST_TEST(blob.substr(27, 8) == "nistp521");
    BOOST_TEST(u32(35) == 133u);
    BOOST_TEST(int(uint8_t(blob[39])) == 4);
}

BOOST_AUTO_TEST_CASE(two_builds_give_different_keys) {
    Built a = buildSecret(), b = buildSecret();
    BOOST_TEST_REQUIRE(!a.privatePem.empty());
    BOOST_TEST(a.privatePem != b.privatePem);
    BOOST_TEST(a.publicLine != b.publicLine);
}

BOOST_AUTO_TEST_CASE(key_material_never_logged) {
    Built b = buildSecret();
    BOOST_TEST_REQUIRE(!b.privatePem.empty());
    // The PEM body line after the header, and the public key's base64 field.
    std::string body = b.privatePem.substr(b.privatePem.find('\n') + 1, 40);
    std::string pub = fields(b.publicLine).at(1).substr(20, 40);
    for (auto const& line : b.said) {
        BOOST_TEST(line.find(body) == std::string::npos);
        BOOST_TEST(line.find(pub) == std::string::npos);
        BOOST_TEST(line.find("PRIVATE KEY") == std::string::npos);
    }
}

// The hand-written SEC1 PEM is byte for byte what OpenSSL's own encoder writes for the same key
// (a P-521 scalar's top byte holds one bit, so about half the keys have a leading zero byte and
// exercise the padding).
BOOST_AUTO_TEST_CASE(sec1_pem_equals_openssl_encoder_output) {
    int leadingZero = 0;
    for (int i = 0; i < 200; ++i) {
        std::unique_ptr<EVP_PKEY, decltype(&EVP_PKEY_free)> key(EVP_PKEY_Q_keygen(nullptr, nullptr, "EC", "P-521"),
                                                                &EVP_PKEY_free);
        BOOST_TEST_REQUIRE(key.get() != nullptr);
        std::unique_ptr<OSSL_ENCODER_CTX, decltype(&OSSL_ENCODER_CTX_free)> enc(
            OSSL_ENCODER_CTX_new_for_pkey(key.get(), EVP_PKEY_KEYPAIR, "PEM", "type-specific", nullptr),
            &OSSL_ENCODER_CTX_free);
        BOOST_TEST_REQUIRE(OSSL_ENCODER_CTX_get_num_encoders(enc.get()) > 0);
        unsigned char* data = nullptr;
        size_t len = 0;
        BOOST_TEST_REQUIRE(OSSL_ENCODER_to_data(enc.get(), &data, &len) == 1);
        std::string want(reinterpret_cast<const char*>(data), len);
        OPENSSL_free(data);
        std::string error;
        auto got = mpi::encodeSec1Pem(key.get(), error);
        BOOST_TEST_REQUIRE(got.has_value(), error);
        BOOST_TEST(*got == want);
        BIGNUM* d = nullptr;
        BOOST_TEST_REQUIRE(EVP_PKEY_get_bn_param(key.get(), OSSL_PKEY_PARAM_PRIV_KEY, &d) == 1);
        if (BN_num_bytes(d) < 66) ++leadingZero;
        BN_clear_free(d);
    }
    BOOST_TEST(leadingZero > 0, "no key with a short scalar was drawn; the padding path went untested");
}

// A key of another curve is refused with a message, never encoded as if it were P-521.
BOOST_AUTO_TEST_CASE(sec1_pem_refuses_another_curve) {
    std::unique_ptr<EVP_PKEY, decltype(&EVP_PKEY_free)> key(EVP_PKEY_Q_keygen(nullptr, nullptr, "EC", "P-256"),
                                                            &EVP_PKEY_free);
    BOOST_TEST_REQUIRE(key.get() != nullptr);
    std::string error;
    BOOST_TEST(!mpi::encodeSec1Pem(key.get(), error).has_value());
    BOOST_TEST(!error.empty());
}

BOOST_AUTO_TEST_CASE(base64_matches_rfc4648_vectors) {
    const std::vector<std::pair<std::string, std::string>> rows{
        {"", ""}, {"f", "Zg=="}, {"fo", "Zm8="}, {"foo", "Zm9v"}, {"foob", "Zm9vYg=="}, {"fooba", "Zm9vYmE="},
        {"foobar", "Zm9vYmFy"}};
    for (auto const& [in, out] : rows) BOOST_TEST(mpi::base64Encode(in) == out, in);
}

BOOST_AUTO_TEST_CASE(wipe_clears_secret) {
    std::string s = "secret";
    mpi::wipe(s);
    BOOST_TEST(s.empty());
}
