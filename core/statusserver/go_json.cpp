#include "core/statusserver/go_json.hpp"

#include <cstdint>
#include <optional>

namespace trainer::core::statusserver {

namespace {

constexpr std::string_view kReplacement = "\xEF\xBF\xBD";

// The code point at s[i] and its length (Go's utf8.DecodeRune), or nullopt for an invalid byte.
std::optional<std::pair<char32_t, std::size_t>> decodeRune(std::string_view s, std::size_t i) {
    auto b = [&](std::size_t k) -> unsigned { return k < s.size() ? static_cast<unsigned char>(s[k]) : 0x100u; };
    unsigned c = b(i);
    if (c < 0x80) return std::pair{static_cast<char32_t>(c), std::size_t{1}};
    auto cont = [&](std::size_t k, unsigned lo = 0x80, unsigned hi = 0xBF) { return b(k) >= lo && b(k) <= hi; };
    if (c >= 0xC2 && c <= 0xDF && cont(i + 1)) return std::pair{char32_t(((c & 0x1F) << 6) | (b(i + 1) & 0x3F)), std::size_t{2}};
    if (c >= 0xE0 && c <= 0xEF) {
        unsigned lo = c == 0xE0 ? 0xA0 : 0x80, hi = c == 0xED ? 0x9F : 0xBF;
        if (cont(i + 1, lo, hi) && cont(i + 2))
            return std::pair{char32_t(((c & 0x0F) << 12) | ((b(i + 1) & 0x3F) << 6) | (b(i + 2) & 0x3F)), std::size_t{3}};
    }
    if (c >= 0xF0 && c <= 0xF4) {
        unsigned lo = c == 0xF0 ? 0x90 : 0x80, hi = c == 0xF4 ? 0x8F : 0xBF;
        if (cont(i + 1, lo, hi) && cont(i + 2) && cont(i + 3))
            return std::pair{char32_t(((c & 0x07) << 18) | ((b(i + 1) & 0x3F) << 12) | ((b(i + 2) & 0x3F) << 6) |
                                      (b(i + 3) & 0x3F)),
                             std::size_t{4}};
    }
    return std::nullopt;
}

int hexValue(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

// The code unit of a "\uXXXX" escape starting at text[i] (the backslash), or -1.
long escapeUnit(std::string_view text, std::size_t i) {
    if (i + 6 > text.size() || text[i] != '\\' || text[i + 1] != 'u') return -1;
    long v = 0;
    for (std::size_t k = i + 2; k < i + 6; ++k) {
        int h = hexValue(text[k]);
        if (h < 0) return -1;
        v = v * 16 + h;
    }
    return v;
}

bool isHigh(long u) { return u >= 0xD800 && u <= 0xDBFF; }
bool isLow(long u) { return u >= 0xDC00 && u <= 0xDFFF; }

// Folds one key character to the form Go compares (upper-case ASCII; U+017F → 'S', U+212A → 'K').
std::string folded(std::string_view s) {
    std::string out;
    for (std::size_t i = 0; i < s.size();) {
        char c = s[i];
        if (c >= 'a' && c <= 'z') c = static_cast<char>(c - 'a' + 'A');
        if (s.substr(i, 2) == "\xC5\xBF") {
            out += 'S';
            i += 2;
        } else if (s.substr(i, 3) == "\xE2\x84\xAA") {
            out += 'K';
            i += 3;
        } else {
            out += c;
            ++i;
        }
    }
    return out;
}

}  // namespace

std::string sanitizeUtf8(std::string_view s) {
    std::string out;
    out.reserve(s.size());
    for (std::size_t i = 0; i < s.size();) {
        auto r = decodeRune(s, i);
        if (!r) {
            out += kReplacement;
            ++i;
            continue;
        }
        out.append(s.substr(i, r->second));
        i += r->second;
    }
    return out;
}

std::string replaceLoneSurrogates(std::string_view text) {
    std::string out(text);
    bool inString = false;
    for (std::size_t i = 0; i < out.size(); ++i) {
        char c = out[i];
        if (!inString) {
            inString = c == '"';
            continue;
        }
        if (c == '"') {
            inString = false;
        } else if (c == '\\') {
            long u = escapeUnit(out, i);
            if (u < 0) {
                ++i;  // a two-character escape (or a malformed one the parser will refuse)
                continue;
            }
            if (isHigh(u) && isLow(escapeUnit(out, i + 6))) {
                i += 11;  // a valid pair
                continue;
            }
            if (isHigh(u) || isLow(u)) out.replace(i + 2, 4, "fffd");
            i += 5;
        }
    }
    return out;
}

bool keyMatches(std::string_view key, std::string_view name) { return key == name || folded(key) == folded(name); }

std::string goQuote(std::string_view s) {
    static constexpr char kHex[] = "0123456789abcdef";
    std::string out = "\"";
    for (std::size_t i = 0; i < s.size();) {
        auto r = decodeRune(s, i);
        if (!r) {
            out += "\\ufffd";
            ++i;
            continue;
        }
        char32_t c = r->first;
        if (c == '"' || c == '\\') {
            out += '\\';
            out += static_cast<char>(c);
        } else if (c == '\b' || c == '\f' || c == '\n' || c == '\r' || c == '\t') {
            out += c == '\b' ? "\\b" : c == '\f' ? "\\f" : c == '\n' ? "\\n" : c == '\r' ? "\\r" : "\\t";
        } else if (c < 0x20 || c == '<' || c == '>' || c == '&') {
            out += "\\u00";
            out += kHex[c >> 4];
            out += kHex[c & 0xF];
        } else if (c == 0x2028 || c == 0x2029) {
            out += c == 0x2028 ? "\\u2028" : "\\u2029";
        } else {
            out.append(s.substr(i, r->second));
        }
        i += r->second;
    }
    return out + "\"";
}

}  // namespace trainer::core::statusserver
