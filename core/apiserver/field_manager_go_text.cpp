// Go text forms for the field manager; the contract is in field_manager_go_text.hpp.
#include "core/apiserver/field_manager_go_text.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <utility>

namespace trainer::core::apiserver::smd {

namespace {

std::string hexEscape(const char* fmt, unsigned c) {
    char buf[16];
    std::snprintf(buf, sizeof buf, fmt, c);
    return buf;
}

std::string shortestFloat(double d, std::chars_format f) {
    char buf[64];
    auto r = std::to_chars(buf, buf + sizeof buf, d, f);
    return std::string(buf, r.ptr);
}

int decimalExponent(double d) {
    std::string s = shortestFloat(d, std::chars_format::scientific);
    auto e = s.find('e');
    return e == std::string::npos ? 0 : std::atoi(s.c_str() + e + 1);
}

// encoding/json float64: 'f' unless the magnitude is < 1e-6 or >= 1e21, exponent without padding.
std::string goJsonFloat(double d) {
    double a = std::fabs(d);
    if (a != 0 && (a < 1e-6 || a >= 1e21)) {
        std::string s = shortestFloat(d, std::chars_format::scientific);
        auto n = s.size();
        if (n >= 4 && s[n - 4] == 'e' && s[n - 3] == '-' && s[n - 2] == '0') s.erase(n - 2, 1);
        return s;
    }
    return shortestFloat(d, std::chars_format::fixed);
}

std::string goJsonObject(const json::object& o) {
    std::vector<std::pair<std::string_view, const json::value*>> items;
    for (auto const& kv : o) items.emplace_back(kv.key(), &kv.value());
    std::sort(items.begin(), items.end(), [](auto& a, auto& b) { return a.first < b.first; });
    std::string out = "{";
    for (auto const& [k, v] : items) out += (out.size() > 1 ? "," : "") + goJsonString(k) + ":" + goJson(*v);
    return out + "}";
}

}  // namespace

std::string goQuote(std::string_view s) {
    static const std::map<char, const char*> shortEscapes = {
        {'"', "\\\""}, {'\\', "\\\\"}, {'\a', "\\a"}, {'\b', "\\b"}, {'\f', "\\f"},
        {'\n', "\\n"}, {'\r', "\\r"},  {'\t', "\\t"}, {'\v', "\\v"},
    };
    std::string out = "\"";
    for (unsigned char c : s) {
        if (auto it = shortEscapes.find(char(c)); it != shortEscapes.end()) out += it->second;
        else if (c < 0x20 || c == 0x7f) out += hexEscape("\\x%02x", c);
        else out += char(c);
    }
    return out + "\"";
}

std::string goQuoteList(const std::vector<std::string>& keys) {
    std::string out;
    for (auto const& k : keys) out += (out.empty() ? "" : " ") + goQuote(k);
    return "[" + out + "]";
}

std::string goJsonString(std::string_view s) {
    std::string out = "\"";
    for (std::size_t i = 0; i < s.size(); ++i) {
        unsigned char c = s[i];
        if (c == '"' || c == '\\') out += {'\\', char(c)};
        else if (c == '\n') out += "\\n";
        else if (c == '\r') out += "\\r";
        else if (c == '\t') out += "\\t";
        else if (c < 0x20 || c == '<' || c == '>' || c == '&') out += hexEscape("\\u%04x", c);
        else if (c == 0xe2 && i + 2 < s.size() && (unsigned char)s[i + 1] == 0x80 &&
                 ((unsigned char)s[i + 2] == 0xa8 || (unsigned char)s[i + 2] == 0xa9)) {
            out += (unsigned char)s[i + 2] == 0xa8 ? "\\u2028" : "\\u2029";
            i += 2;
        } else out += char(c);
    }
    return out + "\"";
}

std::string goFloatV(double d) {
    if (d == 0 || !std::isfinite(d)) return d == 0 ? "0" : shortestFloat(d, std::chars_format::general);
    int exp = decimalExponent(d);
    return (exp < -4 || exp >= 6) ? shortestFloat(d, std::chars_format::scientific)
                                   : shortestFloat(d, std::chars_format::fixed);
}

std::string goJson(const json::value& v) {
    switch (v.kind()) {
        case json::kind::null: return "null";
        case json::kind::bool_: return v.get_bool() ? "true" : "false";
        case json::kind::int64: return std::to_string(v.get_int64());
        case json::kind::uint64: return std::to_string(v.get_uint64());
        case json::kind::double_: return goJsonFloat(v.get_double());
        case json::kind::string: return goJsonString(v.get_string());
        case json::kind::array: {
            std::string out = "[";
            for (auto const& e : v.get_array()) out += (out.size() > 1 ? "," : "") + goJson(e);
            return out + "]";
        }
        case json::kind::object: return goJsonObject(v.get_object());
    }
    return "null";
}

}  // namespace trainer::core::apiserver::smd
