#include "core/server/random_hex.hpp"

#include "core/server/sha256.hpp"

#include <openssl/rand.h>

#include <vector>

namespace trainer::core::server {

std::string randomHex(std::size_t bytes) {
    std::vector<unsigned char> raw(bytes);
    if (bytes == 0 || RAND_bytes(raw.data(), static_cast<int>(raw.size())) != 1) return {};
    std::string out;
    appendHex(out, raw.data(), raw.size());
    return out;
}

}  // namespace trainer::core::server
