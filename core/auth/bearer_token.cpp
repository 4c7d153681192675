#include "core/auth/bearer_token.hpp"

#include "core/server/sha256.hpp"

#include <openssl/crypto.h>

#include <cctype>
#include <vector>

namespace trainer::core::auth {

namespace {

bool space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'; }

// Go's strings.Fields over ASCII whitespace.
std::vector<std::string_view> fields(std::string_view s) {
    std::vector<std::string_view> out;
    std::size_t i = 0;
    while (i < s.size()) {
        while (i < s.size() && space(s[i])) ++i;
        std::size_t start = i;
        while (i < s.size() && !space(s[i])) ++i;
        if (i > start) out.push_back(s.substr(start, i - start));
    }
    return out;
}

bool equalsFold(std::string_view a, std::string_view b) {
    if (a.size() != b.size()) return false;
    for (std::size_t i = 0; i < a.size(); ++i)
        if (std::tolower(static_cast<unsigned char>(a[i])) != std::tolower(static_cast<unsigned char>(b[i]))) return false;
    return true;
}

}  // namespace

std::string bearerToken(std::string_view authorizationHeader) {
    auto parts = fields(authorizationHeader);
    if (parts.size() != 2 || !equalsFold(parts[0], "Bearer")) return {};
    return std::string(parts[1]);
}

bool tokensEqual(std::string_view presented, std::string_view expected) {
    if (expected.empty()) return false;
    const server::Sha256Digest a = server::sha256(presented), b = server::sha256(expected);
    return CRYPTO_memcmp(a.data(), b.data(), a.size()) == 0;
}

std::string tokenDigest(std::string_view token) {
    const server::Sha256Digest md = server::sha256(token);
    std::string out;
    server::appendHex(out, md.data(), md.size());
    return out;
}

}  // namespace trainer::core::auth
