#include "core/apiserver/label_validation.hpp"

#include "core/api/known_patterns.hpp"

#include <algorithm>
#include <cstdio>

namespace trainer::core::apiserver {

namespace {

constexpr std::string_view kQualifiedNameErrMsg =
    "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";

// validation.RegexError.
std::string regexError(std::string_view msg, std::string_view fmt, std::vector<std::string_view> examples) {
    std::string s(msg);
    if (examples.empty()) return s + " (regex used for validation is '" + std::string(fmt) + "')";
    s += " (e.g. ";
    for (size_t i = 0; i < examples.size(); ++i) s += (i > 0 ? " or " : "") + ("'" + std::string(examples[i]) + "', ");
    return s + "regex used for validation is '" + std::string(fmt) + "')";
}

std::string maxLenError(size_t n) { return "must be no more than " + std::to_string(n) + " characters"; }

std::vector<std::string> subdomainErrors(std::string_view s) {
    std::vector<std::string> errs;
    if (s.size() > 253) errs.push_back(maxLenError(253));
    if (!isDns1123Subdomain(s))
        errs.push_back(regexError("a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', "
                                  "and must start and end with an alphanumeric character",
                                  kDns1123SubdomainPattern, {"example.com"}));
    return errs;
}

std::string join(const std::vector<std::string>& parts, std::string_view sep) {
    std::string s;
    for (auto const& p : parts) s += (s.empty() ? "" : std::string(sep)) + p;
    return s;
}

size_t utf8Length(unsigned char lead) {
    if (lead < 0x80) return 1;
    if ((lead & 0xE0) == 0xC0) return 2;
    if ((lead & 0xF0) == 0xE0) return 3;
    if ((lead & 0xF8) == 0xF0) return 4;
    return 0;
}

// The code point of a valid UTF-8 sequence at s[i] (length n), or -1.
long decodeUtf8(std::string_view s, size_t i, size_t n) {
    if (n < 2 || i + n > s.size()) return -1;
    long cp = static_cast<unsigned char>(s[i]) & (0x7F >> n);
    for (size_t k = 1; k < n; ++k) {
        auto c = static_cast<unsigned char>(s[i + k]);
        if ((c & 0xC0) != 0x80) return -1;
        cp = (cp << 6) | (c & 0x3F);
    }
    static const long minimum[] = {0, 0, 0x80, 0x800, 0x10000};
    if (cp < minimum[n] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return -1;
    return cp;
}

}  // namespace

std::vector<std::string> qualifiedNameErrors(std::string_view key) {
    std::vector<std::string> errs;
    std::string_view name = key;
    auto slash = key.find('/');
    if (slash != std::string_view::npos && key.find('/', slash + 1) != std::string_view::npos)
        return {"a qualified name " + regexError(kQualifiedNameErrMsg, kQualifiedNamePattern, {"MyName", "my.name", "123-abc"}) +
                " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')"};
    if (slash != std::string_view::npos) {
        auto prefix = key.substr(0, slash);
        name = key.substr(slash + 1);
        if (prefix.empty()) errs.push_back("prefix part must be non-empty");
        for (auto const& e : prefix.empty() ? std::vector<std::string>{} : subdomainErrors(prefix)) errs.push_back("prefix part " + e);
    }
    if (name.empty()) errs.push_back("name part must be non-empty");
    else if (name.size() > 63) errs.push_back("name part " + maxLenError(63));
    if (!isQualifiedNamePart(name))
        errs.push_back("name part " + regexError(kQualifiedNameErrMsg, kQualifiedNamePattern, {"MyName", "my.name", "123-abc"}));
    return errs;
}

std::vector<std::string> labelValueErrors(std::string_view value) {
    std::vector<std::string> errs;
    if (value.size() > 63) errs.push_back(maxLenError(63));
    if (!value.empty() && !isQualifiedNamePart(value))
        errs.push_back(regexError("a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', "
                                  "and must start and end with an alphanumeric character",
                                  kLabelValuePattern, {"MyValue", "my_value", "12345"}));
    return errs;
}

std::optional<std::string> labelKeyError(std::string_view key, std::string_view path) {
    auto errs = qualifiedNameErrors(key);
    if (errs.empty()) return std::nullopt;
    return std::string(path) + ": Invalid value: " + goQuote(key) + ": " + join(errs, "; ");
}

std::optional<std::string> labelValueError(std::string_view value, std::string_view path) {
    auto errs = labelValueErrors(value);
    if (errs.empty()) return std::nullopt;
    return std::string(path) + ": Invalid value: " + goQuote(value) + ": " + join(errs, "; ");
}

std::string goQuote(std::string_view s) {
    static const std::string_view named = "\a\b\f\n\r\t\v", letters = "abfnrtv";
    std::string out = "\"";
    char buf[16];
    for (size_t i = 0; i < s.size();) {
        auto c = static_cast<unsigned char>(s[i]);
        size_t n = utf8Length(c);
        if (n > 1) {
            long cp = decodeUtf8(s, i, n);
            if (cp < 0) {
                std::snprintf(buf, sizeof buf, "\\x%02x", c);
                out += buf;
                ++i;
            } else if (cp < 0xA0 || cp == 0xAD) {  // C1 controls and the soft hyphen are not printable
                std::snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned>(cp));
                out += buf;
                i += n;
            } else {
                out.append(s.substr(i, n));
                i += n;
            }
            continue;
        }
        if (c == '"' || c == '\\') out += std::string("\\") + static_cast<char>(c);
        else if (auto k = named.find(static_cast<char>(c)); c != 0 && k != std::string_view::npos) out += std::string("\\") + letters[k];
        else if (c < 0x20 || c >= 0x7F) {
            std::snprintf(buf, sizeof buf, "\\x%02x", c);
            out += buf;
        } else out += static_cast<char>(c);
        ++i;
    }
    return out + "\"";
}

std::string goSliceText(const std::vector<std::string>& values) {
    if (values.empty()) return "[]string(nil)";
    std::string s = "[]string{";
    for (size_t i = 0; i < values.size(); ++i) s += (i ? ", " : "") + goQuote(values[i]);
    return s + "}";
}

std::string aggregateText(const std::vector<std::string>& messages) {
    std::vector<std::string> seen;
    for (auto const& m : messages)
        if (std::find(seen.begin(), seen.end(), m) == seen.end()) seen.push_back(m);
    if (seen.size() == 1) return seen.front();
    return "[" + join(seen, ", ") + "]";
}

}  // namespace trainer::core::apiserver
