#include "ssh_key.hpp"

#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/encoder.h>
#include <openssl/err.h>
#include <openssl/evp.h>

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
struct EncoderFree {
    void operator()(OSSL_ENCODER_CTX* p) const { OSSL_ENCODER_CTX_free(p); }
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

std::optional<SshKeyPair> generateSshKeyPair(std::string& error) {
    ERR_clear_error();
    std::unique_ptr<EVP_PKEY, PkeyFree> pkey(EVP_PKEY_Q_keygen(nullptr, nullptr, "EC", "P-521"));
    if (!pkey) {
        error = opensslError("generating the ECDSA P-521 key");
        return std::nullopt;
    }

    // Private key: SEC1 ECPrivateKey (with curve OID and public key), PEM "EC PRIVATE KEY".
    std::unique_ptr<OSSL_ENCODER_CTX, EncoderFree> enc(
        OSSL_ENCODER_CTX_new_for_pkey(pkey.get(), EVP_PKEY_KEYPAIR, "PEM", "type-specific", nullptr));
    if (!enc || OSSL_ENCODER_CTX_get_num_encoders(enc.get()) == 0) {
        error = opensslError("no SEC1 PEM encoder for the EC key");
        return std::nullopt;
    }
    unsigned char* pem = nullptr;
    size_t pemLen = 0;
    if (OSSL_ENCODER_to_data(enc.get(), &pem, &pemLen) != 1 || !pem) {
        error = opensslError("encoding the private key");
        return std::nullopt;
    }
    SshKeyPair pair;
    pair.privateKeyPem.assign(reinterpret_cast<const char*>(pem), pemLen);
    OPENSSL_clear_free(pem, pemLen);

    // Public key: the uncompressed point, wrapped in the OpenSSH wire format (RFC 5656 §3.1).
    std::array<unsigned char, kP521PointSize + 8> point{};
    size_t pointLen = 0;
    if (EVP_PKEY_get_octet_string_param(pkey.get(), OSSL_PKEY_PARAM_PUB_KEY, point.data(), point.size(),
                                        &pointLen) != 1) {
        error = opensslError("reading the public key");
        return std::nullopt;
    }
    if (pointLen != kP521PointSize || point[0] != 0x04) {
        error = "reading the public key: not an uncompressed P-521 point";
        return std::nullopt;
    }
    std::string blob;
    appendSshString(blob, kKeyType);
    appendSshString(blob, kCurveId);
    appendSshString(blob, std::string_view(reinterpret_cast<const char*>(point.data()), pointLen));
    pair.authorizedKey = std::string(kKeyType) + " " + base64Encode(blob) + "\n";
    return pair;
}

}  // namespace trainer::plugins::mpi
