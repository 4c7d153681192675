// SHA-256 of a short text, and lower-case hex, for what the operator derives from other text: a
// rendered TrainJob's uid, an Event's suffix, a bearer token's comparison and digest. The
// algorithm is fetched from OpenSSL's providers once (the one-shot SHA256() fetches it on every
// call), and hex is written without snprintf: 16,000 to 8,000 instructions per uid (callgrind).
#pragma once

#include <array>
#include <cstddef>
#include <string>
#include <string_view>

namespace trainer::core::server {

using Sha256Digest = std::array<unsigned char, 32>;

// The digest of `text`. OpenSSL failing to hash (it cannot allocate) ends the process: a name made
// from a digest that was not computed would be wrong, not merely absent.
Sha256Digest sha256(std::string_view text);

// `bytes` as 2 × size lower-case hex digits appended to `out`.
void appendHex(std::string& out, const unsigned char* bytes, std::size_t size);

}  // namespace trainer::core::server
