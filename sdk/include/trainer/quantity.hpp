// Kubernetes resource quantities ("2500m", "2Gi", "1e3") with exact arithmetic, and helpers over
// resource lists (JSON objects of resource name -> quantity). Header-only; no exceptions.
//
// Value: an exact integer count of nano-units (__int128). Parsing follows the Kubernetes grammar
// (signed decimal number, then one of "", m, u, n, k, M, G, T, P, E, Ki..Ei, or e/E<int>);
// precision below 1n is rounded up (away from zero) to the next nano-unit, as Kubernetes does;
// magnitudes of 1e27 or more are rejected.
//
// toString() rule (documented contract, all forms parse back to the same value):
//   - 0 prints "0";
//   - a whole number prints as a plain integer ("4", "2000"), except when the quantity is binary
//     (every input carried a binary suffix) and it is a non-zero multiple of 1024: then the
//     largest binary suffix that keeps an integer mantissa is used (2Gi*2 -> "4Gi",
//     1.5Gi -> "1536Mi");
//   - a fractional value prints with the largest of m, u, n giving an integer mantissa
//     ("1500m", "1500u", "5n").
#pragma once

#include <boost/json.hpp>

#include <charconv>
#include <compare>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace trainer::sdk {

namespace quantity_detail {

struct Suffix {
    std::string_view text;
    int decimalExp;   // power of ten (decimal suffixes)
    int binaryExp;    // power of 1024 (binary suffixes), 0 for decimal
};
inline constexpr Suffix kSuffixes[] = {
    {"", 0, 0},    {"n", -9, 0},  {"u", -6, 0},  {"m", -3, 0},  {"k", 3, 0},   {"M", 6, 0},   {"G", 9, 0},
    {"T", 12, 0},  {"P", 15, 0},  {"E", 18, 0},  {"Ki", 0, 1},  {"Mi", 0, 2},  {"Gi", 0, 3},  {"Ti", 0, 4},
    {"Pi", 0, 5},  {"Ei", 0, 6},
};

inline bool isDigit(char c) { return c >= '0' && c <= '9'; }

// Multiplies `v` by `f` unless the product would reach `limit`.
inline bool mulChecked(__int128& v, __int128 f, __int128 limit) {
    if (v != 0 && f != 0 && v > limit / f) return false;
    v *= f;
    return v < limit;
}

// The signed decimal number a quantity starts with: its digits (integer part, then fraction),
// how many of them are the fraction, and where the suffix begins.
struct Mantissa {
    bool negative = false;
    std::string digits;
    int fractionDigits = 0;
    size_t end = 0;
};

// nullopt when `s` does not start with a number holding at least one digit.
inline std::optional<Mantissa> scanMantissa(std::string_view s) {
    Mantissa m;
    size_t i = 0;
    if (i < s.size() && (s[i] == '+' || s[i] == '-')) m.negative = s[i++] == '-';
    const size_t intStart = i;
    while (i < s.size() && isDigit(s[i])) m.digits += s[i++];
    bool sawDigits = i > intStart;
    if (i < s.size() && s[i] == '.') {
        ++i;
        const size_t fracStart = i;
        while (i < s.size() && isDigit(s[i])) m.digits += s[i++];
        m.fractionDigits = static_cast<int>(i - fracStart);
        sawDigits = sawDigits || m.fractionDigits > 0;
    }
    if (!sawDigits) return std::nullopt;
    m.end = i;
    return m;
}

// What a suffix multiplies by: 10^decimal * 1024^binary.
struct Exponents {
    int decimal = 0;
    int binary = 0;
};

// A known suffix (kSuffixes) or a decimal exponent, e/E followed by a signed integer; nullopt
// for anything else.
inline std::optional<Exponents> suffixExponents(std::string_view suffix) {
    for (auto const& sfx : kSuffixes)
        if (sfx.text == suffix) return Exponents{sfx.decimalExp, sfx.binaryExp};
    if (suffix.size() < 2 || (suffix[0] != 'e' && suffix[0] != 'E')) return std::nullopt;
    const std::string_view e = suffix.substr(1);
    size_t j = 0;
    bool negative = false;
    if (e[j] == '+' || e[j] == '-') negative = e[j++] == '-';
    if (j >= e.size()) return std::nullopt;
    int exp = 0;
    for (; j < e.size(); ++j) {
        if (!isDigit(e[j])) return std::nullopt;
        if (exp < 100000) exp = exp * 10 + (e[j] - '0');
    }
    return Exponents{negative ? -exp : exp, 0};
}

}  // namespace quantity_detail

// One Kubernetes quantity.
class Quantity {
public:
    using Nano = __int128;

    // Default: zero with no format (adopts the other operand's format in add()).
    Quantity() = default;

    // Parses any Kubernetes quantity string; nullopt when invalid.
    static std::optional<Quantity> parse(std::string_view s);
    // Parses a JSON value: a quantity string or a number (YAML `cpu: 1`); nullopt otherwise.
    static std::optional<Quantity> fromJson(const boost::json::value& v);
    // An integer number of units (decimal format).
    static Quantity fromInt(int64_t units) { return Quantity(static_cast<Nano>(units) * kNanoPerUnit, Format::Decimal); }

    // Exact sum; binary only when both operands are binary (an unformatted zero is neutral).
    Quantity add(const Quantity& o) const;
    // Exact product with an integer; keeps the format. Saturates at +-1e27 units.
    Quantity multiply(int64_t factor) const;
    // The larger of the two (keeps that operand's format).
    static const Quantity& max(const Quantity& a, const Quantity& b) { return a.nano_ >= b.nano_ ? a : b; }

    // Smallest integer >= value, saturated to the int64 range.
    int64_t ceilToInt() const;
    // Value in milli-units rounded up (Kubernetes MilliValue), saturated.
    int64_t milliValue() const;
    Nano nanoValue() const { return nano_; }
    bool isZero() const { return nano_ == 0; }
    bool isBinary() const { return format_ == Format::Binary; }

    // Canonical text (rule in the file comment).
    std::string toString() const;

    friend bool operator==(const Quantity& a, const Quantity& b) { return a.nano_ == b.nano_; }
    friend std::strong_ordering operator<=>(const Quantity& a, const Quantity& b) { return a.nano_ <=> b.nano_; }

private:
    enum class Format { Unset, Decimal, Binary };
    static constexpr Nano kNanoPerUnit = 1'000'000'000;
    static constexpr Nano kLimit = static_cast<Nano>(1'000'000'000'000'000'000LL) * 1'000'000'000'000'000'000LL;  // 1e36 nano

    Quantity(Nano n, Format f) : nano_(n), format_(f) {}
    // parse() after the scan: the number's value in nano-units, rounded up below 1n.
    static std::optional<Quantity> fromParts(quantity_detail::Mantissa m, quantity_detail::Exponents e);
    // For a negative scale: drops the mantissa's digits below one nano-unit (setting `sticky` when any was not
    // zero) and adjusts `scale`; true when the whole value is below it (then it is +-1n).
    static bool dropBelowNano(std::string& mantissa, long& scale, int binaryExp, bool& sticky);
    // mantissa * 10^scale * 1024^binaryExp, plus 1n when `sticky` or when the division by a negative
    // scale drops a non-zero remainder; nullopt at 1e27 units or more.
    static std::optional<Nano> scaledValue(const std::string& mantissa, long scale, int binaryExp, bool sticky);
    static std::string digits(Nano v);
    // a+b or a*b, clamped to (-kLimit, kLimit) instead of overflowing.
    static Nano saturate(Nano a, Nano b, bool sum) {
        Nano r;
        bool overflow = sum ? __builtin_add_overflow(a, b, &r) : __builtin_mul_overflow(a, b, &r);
        bool negative = sum ? (a < 0 && b < 0) : ((a < 0) != (b < 0));
        if (overflow || r >= kLimit || r <= -kLimit) return negative ? -(kLimit - 1) : kLimit - 1;
        return r;
    }

    Nano nano_ = 0;
    Format format_ = Format::Unset;
};


inline std::optional<Quantity> Quantity::parse(std::string_view s) {
    using namespace quantity_detail;
    auto mantissa = scanMantissa(s);
    if (!mantissa) return std::nullopt;
    auto exponents = suffixExponents(s.substr(mantissa->end));
    if (!exponents) return std::nullopt;
    return fromParts(std::move(*mantissa), *exponents);
}

inline std::optional<Quantity> Quantity::fromParts(quantity_detail::Mantissa m, quantity_detail::Exponents e) {
    const Format format = e.binary ? Format::Binary : Format::Decimal;
    std::string& mantissa = m.digits;
    // Normalise: drop leading zeros and trailing fraction zeros.
    const size_t lead = mantissa.find_first_not_of('0');
    if (lead == std::string::npos) return Quantity(0, format);
    mantissa.erase(0, lead);
    while (m.fractionDigits > 0 && mantissa.back() == '0') {
        mantissa.pop_back();
        --m.fractionDigits;
    }
    // value(nano) = mantissa * 10^scale * 1024^binary
    long scale = 9L - m.fractionDigits + e.decimal;
    bool sticky = false;  // some non-zero digits were dropped: round up
    if (scale < 0 && dropBelowNano(mantissa, scale, e.binary, sticky)) return Quantity(m.negative ? -1 : 1, format);
    auto v = scaledValue(mantissa, scale, e.binary, sticky);
    if (!v) return std::nullopt;
    return Quantity(m.negative ? -*v : *v, format);
}

inline bool Quantity::dropBelowNano(std::string& mantissa, long& scale, int binaryExp, bool& sticky) {
    long drop = -scale;
    // Below one nano-unit before the binary multiplier; keep enough digits to stay exact.
    if (static_cast<long>(mantissa.size()) <= drop && (binaryExp == 0 || drop - static_cast<long>(mantissa.size()) > 30))
        return true;
    while (binaryExp != 0 && drop > 37 && mantissa.size() > 1) {
        sticky = sticky || mantissa.back() != '0';
        mantissa.pop_back();
        --drop;
        ++scale;
    }
    if (binaryExp != 0 && drop > 37) return true;
    if (binaryExp == 0) {
        sticky = mantissa.find_first_not_of('0', mantissa.size() - drop) != std::string::npos;
        mantissa.erase(mantissa.size() - drop);
        scale = 0;
    }
    return false;
}

inline std::optional<Quantity::Nano> Quantity::scaledValue(const std::string& mantissa, long scale, int binaryExp, bool sticky) {
    using quantity_detail::mulChecked;
    if (mantissa.size() > 38) return std::nullopt;
    Nano v = 0;
    for (char c : mantissa)
        if (!mulChecked(v, 10, kLimit * 100) || (v += c - '0') >= kLimit * 100) return std::nullopt;
    for (int k = 0; k < binaryExp; ++k)
        if (!mulChecked(v, 1024, kLimit * 100)) return std::nullopt;
    if (scale >= 0) {
        for (long k = 0; k < scale; ++k)
            if (!mulChecked(v, 10, kLimit)) return std::nullopt;
    } else {
        Nano div = 1;
        for (long k = 0; k < -scale; ++k) div *= 10;
        sticky = sticky || v % div != 0;
        v /= div;
    }
    if (sticky) ++v;
    if (v >= kLimit) return std::nullopt;
    return v;
}

inline std::optional<Quantity> Quantity::fromJson(const boost::json::value& v) {
    if (v.is_string()) return parse(v.get_string());
    if (v.is_int64()) return fromInt(v.get_int64());
    if (v.is_uint64()) {
        if (v.get_uint64() > static_cast<uint64_t>(INT64_MAX)) return std::nullopt;
        return fromInt(static_cast<int64_t>(v.get_uint64()));
    }
    if (v.is_double()) {
        char buf[64];
        auto r = std::to_chars(buf, buf + sizeof buf, v.get_double());
        if (r.ec != std::errc()) return std::nullopt;
        return parse(std::string_view(buf, static_cast<size_t>(r.ptr - buf)));
    }
    return std::nullopt;
}

inline Quantity Quantity::add(const Quantity& o) const {
    Format f = format_ == Format::Unset ? o.format_
               : o.format_ == Format::Unset ? format_
               : (format_ == Format::Binary && o.format_ == Format::Binary) ? Format::Binary
                                                                              : Format::Decimal;
    return Quantity(saturate(nano_, o.nano_, true), f);
}

inline Quantity Quantity::multiply(int64_t factor) const {
    return Quantity(saturate(nano_, factor, false), format_);
}

inline int64_t Quantity::ceilToInt() const {
    Nano q = nano_ / kNanoPerUnit;
    if (nano_ % kNanoPerUnit > 0) ++q;
    if (q > INT64_MAX) return INT64_MAX;
    if (q < INT64_MIN) return INT64_MIN;
    return static_cast<int64_t>(q);
}

inline int64_t Quantity::milliValue() const {
    constexpr Nano perMilli = 1'000'000;
    Nano q = nano_ / perMilli;
    if (nano_ % perMilli > 0) ++q;
    if (q > INT64_MAX) return INT64_MAX;
    if (q < INT64_MIN) return INT64_MIN;
    return static_cast<int64_t>(q);
}

inline std::string Quantity::digits(Nano v) {
    if (v == 0) return "0";
    bool neg = v < 0;
    std::string out;
    while (v != 0) {
        int d = static_cast<int>(v % 10);
        out.insert(out.begin(), static_cast<char>('0' + (neg ? -d : d)));
        v /= 10;
    }
    return neg ? "-" + out : out;
}

inline std::string Quantity::toString() const {
    if (nano_ == 0) return "0";
    if (nano_ % kNanoPerUnit == 0) {
        Nano units = nano_ / kNanoPerUnit;
        if (format_ == Format::Binary && units % 1024 == 0) {
            static constexpr std::string_view names[] = {"Ki", "Mi", "Gi", "Ti", "Pi", "Ei"};
            int k = 0;
            while (k < 6 && units % 1024 == 0) {
                units /= 1024;
                ++k;
            }
            return digits(units) + std::string(names[k - 1]);
        }
        return digits(units);
    }
    if (nano_ % 1'000'000 == 0) return digits(nano_ / 1'000'000) + "m";
    if (nano_ % 1'000 == 0) return digits(nano_ / 1'000) + "u";
    return digits(nano_) + "n";
}

// ---- resource lists: JSON objects {"cpu": "1", "memory": "2Gi"} ----

// The first key whose value is not a valid quantity, or nullopt when all are valid.
inline std::optional<std::string> invalidResourceKey(const boost::json::object& list) {
    for (auto const& kv : list)
        if (!Quantity::fromJson(kv.value())) return std::string(kv.key());
    return std::nullopt;
}

namespace quantity_detail {
// Each value of `list` as a quantity, in order; false when one is not a quantity.
inline bool quantitiesOf(const boost::json::object& list, std::vector<Quantity>& out) {
    out.reserve(list.size());
    for (auto const& kv : list) {
        auto q = Quantity::fromJson(kv.value());
        if (!q) return false;
        out.push_back(*q);
    }
    return true;
}

// a's keys in a's order, then b's new ones; a shared key's value is f(a's, b's). Every value is
// parsed once (pod requests combine a TrainJob's lists several times).
template <class Combine>
std::optional<boost::json::object> combine(const boost::json::object& a, const boost::json::object& b, Combine f) {
    std::vector<Quantity> qa, qb;
    if (!quantitiesOf(a, qa) || !quantitiesOf(b, qb)) return std::nullopt;
    boost::json::object out(a.size() + b.size());
    for (std::size_t i = 0; i < qa.size(); ++i) out[(a.begin() + i)->key()] = qa[i].toString();
    for (std::size_t i = 0; i < qb.size(); ++i) {
        auto const& kv = *(b.begin() + i);
        auto it = out.find(kv.key());
        if (it == out.end()) out[kv.key()] = qb[i].toString();
        else it->value() = f(*Quantity::fromJson(it->value()), qb[i]).toString();
    }
    return out;
}
}  // namespace quantity_detail

// Key-wise sum (keys of both kept); nullopt when a value is not a quantity.
inline std::optional<boost::json::object> addResourceLists(const boost::json::object& a, const boost::json::object& b) {
    return quantity_detail::combine(a, b, [](const Quantity& x, const Quantity& y) { return x.add(y); });
}
// Key-wise maximum (keys of both kept); nullopt when a value is not a quantity.
inline std::optional<boost::json::object> maxResourceLists(const boost::json::object& a, const boost::json::object& b) {
    return quantity_detail::combine(a, b, [](const Quantity& x, const Quantity& y) { return Quantity::max(x, y); });
}
// Every value multiplied by `factor`; nullopt when a value is not a quantity.
inline std::optional<boost::json::object> scaleResourceList(const boost::json::object& list, int64_t factor) {
    if (invalidResourceKey(list)) return std::nullopt;
    boost::json::object out;
    for (auto const& kv : list) out[kv.key()] = Quantity::fromJson(kv.value())->multiply(factor).toString();
    return out;
}
// Key-wise overlay: keys of `base` kept, `overlay` wins per key. Values are copied verbatim.
inline boost::json::object mergeResourceList(const boost::json::object& base, const boost::json::object& overlay) {
    boost::json::object out = base;
    for (auto const& kv : overlay) out[kv.key()] = kv.value();
    return out;
}

}  // namespace trainer::sdk
