#include "core/server/sha256.hpp"

#include <openssl/evp.h>

#include <cstdio>
#include <cstdlib>

namespace trainer::core::server {

Sha256Digest sha256(std::string_view text) {
    static EVP_MD* const md = EVP_MD_fetch(nullptr, "SHA256", nullptr);  // kept for the process
    Sha256Digest out{};
    unsigned int size = 0;
    if (!md || EVP_Digest(text.data(), text.size(), out.data(), &size, md, nullptr) != 1 || size != out.size()) {
        std::fputs("fatal: OpenSSL cannot compute SHA-256\n", stderr);
        std::abort();
    }
    return out;
}

void appendHex(std::string& out, const unsigned char* bytes, std::size_t size) {
    static constexpr char kDigits[] = "0123456789abcdef";
    for (std::size_t i = 0; i < size; ++i) {
        out += kDigits[bytes[i] >> 4];
        out += kDigits[bytes[i] & 15];
    }
}

}  // namespace trainer::core::server
