// Go's text forms of decoded JSON values; the contract is in go_text.hpp.
#include "core/apiserver/go_text.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <iterator>
#include <limits>
#include <utility>
#include <vector>

namespace trainer::core::apiserver::gotext {

void appendUtf8(std::string& out, std::uint32_t r) {
    if (r < 0x80) {
        out += static_cast<char>(r);
    } else if (r < 0x800) {
        out += static_cast<char>(0xC0 | (r >> 6));
        out += static_cast<char>(0x80 | (r & 0x3F));
    } else if (r < 0x10000) {
        out += static_cast<char>(0xE0 | (r >> 12));
        out += static_cast<char>(0x80 | ((r >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (r & 0x3F));
    } else {
        out += static_cast<char>(0xF0 | (r >> 18));
        out += static_cast<char>(0x80 | ((r >> 12) & 0x3F));
        out += static_cast<char>(0x80 | ((r >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (r & 0x3F));
    }
}

Rune decodeRune(std::string_view s, std::size_t i) {
    auto b = [&](std::size_t k) { return static_cast<unsigned char>(s[i + k]); };
    auto cont = [&](std::size_t k, unsigned lo = 0x80, unsigned hi = 0xBF) {
        return i + k < s.size() && b(k) >= lo && b(k) <= hi;
    };
    unsigned c = b(0);
    if (c < 0x80) return {c, 1, true};
    if (c >= 0xC2 && c <= 0xDF && cont(1)) return {((c & 0x1F) << 6) | (b(1) & 0x3F), 2, true};
    if (c >= 0xE0 && c <= 0xEF) {
        unsigned lo = c == 0xE0 ? 0xA0 : 0x80, hi = c == 0xED ? 0x9F : 0xBF;
        if (cont(1, lo, hi) && cont(2)) return {((c & 0x0F) << 12) | ((b(1) & 0x3F) << 6) | (b(2) & 0x3F), 3, true};
    }
    if (c >= 0xF0 && c <= 0xF4) {
        unsigned lo = c == 0xF0 ? 0x90 : 0x80, hi = c == 0xF4 ? 0x8F : 0xBF;
        if (cont(1, lo, hi) && cont(2) && cont(3))
            return {((c & 0x07) << 18) | ((b(1) & 0x3F) << 12) | ((b(2) & 0x3F) << 6) | (b(3) & 0x3F), 4, true};
    }
    return {0xFFFD, 1, false};
}

namespace {

// unicode.IsPrint, approximated outside Latin-1 by the common space, format and private-use ranges.
bool goIsPrint(std::uint32_t r) {
    if (r < 0x20 || r == 0x7F || (r >= 0x80 && r <= 0xA0) || r == 0xAD) return false;
    if (r < 0x100) return true;
    static constexpr std::pair<std::uint32_t, std::uint32_t> kNotPrint[] = {
        {0x0600, 0x0605}, {0x061C, 0x061C}, {0x06DD, 0x06DD}, {0x070F, 0x070F}, {0x1680, 0x1680},
        {0x180E, 0x180E}, {0x2000, 0x200F}, {0x2028, 0x202F}, {0x205F, 0x206F}, {0x3000, 0x3000},
        {0xD800, 0xF8FF}, {0xFEFF, 0xFEFF}, {0xFFF9, 0xFFFB}, {0xFFFE, 0xFFFF}, {0xE0001, 0xE007F},
        {0xF0000, 0x10FFFF},
    };
    return std::none_of(std::begin(kNotPrint), std::end(kNotPrint),
                        [&](auto const& range) { return r >= range.first && r <= range.second; });
}

void appendHex(std::string& out, std::uint32_t v, int digits) {
    static constexpr char kHex[] = "0123456789abcdef";
    for (int shift = (digits - 1) * 4; shift >= 0; shift -= 4) out += kHex[(v >> shift) & 0xF];
}

}  // namespace

std::string goQuote(std::string_view s) {
    std::string out = "\"";
    for (std::size_t i = 0; i < s.size();) {
        Rune r = decodeRune(s, i);
        if (!r.valid) {
            out += "\\x";
            appendHex(out, static_cast<unsigned char>(s[i]), 2);
        } else if (r.value == '"' || r.value == '\\') {
            out += '\\';
            out += static_cast<char>(r.value);
        } else if (goIsPrint(r.value)) {
            out.append(s.substr(i, r.size));
        } else {
            static constexpr std::pair<std::uint32_t, char> kEscapes[] = {
                {'\a', 'a'}, {'\b', 'b'}, {'\f', 'f'}, {'\n', 'n'}, {'\r', 'r'}, {'\t', 't'}, {'\v', 'v'}};
            auto esc = std::find_if(std::begin(kEscapes), std::end(kEscapes), [&](auto const& e) { return e.first == r.value; });
            if (esc != std::end(kEscapes)) {
                out += '\\';
                out += esc->second;
            } else if (r.value < 0x20 || r.value == 0x7F) {
                out += "\\x";
                appendHex(out, r.value, 2);
            } else if (r.value < 0x10000) {
                out += "\\u";
                appendHex(out, r.value, 4);
            } else {
                out += "\\U";
                appendHex(out, r.value, 8);
            }
        }
        i += r.size;
    }
    return out + "\"";
}

std::string goQuoteChar(unsigned char c) {
    if (c == '\'') return "'\\''";
    if (c == '"') return "'\"'";
    std::string rune;
    appendUtf8(rune, c);
    std::string q = goQuote(rune);
    return "'" + q.substr(1, q.size() - 2) + "'";
}

namespace {

struct Digits {
    std::string digits;  // shortest round-trip decimal digits, no leading zeros
    int exponent;        // value = 0.d1d2... * 10^(exponent + 1)
};

Digits shortestDigits(double d) {
    char buf[64];
    auto res = std::to_chars(buf, buf + sizeof buf, std::fabs(d), std::chars_format::scientific);
    std::string_view s(buf, static_cast<std::size_t>(res.ptr - buf));
    auto e = s.find('e');
    Digits out{std::string(s.substr(0, e)), std::atoi(std::string(s.substr(e + 1)).c_str())};
    out.digits.erase(std::remove(out.digits.begin(), out.digits.end(), '.'), out.digits.end());
    return out;
}

std::string formatExponent(const Digits& d, bool cleanNegative) {
    std::string out(1, d.digits[0]);
    if (d.digits.size() > 1) out += "." + d.digits.substr(1);
    int e = d.exponent;
    out += e < 0 ? "e-" : "e+";
    int a = std::abs(e);
    if (a < 10 && !(cleanNegative && e < 0)) out += '0';
    return out + std::to_string(a);
}

std::string formatFixed(const Digits& d) {
    int dp = d.exponent + 1;
    int nd = static_cast<int>(d.digits.size());
    if (dp <= 0) return "0." + std::string(static_cast<std::size_t>(-dp), '0') + d.digits;
    if (dp >= nd) return d.digits + std::string(static_cast<std::size_t>(dp - nd), '0');
    return d.digits.substr(0, static_cast<std::size_t>(dp)) + "." + d.digits.substr(static_cast<std::size_t>(dp));
}

}  // namespace

std::string goFloatV(double f) {
    if (std::isinf(f)) return f > 0 ? "+Inf" : "-Inf";
    std::string sign = std::signbit(f) ? "-" : "";
    if (f == 0) return sign + "0";
    Digits d = shortestDigits(f);
    if (d.exponent < -4 || d.exponent >= 6) return sign + formatExponent(d, false);
    return sign + formatFixed(d);
}

std::string goJsonFloat(double f) {
    if (!std::isfinite(f)) f = f > 0 ? std::numeric_limits<double>::max() : std::numeric_limits<double>::lowest();
    std::string sign = std::signbit(f) ? "-" : "";
    if (f == 0) return sign + "0";
    Digits d = shortestDigits(f);
    double a = std::fabs(f);
    if (a < 1e-6 || a >= 1e21) return sign + formatExponent(d, true);
    return sign + formatFixed(d);
}

GoKind goKind(const json::value& v) {
    switch (v.kind()) {
    case json::kind::null: return GoKind::Nil;
    case json::kind::object: return GoKind::Map;
    case json::kind::array: return GoKind::Slice;
    case json::kind::string: return GoKind::String;
    case json::kind::int64: return GoKind::Int64;
    case json::kind::bool_: return GoKind::Bool;
    default: return GoKind::Float64;
    }
}

double asDouble(const json::value& v) {
    if (v.is_double()) return v.get_double();
    if (v.is_uint64()) return static_cast<double>(v.get_uint64());
    return static_cast<double>(v.get_int64());
}

std::string goTypeName(const json::value& v) {
    switch (goKind(v)) {
    case GoKind::Nil: return "%!s(<nil>)";
    case GoKind::Map: return "map[string]interface {}";
    case GoKind::Slice: return "[]interface {}";
    case GoKind::String: return "string";
    case GoKind::Int64: return "int64";
    case GoKind::Float64: return "float64";
    case GoKind::Bool: return "bool";
    }
    return "";
}

namespace {

// The members of `o` by key, as fmt and encoding/json print a map.
std::vector<std::pair<std::string_view, const json::value*>> sortedMembers(const json::object& o) {
    std::vector<std::pair<std::string_view, const json::value*>> items;
    for (auto const& kv : o) items.emplace_back(kv.key(), &kv.value());
    std::sort(items.begin(), items.end(), [](auto const& a, auto const& b) { return a.first < b.first; });
    return items;
}

std::string goScalarV(const json::value& v) {
    switch (goKind(v)) {
    case GoKind::Nil: return "<nil>";
    case GoKind::String: return std::string(v.get_string());
    case GoKind::Int64: return std::to_string(v.get_int64());
    case GoKind::Float64: return goFloatV(asDouble(v));
    case GoKind::Bool: return v.get_bool() ? "true" : "false";
    default: return "";
    }
}

// fmt with verb 'v' or 's' of a decoded value: maps print as map[k:v ...] with sorted keys.
void appendGoValue(std::string& out, const json::value& v, char verb, std::size_t depth = 0) {
    if (depth > kMaxPrintDepth && (v.is_object() || v.is_array())) {
        out += "...";  // documents deeper than any accepted patch body are not printed in full
        return;
    }
    if (v.is_object()) {
        auto items = sortedMembers(v.get_object());
        out += "map[";
        for (std::size_t i = 0; i < items.size(); ++i) {
            if (i) out += ' ';
            out.append(items[i].first);
            out += ':';
            appendGoValue(out, *items[i].second, verb, depth + 1);
        }
        out += ']';
    } else if (v.is_array()) {
        out += '[';
        bool first = true;
        for (auto const& e : v.get_array()) {
            if (!first) out += ' ';
            first = false;
            appendGoValue(out, e, verb, depth + 1);
        }
        out += ']';
    } else if (verb == 's' && !v.is_string()) {
        out += v.is_null() ? "%!s(<nil>)" : "%!s(" + goTypeName(v) + "=" + goScalarV(v) + ")";
    } else {
        out += goScalarV(v);
    }
}

}  // namespace

std::string goValue(const json::value& v, char verb) {
    std::string out;
    appendGoValue(out, v, verb);
    return out;
}

namespace {

void appendGoJsonString(std::string& out, std::string_view s) {
    out += '"';
    for (std::size_t i = 0; i < s.size();) {
        Rune r = decodeRune(s, i);
        unsigned char c = static_cast<unsigned char>(s[i]);
        if (!r.valid) {
            out += "\\ufffd";
        } else if (c == '"' || c == '\\') {
            out += '\\';
            out += static_cast<char>(c);
        } else if (c == '\n' || c == '\r' || c == '\t') {
            out += c == '\n' ? "\\n" : c == '\r' ? "\\r" : "\\t";
        } else if (c < 0x20 || c == '<' || c == '>' || c == '&' || r.value == 0x2028 || r.value == 0x2029) {
            out += "\\u";
            appendHex(out, r.value, 4);
        } else {
            out.append(s.substr(i, r.size));
        }
        i += r.size;
    }
    out += '"';
}

// encoding/json Marshal of a decoded value: object keys sorted, HTML characters escaped.
void appendGoJson(std::string& out, const json::value& v, std::size_t depth = 0) {
    if (depth > kMaxPrintDepth && (v.is_object() || v.is_array())) {
        out += "null";  // documents deeper than any accepted patch body are not printed in full
        return;
    }
    switch (v.kind()) {
    case json::kind::object: {
        auto items = sortedMembers(v.get_object());
        out += '{';
        for (std::size_t i = 0; i < items.size(); ++i) {
            if (i) out += ',';
            appendGoJsonString(out, items[i].first);
            out += ':';
            appendGoJson(out, *items[i].second, depth + 1);
        }
        out += '}';
        break;
    }
    case json::kind::array: {
        out += '[';
        bool first = true;
        for (auto const& e : v.get_array()) {
            if (!first) out += ',';
            first = false;
            appendGoJson(out, e, depth + 1);
        }
        out += ']';
        break;
    }
    case json::kind::string: appendGoJsonString(out, v.get_string()); break;
    case json::kind::int64: out += std::to_string(v.get_int64()); break;
    case json::kind::uint64: out += std::to_string(v.get_uint64()); break;
    case json::kind::double_: out += goJsonFloat(v.get_double()); break;
    case json::kind::bool_: out += v.get_bool() ? "true" : "false"; break;
    case json::kind::null: out += "null"; break;
    }
}

}  // namespace

std::string goJson(const json::value& v) {
    std::string out;
    appendGoJson(out, v);
    return out;
}

}  // namespace trainer::core::apiserver::gotext
