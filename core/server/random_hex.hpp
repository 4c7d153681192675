// Random bytes from OpenSSL's CSPRNG as lower-case hex (tokens, unique temp-file names).
#pragma once

#include <cstddef>
#include <string>

namespace trainer::core::server {

// 2 × `bytes` hex digits; "" when the generator fails (callers treat it as an error).
std::string randomHex(std::size_t bytes);

}  // namespace trainer::core::server
