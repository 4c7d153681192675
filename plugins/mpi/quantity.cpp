#include "quantity.hpp"

#include <array>
#include <cctype>
#include <limits>
#include <string>
#include <utility>

namespace trainer::plugins::mpi {
namespace {

using Int = __int128;
constexpr Int kCap = static_cast<Int>(std::numeric_limits<int64_t>::max());

// Suffix → (power of 10, power of 2). Empty suffix handled by the caller.
struct Suffix {
    std::string_view text;
    int pow10;
    int pow2;
};
constexpr std::array<Suffix, 15> kSuffixes{{
    {"n", -9, 0}, {"u", -6, 0}, {"m", -3, 0}, {"k", 3, 0}, {"M", 6, 0}, {"G", 9, 0},
    {"T", 12, 0}, {"P", 15, 0}, {"E", 18, 0}, {"Ki", 0, 10}, {"Mi", 0, 20}, {"Gi", 0, 30},
    {"Ti", 0, 40}, {"Pi", 0, 50}, {"Ei", 0, 60},
}};

Int mulCapped(Int a, Int b) {
    if (a == 0 || b == 0) return 0;
    if (a > kCap / b) return kCap + 1;
    return a * b;
}

}  // namespace

std::optional<int64_t> quantityCeil(std::string_view q) {
    size_t i = 0;
    bool negative = false;
    if (i < q.size() && (q[i] == '+' || q[i] == '-')) negative = q[i++] == '-';
    Int mantissa = 0;
    int pow10 = 0;
    bool digits = false;
    auto addDigit = [&](char c) {
        digits = true;
        if (mantissa > kCap) return false;  // keep the magnitude; extra digits only scale it
        mantissa = mantissa * 10 + (c - '0');
        return true;
    };
    for (; i < q.size() && std::isdigit(static_cast<unsigned char>(q[i])); ++i)
        if (!addDigit(q[i])) ++pow10;
    if (i < q.size() && q[i] == '.') {
        for (++i; i < q.size() && std::isdigit(static_cast<unsigned char>(q[i])); ++i)
            if (addDigit(q[i])) --pow10;
    }
    if (!digits) return std::nullopt;
    int pow2 = 0;
    std::string_view rest = q.substr(i);
    if (!rest.empty()) {
        const Suffix* suffix = nullptr;
        for (auto const& s : kSuffixes)
            if (s.text == rest) suffix = &s;
        if (suffix) {
            pow10 += suffix->pow10;
            pow2 = suffix->pow2;
        } else if (rest[0] == 'e' || rest[0] == 'E') {  // decimal exponent: "1e3", "5E-2"
            size_t j = 1;
            bool expNeg = false;
            if (j < rest.size() && (rest[j] == '+' || rest[j] == '-')) expNeg = rest[j++] == '-';
            if (j >= rest.size()) return std::nullopt;
            int exp = 0;
            for (; j < rest.size(); ++j) {
                if (!std::isdigit(static_cast<unsigned char>(rest[j]))) return std::nullopt;
                if (exp < 1000) exp = exp * 10 + (rest[j] - '0');
            }
            pow10 += expNeg ? -exp : exp;
        } else {
            return std::nullopt;
        }
    }
    Int num = mantissa;
    for (int k = 0; k < pow2 && num <= kCap; ++k) num = mulCapped(num, 2);
    for (; pow10 > 0 && num <= kCap; --pow10) num = mulCapped(num, 10);
    if (pow10 > 0) pow10 = 0;
    Int den = 1;
    for (; pow10 < 0 && den <= kCap; ++pow10) den *= 10;
    if (pow10 < 0) {  // scale below 1e-19: the magnitude is under 1
        num = num == 0 ? 0 : 1;
        den = 2;
    }
    Int whole = num / den;
    bool frac = num % den != 0;
    if (!negative && frac) whole += 1;  // ceil toward +inf
    if (whole > kCap) whole = kCap;
    int64_t v = static_cast<int64_t>(whole);
    return negative ? -v : v;
}

}  // namespace trainer::plugins::mpi
