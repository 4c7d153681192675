#include "core/statusserver/bearer_token.hpp"

#include <cctype>
#include <cstdint>
#include <vector>

namespace trainer::core::statusserver {

namespace {

// Length of the white-space character at `s[i]` (Go's unicode.IsSpace), or 0 when it is not one.
std::size_t spaceLength(std::string_view s, std::size_t i) {
    auto c = static_cast<unsigned char>(s[i]);
    if (c == ' ' || (c >= '\t' && c <= '\r')) return 1;
    if (c < 0xC2) return 0;
    auto byte = [&](std::size_t k) -> unsigned { return k < s.size() ? static_cast<unsigned char>(s[k]) : 0u; };
    if (c == 0xC2 && (byte(i + 1) == 0x85 || byte(i + 1) == 0xA0)) return 2;  // U+0085, U+00A0
    if (c == 0xE1 && byte(i + 1) == 0x9A && byte(i + 2) == 0x80) return 3;    // U+1680
    if (c == 0xE3 && byte(i + 1) == 0x80 && byte(i + 2) == 0x80) return 3;    // U+3000
    if (c == 0xE2 && byte(i + 1) == 0x80) {                                     // U+2000..U+200A, U+2028/9, U+202F
        unsigned t = byte(i + 2);
        if ((t >= 0x80 && t <= 0x8A) || t == 0xA8 || t == 0xA9 || t == 0xAF) return 3;
    }
    if (c == 0xE2 && byte(i + 1) == 0x81 && byte(i + 2) == 0x9F) return 3;  // U+205F
    return 0;
}

std::vector<std::string_view> fields(std::string_view s) {
    std::vector<std::string_view> out;
    std::size_t start = std::string_view::npos;
    for (std::size_t i = 0; i < s.size();) {
        std::size_t n = spaceLength(s, i);
        if (n == 0) {
            if (start == std::string_view::npos) start = i;
            ++i;
            continue;
        }
        if (start != std::string_view::npos) out.push_back(s.substr(start, i - start));
        start = std::string_view::npos;
        i += n;
    }
    if (start != std::string_view::npos) out.push_back(s.substr(start));
    return out;
}

bool equalFoldAscii(std::string_view a, std::string_view b) {
    if (a.size() != b.size()) return false;
    for (std::size_t i = 0; i < a.size(); ++i)
        if (std::tolower(static_cast<unsigned char>(a[i])) != std::tolower(static_cast<unsigned char>(b[i]))) return false;
    return true;
}

}  // namespace

std::string extractRawToken(std::string_view header) {
    auto parts = fields(header);
    if (parts.size() != 2 || !equalFoldAscii(parts[0], "Bearer")) return {};
    return std::string(parts[1]);
}

}  // namespace trainer::core::statusserver
