#include "core/api/known_patterns.hpp"

#include "core/api/dns_names.hpp"

#include <algorithm>
#include <array>
#include <utility>

namespace trainer::core {

namespace {

bool digit(char c) { return c >= '0' && c <= '9'; }
bool alpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
bool alnum(char c) { return alpha(c) || digit(c); }

// `first` on the first character, `last` on the last, `middle` on the ones between: the shape
// of every name pattern here, x(y*z)?.
template <class First, class Middle, class Last>
bool shaped(std::string_view s, First first, Middle middle, Last last) {
    if (s.empty() || !first(s.front())) return false;
    if (s.size() == 1) return true;
    return last(s.back()) && std::all_of(s.begin() + 1, s.end() - 1, middle);
}

// `n` digits at `at` (moved past them).
bool digits(std::string_view s, size_t& at, size_t n) {
    if (s.size() - at < n || !std::all_of(s.begin() + at, s.begin() + at + n, digit)) return false;
    at += n;
    return true;
}

bool literal(std::string_view s, size_t& at, std::string_view options) {
    if (at >= s.size() || options.find(s[at]) == std::string_view::npos) return false;
    ++at;
    return true;
}

// ([0-9]+(\.[0-9]*)?)|(\.[0-9]+), as long as it goes, from `at`; false when there is none.
bool decimal(std::string_view s, size_t& at) {
    const size_t start = at;
    while (at < s.size() && digit(s[at])) ++at;
    const bool whole = at > start;
    if (at < s.size() && s[at] == '.') {
        ++at;
        const size_t fraction = at;
        while (at < s.size() && digit(s[at])) ++at;
        return whole || at > fraction;
    }
    return whole;
}

// ^(\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\+|-)?(...)))?$, the
// CRDs' resource quantity. No suffix starts with a digit or a dot, so the number is the longest.
bool isQuantity(std::string_view s) {
    size_t at = 0;
    literal(s, at, "+-");
    if (!decimal(s, at)) return false;
    const std::string_view suffix = s.substr(at);
    if (suffix.empty()) return true;
    if (suffix.size() == 2 && suffix[1] == 'i' && std::string_view("KMGTPE").find(suffix[0]) != std::string_view::npos)
        return true;
    if (suffix.size() == 1 && std::string_view("numkMGTPE").find(suffix[0]) != std::string_view::npos) return true;
    size_t e = 0;
    if (!literal(suffix, e, "eE")) return false;
    literal(suffix, e, "+-");
    return decimal(suffix, e) && e == suffix.size();
}

// ^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])$:
// a label key. Neither part may hold a slash, so the first one divides them.
bool isQualifiedKey(std::string_view s) {
    const size_t slash = s.find('/');
    if (slash == std::string_view::npos) return isQualifiedNamePart(s);
    return isDns1123Subdomain(s.substr(0, slash)) && isQualifiedNamePart(s.substr(slash + 1));
}

// ^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$
bool isIdentifierList(std::string_view s) {
    auto word = [](char c) { return alnum(c) || c == '_'; };
    return shaped(s, alpha, [&](char c) { return word(c) || c == ',' || c == ':'; }, word);
}

// ^[A-Za-z][A-Za-z0-9+.-]*://.+$ (a CEL rule's URL). The scheme's characters hold no colon, so
// the first "://" ends it; `.` is any character but a line terminator.
bool isUrl(std::string_view s) {
    if (s.empty() || !alpha(s[0])) return false;
    size_t at = 1;
    while (at < s.size() && (alnum(s[at]) || s[at] == '+' || s[at] == '.' || s[at] == '-')) ++at;
    if (s.substr(at, 3) != "://") return false;
    const std::string_view rest = s.substr(at + 3);
    return !rest.empty() && rest.find_first_of("\n\r") == std::string_view::npos;
}

// ^[a-z]([-a-z0-9]*[a-z0-9])?$ (a CEL rule's object name).
bool isLowerAlphaLabel(std::string_view s) {
    auto lower = [](char c) { return c >= 'a' && c <= 'z'; };
    auto lowerAlnum = [&](char c) { return lower(c) || digit(c); };
    return shaped(s, lower, [&](char c) { return lowerAlnum(c) || c == '-'; }, lowerAlnum);
}

}  // namespace

bool isDns1123Subdomain(std::string_view s) {
    for (size_t at = 0;;) {
        const size_t dot = s.find('.', at);
        if (!isDns1123LabelChars(s.substr(at, dot == std::string_view::npos ? std::string_view::npos : dot - at)))
            return false;
        if (dot == std::string_view::npos) return true;
        at = dot + 1;
    }
}

bool isQualifiedNamePart(std::string_view s) {
    return shaped(s, alnum, [](char c) { return alnum(c) || c == '-' || c == '_' || c == '.'; }, alnum);
}

bool isLabelValue(std::string_view s) { return s.empty() || isQualifiedNamePart(s); }

// \d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})
bool isRfc3339(std::string_view s) {
    size_t at = 0;
    auto lit = [&](std::string_view options) { return literal(s, at, options); };
    if (!(digits(s, at, 4) && lit("-") && digits(s, at, 2) && lit("-") && digits(s, at, 2) && lit("Tt ") &&
          digits(s, at, 2) && lit(":") && digits(s, at, 2) && lit(":") && digits(s, at, 2)))
        return false;
    if (at < s.size() && s[at] == '.') {
        ++at;
        if (!digits(s, at, 1)) return false;
        while (at < s.size() && digit(s[at])) ++at;
    }
    if (lit("Zz")) return at == s.size();
    return lit("+-") && digits(s, at, 2) && lit(":") && digits(s, at, 2) && at == s.size();
}

PatternMatcher knownPattern(std::string_view pattern) {
    static constexpr std::array<std::pair<std::string_view, PatternMatcher>, 5> kKnown{{
        {R"(^(\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))))?$)",
         isQuantity},
        {R"(^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])$)",
         isQualifiedKey},
        {R"(^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$)", isIdentifierList},
        {R"(^[A-Za-z][A-Za-z0-9+.-]*://.+$)", isUrl},
        {R"(^[a-z]([-a-z0-9]*[a-z0-9])?$)", isLowerAlphaLabel},
    }};
    for (auto const& [text, matcher] : kKnown)
        if (text == pattern) return matcher;
    return nullptr;
}

}  // namespace trainer::core
