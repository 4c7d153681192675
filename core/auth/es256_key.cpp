#include "core/auth/es256_key.hpp"

#include "core/server/openssl_handles.hpp"

#include <openssl/bio.h>
#include <openssl/bn.h>
#include <openssl/ec.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>

#include <array>
#include <cstring>

namespace trainer::core::auth {

namespace {

constexpr std::string_view kAlphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
constexpr size_t kCoordinateBytes = 32;  // P-256

using server::sslError;
template <auto Fn>
using Deleter = server::OpenSslDeleter<Fn>;
using BioPtr = std::unique_ptr<BIO, Deleter<BIO_free_all>>;
using MdCtxPtr = std::unique_ptr<EVP_MD_CTX, Deleter<EVP_MD_CTX_free>>;
using SigPtr = std::unique_ptr<ECDSA_SIG, Deleter<ECDSA_SIG_free>>;


int sixBits(char c) {
    auto pos = kAlphabet.find(c);
    return pos == std::string_view::npos ? -1 : static_cast<int>(pos);
}

std::string bioText(BIO* bio) {
    char* data = nullptr;
    long len = BIO_get_mem_data(bio, &data);
    return len > 0 ? std::string(data, static_cast<size_t>(len)) : std::string();
}

// A password callback that refuses: an encrypted key is an error, never a terminal prompt.
int noPassword(char*, int, int, void*) { return -1; }

}  // namespace

std::string base64UrlEncode(std::string_view bytes) {
    std::string out;
    out.reserve((bytes.size() * 4 + 2) / 3);
    uint32_t acc = 0;
    int bits = 0;
    for (unsigned char b : bytes) {
        acc = (acc << 8) | b;
        bits += 8;
        while (bits >= 6) {
            bits -= 6;
            out.push_back(kAlphabet[(acc >> bits) & 63]);
        }
    }
    if (bits > 0) out.push_back(kAlphabet[(acc << (6 - bits)) & 63]);
    return out;
}

std::optional<std::string> base64UrlDecode(std::string_view text) {
    if (text.size() % 4 == 1) return std::nullopt;
    std::string out;
    out.reserve(text.size() * 3 / 4);
    uint32_t acc = 0;
    int bits = 0;
    for (char c : text) {
        int v = sixBits(c);
        if (v < 0) return std::nullopt;
        acc = (acc << 6) | static_cast<uint32_t>(v);
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            out.push_back(static_cast<char>((acc >> bits) & 0xff));
        }
    }
    if ((acc & ((1u << bits) - 1)) != 0) return std::nullopt;  // not canonical
    return out;
}

std::optional<Es256Key> Es256Key::adopt(EVP_PKEY* raw, std::string& error) {
    std::shared_ptr<EVP_PKEY> key(raw, EVP_PKEY_free);
    char group[64] = {};
    if (!EVP_PKEY_is_a(raw, "EC") || !EVP_PKEY_get_utf8_string_param(raw, "group", group, sizeof group, nullptr) ||
        std::strcmp(group, "prime256v1") != 0) {
        error = "the key is not an ECDSA P-256 key";
        ERR_clear_error();
        return std::nullopt;
    }
    unsigned char* der = nullptr;
    int len = i2d_PUBKEY(raw, &der);
    if (len <= 0) {
        error = sslError("encoding the public key");
        return std::nullopt;
    }
    std::array<unsigned char, 32> digest{};
    bool hashed = EVP_Digest(der, static_cast<size_t>(len), digest.data(), nullptr, EVP_sha256(), nullptr) == 1;
    OPENSSL_free(der);
    if (!hashed) {
        error = sslError("hashing the public key");
        return std::nullopt;
    }
    std::string id = base64UrlEncode({reinterpret_cast<const char*>(digest.data()), digest.size()});
    return Es256Key(std::move(key), std::move(id));
}

std::optional<Es256Key> Es256Key::generate(std::string& error) {
    EVP_PKEY* raw = EVP_EC_gen("P-256");
    if (!raw) {
        error = sslError("generating an ECDSA P-256 key");
        return std::nullopt;
    }
    return adopt(raw, error);
}

std::optional<Es256Key> Es256Key::fromPrivatePem(std::string_view pem, std::string& error) {
    BioPtr bio(BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())));
    EVP_PKEY* raw = bio ? PEM_read_bio_PrivateKey(bio.get(), nullptr, noPassword, nullptr) : nullptr;
    if (!raw) {
        error = sslError("not a PEM private key");
        return std::nullopt;
    }
    return adopt(raw, error);
}

std::string Es256Key::privatePem() const {
    BioPtr bio(BIO_new(BIO_s_mem()));
    if (!bio || !PEM_write_bio_PrivateKey(bio.get(), key_.get(), nullptr, nullptr, 0, nullptr, nullptr)) return {};
    return bioText(bio.get());
}

std::string Es256Key::publicPem() const {
    BioPtr bio(BIO_new(BIO_s_mem()));
    if (!bio || !PEM_write_bio_PUBKEY(bio.get(), key_.get())) return {};
    return bioText(bio.get());
}

std::string Es256Key::sign(std::string_view data) const {
    MdCtxPtr ctx(EVP_MD_CTX_new());
    size_t len = 0;
    if (!ctx || EVP_DigestSignInit(ctx.get(), nullptr, EVP_sha256(), nullptr, key_.get()) != 1 ||
        EVP_DigestSign(ctx.get(), nullptr, &len, reinterpret_cast<const unsigned char*>(data.data()), data.size()) != 1)
        return ERR_clear_error(), std::string();
    std::string der(len, '\0');
    auto* out = reinterpret_cast<unsigned char*>(der.data());
    if (EVP_DigestSign(ctx.get(), out, &len, reinterpret_cast<const unsigned char*>(data.data()), data.size()) != 1)
        return ERR_clear_error(), std::string();
    const unsigned char* p = out;
    SigPtr sig(d2i_ECDSA_SIG(nullptr, &p, static_cast<long>(len)));
    std::string raw(2 * kCoordinateBytes, '\0');
    auto* r = reinterpret_cast<unsigned char*>(raw.data());
    if (!sig || BN_bn2binpad(ECDSA_SIG_get0_r(sig.get()), r, kCoordinateBytes) < 0 ||
        BN_bn2binpad(ECDSA_SIG_get0_s(sig.get()), r + kCoordinateBytes, kCoordinateBytes) < 0)
        return ERR_clear_error(), std::string();
    return raw;
}

bool Es256Key::verify(std::string_view data, std::string_view signature) const {
    if (signature.size() != 2 * kCoordinateBytes) return false;
    auto* bytes = reinterpret_cast<const unsigned char*>(signature.data());
    SigPtr sig(ECDSA_SIG_new());
    BIGNUM* r = BN_bin2bn(bytes, kCoordinateBytes, nullptr);
    BIGNUM* s = BN_bin2bn(bytes + kCoordinateBytes, kCoordinateBytes, nullptr);
    if (!sig || !r || !s || ECDSA_SIG_set0(sig.get(), r, s) != 1) {
        BN_free(r);
        BN_free(s);
        return ERR_clear_error(), false;
    }
    unsigned char* der = nullptr;
    int derLen = i2d_ECDSA_SIG(sig.get(), &der);
    MdCtxPtr ctx(EVP_MD_CTX_new());
    bool ok = derLen > 0 && ctx && EVP_DigestVerifyInit(ctx.get(), nullptr, EVP_sha256(), nullptr, key_.get()) == 1 &&
              EVP_DigestVerify(ctx.get(), der, static_cast<size_t>(derLen),
                               reinterpret_cast<const unsigned char*>(data.data()), data.size()) == 1;
    OPENSSL_free(der);
    ERR_clear_error();
    return ok;
}

}  // namespace trainer::core::auth
