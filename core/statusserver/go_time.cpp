// metav1.Time's JSON forms (see update_request.hpp): Go's time.Parse(time.RFC3339, s), including
// the general parser's leniencies it falls back to (a one-digit hour, a ',' before the fraction,
// zone offsets up to 24:60), and Format(time.RFC3339) in UTC.
// https://github.com/golang/go/blob/master/src/time/format.go, format_rfc3339.go
#include "core/statusserver/update_request.hpp"

#include <chrono>
#include <cstdio>

namespace trainer::core::statusserver {

namespace {

struct Cursor {
    std::string_view s;
    std::size_t i = 0;
    bool digit(std::size_t k = 0) const { return i + k < s.size() && s[i + k] >= '0' && s[i + k] <= '9'; }
    bool literal(char c) {
        if (i >= s.size() || s[i] != c) return false;
        ++i;
        return true;
    }
    // `width` digits (or 1-2 when `flexible`, as Go's getnum(s, false)).
    std::optional<int> number(std::size_t width, bool flexible = false) {
        std::size_t n = 0;
        while (n < width && digit(n)) ++n;
        if (n == 0 || (n < width && !(flexible && n == 1))) return std::nullopt;
        int v = 0;
        for (std::size_t k = 0; k < n; ++k) v = v * 10 + (s[i + k] - '0');
        i += n;
        return v;
    }
};

// Nanoseconds of ".ddddddddd..." (only the first nine digits count, as Go's parseNanoseconds).
int32_t fraction(Cursor& c) {
    if (c.i + 1 >= c.s.size() || (c.s[c.i] != '.' && c.s[c.i] != ',') || !c.digit(1)) return 0;
    ++c.i;
    int32_t nanos = 0, scale = 100000000;
    for (; c.digit(); ++c.i, scale /= 10)
        if (scale > 0) nanos += (c.s[c.i] - '0') * scale;
    return nanos;
}

// The zone offset in seconds east of UTC: "Z" or ±hh:mm.
std::optional<int64_t> zoneOffset(Cursor& c) {
    if (c.literal('Z')) return 0;
    if (c.i >= c.s.size() || (c.s[c.i] != '+' && c.s[c.i] != '-')) return std::nullopt;
    int sign = c.s[c.i++] == '-' ? -1 : 1;
    auto hh = c.number(2);
    if (!hh || !c.literal(':')) return std::nullopt;
    auto mm = c.number(2);
    if (!mm || *hh > 24 || *mm > 60) return std::nullopt;
    return sign * (int64_t{*hh} * 3600 + int64_t{*mm} * 60);
}

}  // namespace

std::optional<GoTime> parseGoRfc3339(std::string_view s) {
    using namespace std::chrono;
    Cursor c{s};
    auto Y = c.number(4);
    if (!Y || !c.literal('-')) return std::nullopt;
    auto M = c.number(2);
    if (!M || !c.literal('-')) return std::nullopt;
    auto D = c.number(2);
    if (!D || !c.literal('T')) return std::nullopt;
    auto h = c.number(2, true);
    if (!h || !c.literal(':')) return std::nullopt;
    auto m = c.number(2);
    if (!m || !c.literal(':')) return std::nullopt;
    auto sec = c.number(2);
    if (!sec || *M < 1 || *M > 12 || *h > 23 || *m > 59 || *sec > 59) return std::nullopt;
    int32_t nanos = fraction(c);
    auto offset = zoneOffset(c);
    if (!offset || c.i != s.size()) return std::nullopt;
    year_month_day ymd{year{*Y}, month{static_cast<unsigned>(*M)}, day{static_cast<unsigned>(*D)}};
    if (!ymd.ok()) return std::nullopt;
    int64_t days = sys_days(ymd).time_since_epoch().count();
    return GoTime{days * 86400 + int64_t{*h} * 3600 + int64_t{*m} * 60 + *sec - *offset, nanos};
}

std::string formatGoRfc3339(const GoTime& t) {
    using namespace std::chrono;
    int64_t days = t.seconds >= 0 ? t.seconds / 86400 : -((-t.seconds + 86399) / 86400);
    int64_t rest = t.seconds - days * 86400;
    year_month_day ymd{sys_days{std::chrono::days{days}}};
    int y = static_cast<int>(ymd.year());
    char buf[48];
    std::snprintf(buf, sizeof buf, "%s%04d-%02u-%02uT%02d:%02d:%02dZ", y < 0 ? "-" : "", y < 0 ? -y : y,
                  static_cast<unsigned>(ymd.month()), static_cast<unsigned>(ymd.day()), static_cast<int>(rest / 3600),
                  static_cast<int>(rest / 60 % 60), static_cast<int>(rest % 60));
    return buf;
}

}  // namespace trainer::core::statusserver
