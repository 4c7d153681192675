#include "core/server/random_hex.hpp"

#include <openssl/rand.h>

#include <vector>

namespace trainer::core::server {

std::string randomHex(std::size_t bytes) {
    std::vector<unsigned char> raw(bytes);
    if (bytes == 0 || RAND_bytes(raw.data(), static_cast<int>(raw.size())) != 1) return {};
    static constexpr char hex[] = "0123456789abcdef";
    std::string out;
    out.reserve(2 * bytes);
    for (unsigned char b : raw) {
        out += hex[b >> 4];
        out += hex[b & 15];
    }
    return out;
}

}  // namespace trainer::core::server
