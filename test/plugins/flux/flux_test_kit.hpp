// Shared by the flux tests: an independent Z85 decoder, base64 decoding, curve.cert parsing and
// the X25519 check (the public key is the one OpenSSL derives from the secret key).
#pragma once

#include <openssl/evp.h>

#include <array>
#include <map>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>

namespace fluxtest {

// ZeroMQ Z85 decoding (rfc.zeromq.org/spec/32); nullopt on a bad length or character.
inline std::optional<std::string> decodeZ85(std::string_view text) {
    static constexpr std::string_view kAlphabet =
        "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ.-:+=^!/*?&<>()[]{}@%$#";
    if (text.size() % 5 != 0) return std::nullopt;
    std::string out;
    for (size_t i = 0; i < text.size(); i += 5) {
        uint64_t value = 0;
        for (size_t k = 0; k < 5; ++k) {
            auto pos = kAlphabet.find(text[i + k]);
            if (pos == std::string_view::npos) return std::nullopt;
            value = value * 85 + pos;
        }
        if (value > 0xffffffffu) return std::nullopt;
        for (int shift = 24; shift >= 0; shift -= 8) out.push_back(static_cast<char>((value >> shift) & 0xff));
    }
    return out;
}

inline std::string base64Decode(std::string_view in) {
    std::string out(in.size() / 4 * 3 + 3, '\0');
    int n = EVP_DecodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                            reinterpret_cast<const unsigned char*>(in.data()), static_cast<int>(in.size()));
    if (n < 0) return "<invalid base64>";
    size_t pad = (!in.empty() && in.back() == '=') + (in.size() > 1 && in[in.size() - 2] == '=');
    out.resize(static_cast<size_t>(n) - pad);
    return out;
}

// `key = "value"` lines of a curve.cert, by key (name, public-key, secret-key).
inline std::map<std::string, std::string> certFields(const std::string& cert) {
    std::map<std::string, std::string> out;
    std::istringstream in(cert);
    for (std::string line; std::getline(in, line);) {
        auto eq = line.find(" = \"");
        if (eq == std::string::npos || line.back() != '"') continue;
        auto start = line.find_first_not_of(' ');
        out[line.substr(start, eq - start)] = line.substr(eq + 4, line.size() - eq - 5);
    }
    return out;
}

// The X25519 public key OpenSSL derives from a 32-byte secret key; "" on failure.
inline std::string x25519PublicOf(const std::string& secret) {
    std::unique_ptr<EVP_PKEY, decltype(&EVP_PKEY_free)> key(
        EVP_PKEY_new_raw_private_key(EVP_PKEY_X25519, nullptr, reinterpret_cast<const unsigned char*>(secret.data()),
                                     secret.size()),
        &EVP_PKEY_free);
    if (!key) return "";
    std::array<unsigned char, 32> pub{};
    size_t len = pub.size();
    if (EVP_PKEY_get_raw_public_key(key.get(), pub.data(), &len) != 1) return "";
    return std::string(reinterpret_cast<const char*>(pub.data()), len);
}

// Empty when the cert's Z85 public key is the X25519 public key of its Z85 secret key, else why not.
inline std::string checkKeyPair(const std::string& cert) {
    auto f = certFields(cert);
    if (!f.count("public-key") || !f.count("secret-key")) return "public-key or secret-key missing";
    if (f["public-key"].size() != 40 || f["secret-key"].size() != 40) return "keys are not 40 Z85 characters";
    auto pub = decodeZ85(f["public-key"]);
    auto sec = decodeZ85(f["secret-key"]);
    if (!pub || !sec) return "keys are not Z85";
    if (sec->size() != 32 || pub->size() != 32) return "keys are not 32 bytes";
    std::string derived = x25519PublicOf(*sec);
    if (derived.empty()) return "OpenSSL refused the secret key";
    if (derived != *pub) return "public-key is not the X25519 public key of secret-key";
    return "";
}

}  // namespace fluxtest
