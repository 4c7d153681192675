#include "core/golden/field_path.hpp"

#include <algorithm>

namespace trainer::core::golden {

namespace {

// Letters, digits, "_", "-" and "$" print bare; anything else (dots, slashes, spaces) is quoted.
bool plainName(std::string_view s) {
    return !s.empty() && std::all_of(s.begin(), s.end(), [](unsigned char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-' || c == '$';
    });
}

std::string jsonQuoted(std::string_view s) { return json::serialize(json::string(s)); }

}  // namespace

std::string memberPath(std::string_view path, std::string_view key) {
    if (!plainName(key)) return std::string(path) + "[" + jsonQuoted(key) + "]";
    return path.empty() ? std::string(key) : std::string(path) + "." + std::string(key);
}

std::string indexPath(std::string_view path, std::size_t index) {
    return std::string(path) + "[" + std::to_string(index) + "]";
}

std::string keyedPath(std::string_view path, std::string_view key, const json::value& value) {
    std::string v = value.is_string() ? std::string(value.get_string()) : json::serialize(value);
    if (value.is_string() && !plainName(v)) v = jsonQuoted(v);
    return std::string(path) + "[" + std::string(key) + "=" + v + "]";
}

std::string shortJson(const json::value& v, std::size_t limit) {
    std::string s = json::serialize(v);
    if (s.size() <= limit) return s;
    std::size_t cut = limit;
    while (cut > 0 && (static_cast<unsigned char>(s[cut]) & 0xC0) == 0x80) --cut;  // not inside a character
    return s.substr(0, cut) + "...";
}

}  // namespace trainer::core::golden
