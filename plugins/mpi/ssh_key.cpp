#include "ssh_key.hpp"

#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/bn.h>
#include <openssl/err.h>
#include <openssl/evp.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <memory>

namespace trainer::plugins::mpi {
namespace {

constexpr std::string_view kKeyType = "ecdsa-sha2-nistp521";
constexpr std::string_view kCurveId = "nistp521";
constexpr size_t kP521PointSize = 1 + 2 * 66;  // 0x04 || X || Y

struct PkeyFree {
    void operator()(EVP_PKEY* p) const { EVP_PKEY_free(p); }
};

// The failing step plus OpenSSL's reason (error queue text has no key bytes).
std::string opensslError(std::string_view step) {
    std::string msg(step);
    unsigned long code = ERR_get_error();
    if (code != 0) {
        std::array<char, 256> buf{};
        ERR_error_string_n(code, buf.data(), buf.size());
        msg += ": ";
        msg += buf.data();
    }
    ERR_clear_error();
    return msg;
}

// Appends an SSH wire "string": uint32 big-endian length, then the bytes (RFC 4251 §5).
void appendSshString(std::string& out, std::string_view bytes) {
    uint32_t n = static_cast<uint32_t>(bytes.size());
    out.push_back(static_cast<char>((n >> 24) & 0xff));
    out.push_back(static_cast<char>((n >> 16) & 0xff));
    out.push_back(static_cast<char>((n >> 8) & 0xff));
    out.push_back(static_cast<char>(n & 0xff));
    out.append(bytes);
}

using P521Point = std::array<unsigned char, kP521PointSize>;

// The public key's uncompressed point (0x04 || X || Y). OpenSSL makes it affine for each call (a
// field inversion), so a key pair reads it once for both of its encodings.
std::optional<P521Point> publicPoint(const EVP_PKEY* key, std::string& error) {
    P521Point point{};
    size_t pointLen = 0;
    if (EVP_PKEY_get_octet_string_param(key, OSSL_PKEY_PARAM_PUB_KEY, point.data(), point.size(), &pointLen) != 1 ||
        pointLen != kP521PointSize || point[0] != 0x04) {
        error = opensslError("reading the public key") + " (an uncompressed P-521 point expected)";
        return std::nullopt;
    }
    return point;
}

std::optional<std::string> sec1Pem(const EVP_PKEY* key, const P521Point& point, std::string& error);

}  // namespace

SshKeyPair::SshKeyPair(SshKeyPair&& o) noexcept
    : privateKeyPem(std::move(o.privateKeyPem)), authorizedKey(std::move(o.authorizedKey)) {}
SshKeyPair& SshKeyPair::operator=(SshKeyPair&& o) noexcept {
    if (this != &o) {
        wipe(privateKeyPem);
        privateKeyPem = std::move(o.privateKeyPem);
        authorizedKey = std::move(o.authorizedKey);
    }
    return *this;
}
SshKeyPair::~SshKeyPair() { wipe(privateKeyPem); }

void wipe(std::string& secret) {
    if (!secret.empty()) OPENSSL_cleanse(secret.data(), secret.size());
    secret.clear();
}

std::string base64Encode(std::string_view bytes) {
    std::string out(4 * ((bytes.size() + 2) / 3) + 1, '\0');
    int n = EVP_EncodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                            reinterpret_cast<const unsigned char*>(bytes.data()), static_cast<int>(bytes.size()));
    out.resize(n > 0 ? static_cast<size_t>(n) : 0);
    return out;
}

std::optional<std::string> encodeSec1Pem(const EVP_PKEY* key, std::string& error) {
    auto point = publicPoint(key, error);
    return point ? sec1Pem(key, *point, error) : std::nullopt;
}

namespace {

std::optional<std::string> sec1Pem(const EVP_PKEY* key, const P521Point& point, std::string& error) {
    // ECPrivateKey ::= SEQUENCE { version INTEGER 1, privateKey OCTET STRING (66 bytes),
    //   parameters [0] secp521r1, publicKey [1] BIT STRING (0x04 || X || Y) } (RFC 5915 §3),
    // the bytes OpenSSL's "type-specific" PEM encoder writes for a named-curve P-521 key
    // (test_ssh_key.cpp compares the two). Written here because that encoder's lookup of its
    // implementation per key cost more than the key arithmetic (test/bench/README.md).
    static constexpr unsigned char kHead[] = {0x30, 0x81, 0xdc, 0x02, 0x01, 0x01, 0x04, 0x42};
    static constexpr unsigned char kCurve[] = {0xa0, 0x07, 0x06, 0x05, 0x2b, 0x81, 0x04, 0x00, 0x23,
                                               0xa1, 0x81, 0x89, 0x03, 0x81, 0x86, 0x00};
    constexpr size_t kScalarSize = 66;
    std::array<unsigned char, sizeof kHead + kScalarSize + sizeof kCurve + kP521PointSize> der{};
    static_assert(der.size() == 3 + 0xdc);
    size_t at = 0;
    auto put = [&](const unsigned char* p, size_t n) {
        std::copy(p, p + n, der.begin() + static_cast<long>(at));
        at += n;
    };
    std::array<char, 32> group{};
    if (EVP_PKEY_get_utf8_string_param(key, OSSL_PKEY_PARAM_GROUP_NAME, group.data(), group.size(), nullptr) != 1 ||
        std::string_view(group.data()) != "secp521r1") {
        error = "encoding the private key: not a P-521 (secp521r1) key";
        return std::nullopt;
    }
    put(kHead, sizeof kHead);
    BIGNUM* d = nullptr;
    if (EVP_PKEY_get_bn_param(key, OSSL_PKEY_PARAM_PRIV_KEY, &d) != 1 || !d) {
        error = opensslError("reading the private key");
        return std::nullopt;
    }
    const int n = BN_bn2binpad(d, der.data() + at, static_cast<int>(kScalarSize));
    BN_clear_free(d);
    if (n != static_cast<int>(kScalarSize)) {
        OPENSSL_cleanse(der.data(), der.size());
        error = "reading the private key: not a P-521 scalar";
        return std::nullopt;
    }
    at += kScalarSize;
    put(kCurve, sizeof kCurve);
    put(point.data(), point.size());

    // PEM: base64 in lines of 64 characters between the armour lines (RFC 7468 §2).
    static constexpr std::string_view kBegin = "-----BEGIN EC PRIVATE KEY-----\n";
    static constexpr std::string_view kEnd = "-----END EC PRIVATE KEY-----\n";
    std::string b64 = base64Encode(std::string_view(reinterpret_cast<const char*>(der.data()), der.size()));
    OPENSSL_cleanse(der.data(), der.size());
    std::string pem;
    pem.reserve(kBegin.size() + b64.size() + b64.size() / 64 + 1 + kEnd.size());
    pem.append(kBegin);
    for (size_t i = 0; i < b64.size(); i += 64) pem.append(b64, i, 64).push_back('\n');
    pem.append(kEnd);
    wipe(b64);
    return pem;
}

}  // namespace

std::optional<SshKeyPair> generateSshKeyPair(std::string& error) {
    ERR_clear_error();
    std::unique_ptr<EVP_PKEY, PkeyFree> pkey(EVP_PKEY_Q_keygen(nullptr, nullptr, "EC", "P-521"));
    if (!pkey) {
        error = opensslError("generating the ECDSA P-521 key");
        return std::nullopt;
    }
    auto point = publicPoint(pkey.get(), error);
    if (!point) return std::nullopt;
    auto pem = sec1Pem(pkey.get(), *point, error);
    if (!pem) return std::nullopt;
    SshKeyPair pair;
    pair.privateKeyPem = std::move(*pem);

    // Public key: the uncompressed point, wrapped in the OpenSSH wire format (RFC 5656 §3.1).
    std::string blob;
    appendSshString(blob, kKeyType);
    appendSshString(blob, kCurveId);
    appendSshString(blob, std::string_view(reinterpret_cast<const char*>(point->data()), point->size()));
    pair.authorizedKey = std::string(kKeyType) + " " + base64Encode(blob) + "\n";
    return pair;
}

}  // namespace trainer::plugins::mpi
