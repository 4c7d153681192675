// The upstream code each part follows (readers can open these):
//   Go's JSON decoding:   https://github.com/golang/go/tree/go1.23.0/src/encoding/json (scanner.go, decode.go)
//                         https://github.com/kubernetes-sigs/json (strict decoding, PreserveInts)
//   merge / JSON patch:   https://github.com/evanphx/json-patch/tree/v4.12.0 (merge.go, patch.go)
//   strategic merge:      https://github.com/kubernetes/apimachinery/tree/v0.32.13/pkg/util/strategicpatch
//   request handling:     https://github.com/kubernetes/kubernetes/blob/v1.32.0/staging/src/k8s.io/apiserver/pkg/endpoints/handlers/patch.go
//   status wording:       https://github.com/kubernetes/apimachinery/blob/v0.32.13/pkg/api/errors/errors.go
#include "core/apiserver/patch.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <limits>
#include <unordered_map>
#include <unordered_set>
#include <utility>

namespace trainer::core::apiserver {

namespace {

// Bodies nested deeper fail with encoding/json's "exceeded max depth" syntax error. Go allows
// 10000 levels (scanner.go maxNestingDepth); this cap is lower so that the recursive merges stay
// far inside a thread's stack (about 1 MiB at this depth even with sanitizers).
constexpr std::size_t kMaxNestingDepth = 1000;
// handlers/patch.go maxJSONPatchOperations.
constexpr std::size_t kMaxJsonPatchOperations = 10000;
// jsonpatch.AccumulatedCopySizeLimit as the API server sets it (JSONPatchMaxCopyBytes, 3 MiB).
constexpr std::size_t kMaxAccumulatedCopyBytes = 3 * 1024 * 1024;
// sigs.k8s.io/json saveStrictError keeps at most this many findings.
constexpr std::size_t kMaxStrictErrors = 100;

constexpr std::string_view kGenericInvalid = "the server rejected our request due to an error in our request";
constexpr std::string_view kPanicMessage = "This request caused apiserver to panic. Look in the logs for details.";
// runtime/serializer/json/meta.go SimpleMetaFactory.Interpret on a non-object document.
constexpr std::string_view kInterpretArray =
    "couldn't get version/kind; json parse error: json: cannot unmarshal array into Go value of type "
    "struct { APIVersion string \"json:\\\"apiVersion,omitempty\\\"\"; Kind string \"json:\\\"kind,omitempty\\\"\" }";

// ---------------------------------------------------------------------------------------------
// Go text formatting (strconv.Quote, fmt %v / %s, encoding/json Marshal) for error messages.

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

struct Rune {
    std::uint32_t value;
    std::size_t size;
    bool valid;
};

// utf8.DecodeRune: an invalid sequence decodes as one byte of U+FFFD.
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

// strconv.Quote.
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

// scanner.go quoteChar: the offending byte as a Go rune literal.
std::string goQuoteChar(unsigned char c) {
    if (c == '\'') return "'\\''";
    if (c == '"') return "'\"'";
    std::string rune;
    appendUtf8(rune, c);
    std::string q = goQuote(rune);
    return "'" + q.substr(1, q.size() - 2) + "'";
}

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

// fmt %v of a float64: strconv 'g' with the shortest digits, in exponent form below 1e-4 and from
// 1e6 up (strconv counts the shortest precision as 6 for that choice).
std::string goFloatV(double f) {
    if (std::isinf(f)) return f > 0 ? "+Inf" : "-Inf";
    std::string sign = std::signbit(f) ? "-" : "";
    if (f == 0) return sign + "0";
    Digits d = shortestDigits(f);
    if (d.exponent < -4 || d.exponent >= 6) return sign + formatExponent(d, false);
    return sign + formatFixed(d);
}

// encoding/json floatEncoder for float64.
std::string goJsonFloat(double f) {
    if (!std::isfinite(f)) f = f > 0 ? std::numeric_limits<double>::max() : std::numeric_limits<double>::lowest();
    std::string sign = std::signbit(f) ? "-" : "";
    if (f == 0) return sign + "0";
    Digits d = shortestDigits(f);
    double a = std::fabs(f);
    if (a < 1e-6 || a >= 1e21) return sign + formatExponent(d, true);
    return sign + formatFixed(d);
}

enum class GoKind { Nil, Map, Slice, String, Int64, Float64, Bool };

// The Go type a value has after decoding into interface{} (PreserveInts).
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

// reflect.Type.String() of a decoded value; "%!s(<nil>)" is how %s prints a nil reflect.Type.
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
    if (depth > kMaxNestingDepth && (v.is_object() || v.is_array())) {
        out += "...";  // documents deeper than any accepted patch body are not printed in full
        return;
    }
    if (v.is_object()) {
        std::vector<std::pair<std::string_view, const json::value*>> items;
        for (auto const& kv : v.get_object()) items.emplace_back(kv.key(), &kv.value());
        std::sort(items.begin(), items.end(), [](auto const& a, auto const& b) { return a.first < b.first; });
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

std::string goValue(const json::value& v, char verb = 'v') {
    std::string out;
    appendGoValue(out, v, verb);
    return out;
}

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
    if (depth > kMaxNestingDepth && (v.is_object() || v.is_array())) {
        out += "null";  // documents deeper than any accepted patch body are not printed in full
        return;
    }
    switch (v.kind()) {
    case json::kind::object: {
        std::vector<std::pair<std::string_view, const json::value*>> items;
        for (auto const& kv : v.get_object()) items.emplace_back(kv.key(), &kv.value());
        std::sort(items.begin(), items.end(), [](auto const& a, auto const& b) { return a.first < b.first; });
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

std::string goJson(const json::value& v) {
    std::string out;
    appendGoJson(out, v);
    return out;
}

bool startsWith(std::string_view s, std::string_view prefix) { return s.substr(0, prefix.size()) == prefix; }

// ---------------------------------------------------------------------------------------------
// Go's encoding/json syntax check (scanner.go checkValid), state by state, with its error texts.

class GoSyntaxChecker {
public:
    // "" when `data` is one valid JSON value, else the SyntaxError text.
    std::string check(std::string_view data) {
        for (char ch : data) {
            if (!step(static_cast<unsigned char>(ch))) return err_;
        }
        if (!endTop_) step(' ');
        if (!err_.empty()) return err_;
        return endTop_ ? "" : "unexpected end of JSON input";
    }

private:
    enum class State {
        BeginValue, BeginValueOrEmpty, BeginStringOrEmpty, BeginString, EndValue, EndTop, InString, InStringEsc,
        EscU, EscU1, EscU12, EscU123, Neg, One, Zero, Dot, Dot0, E, ESign, E0, T, Tr, Tru, F, Fa, Fal, Fals, N, Nu, Nul
    };
    enum class Parse : std::uint8_t { ObjectKey, ObjectValue, ArrayValue };

    static bool isSpace(unsigned char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }
    static bool isDigit(unsigned char c) { return c >= '0' && c <= '9'; }
    static bool isHex(unsigned char c) { return isDigit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }

    bool error(unsigned char c, std::string_view context) {
        err_ = "invalid character " + goQuoteChar(c) + " " + std::string(context);
        return false;
    }
    bool push(unsigned char c, Parse p) {
        stack_.push_back(p);
        return stack_.size() <= kMaxNestingDepth || error(c, "exceeded max depth");
    }
    void pop() {
        stack_.pop_back();
        state_ = stack_.empty() ? State::EndTop : State::EndValue;
        endTop_ = stack_.empty();
    }
    bool literal(unsigned char c, char want, State next, std::string_view context) {
        if (c == static_cast<unsigned char>(want)) {
            state_ = next;
            return true;
        }
        return error(c, context);
    }

    bool beginValue(unsigned char c) {
        if (isSpace(c)) return true;
        switch (c) {
        case '{': state_ = State::BeginStringOrEmpty; return push(c, Parse::ObjectKey);
        case '[': state_ = State::BeginValueOrEmpty; return push(c, Parse::ArrayValue);
        case '"': state_ = State::InString; return true;
        case '-': state_ = State::Neg; return true;
        case '0': state_ = State::Zero; return true;
        case 't': state_ = State::T; return true;
        case 'f': state_ = State::F; return true;
        case 'n': state_ = State::N; return true;
        default: break;
        }
        if (c >= '1' && c <= '9') {
            state_ = State::One;
            return true;
        }
        return error(c, "looking for beginning of value");
    }

    bool endValue(unsigned char c) {
        if (stack_.empty()) {
            state_ = State::EndTop;
            endTop_ = true;
            return endTop(c);
        }
        if (isSpace(c)) {
            state_ = State::EndValue;
            return true;
        }
        switch (stack_.back()) {
        case Parse::ObjectKey:
            if (c == ':') {
                stack_.back() = Parse::ObjectValue;
                state_ = State::BeginValue;
                return true;
            }
            return error(c, "after object key");
        case Parse::ObjectValue:
            if (c == ',') {
                stack_.back() = Parse::ObjectKey;
                state_ = State::BeginString;
                return true;
            }
            if (c == '}') {
                pop();
                return true;
            }
            return error(c, "after object key:value pair");
        case Parse::ArrayValue:
            if (c == ',') {
                state_ = State::BeginValue;
                return true;
            }
            if (c == ']') {
                pop();
                return true;
            }
            return error(c, "after array element");
        }
        return error(c, "");
    }

    bool endTop(unsigned char c) { return isSpace(c) || error(c, "after top-level value"); }

    bool step(unsigned char c) {
        if (!err_.empty()) return false;
        switch (state_) {
        case State::BeginValue: return beginValue(c);
        case State::BeginValueOrEmpty:
            if (isSpace(c)) return true;
            return c == ']' ? endValue(c) : beginValue(c);
        case State::BeginStringOrEmpty:
            if (isSpace(c)) return true;
            if (c == '}') {
                stack_.back() = Parse::ObjectValue;
                return endValue(c);
            }
            [[fallthrough]];
        case State::BeginString:
            if (isSpace(c)) return true;
            if (c == '"') {
                state_ = State::InString;
                return true;
            }
            return error(c, "looking for beginning of object key string");
        case State::EndValue: return endValue(c);
        case State::EndTop: return endTop(c);
        case State::InString:
            if (c == '"') state_ = State::EndValue;
            else if (c == '\\') state_ = State::InStringEsc;
            else if (c < 0x20) return error(c, "in string literal");
            return true;
        case State::InStringEsc:
            if (std::strchr("bfnrt\\/\"", c) && c != 0) {
                state_ = State::InString;
                return true;
            }
            if (c == 'u') {
                state_ = State::EscU;
                return true;
            }
            return error(c, "in string escape code");
        case State::EscU:
        case State::EscU1:
        case State::EscU12:
        case State::EscU123: {
            if (!isHex(c)) return error(c, "in \\u hexadecimal character escape");
            static constexpr State kNext[] = {State::EscU1, State::EscU12, State::EscU123, State::InString};
            state_ = kNext[static_cast<int>(state_) - static_cast<int>(State::EscU)];
            return true;
        }
        case State::Neg:
            if (c == '0') state_ = State::Zero;
            else if (c >= '1' && c <= '9') state_ = State::One;
            else return error(c, "in numeric literal");
            return true;
        case State::One:
            if (isDigit(c)) return true;
            [[fallthrough]];
        case State::Zero:
            if (c == '.') state_ = State::Dot;
            else if (c == 'e' || c == 'E') state_ = State::E;
            else return endValue(c);
            return true;
        case State::Dot:
            if (!isDigit(c)) return error(c, "after decimal point in numeric literal");
            state_ = State::Dot0;
            return true;
        case State::Dot0:
            if (isDigit(c)) return true;
            if (c == 'e' || c == 'E') {
                state_ = State::E;
                return true;
            }
            return endValue(c);
        case State::E:
            if (c == '+' || c == '-') {
                state_ = State::ESign;
                return true;
            }
            [[fallthrough]];
        case State::ESign:
            if (!isDigit(c)) return error(c, "in exponent of numeric literal");
            state_ = State::E0;
            return true;
        case State::E0: return isDigit(c) || endValue(c);
        case State::T: return literal(c, 'r', State::Tr, "in literal true (expecting 'r')");
        case State::Tr: return literal(c, 'u', State::Tru, "in literal true (expecting 'u')");
        case State::Tru: return literal(c, 'e', State::EndValue, "in literal true (expecting 'e')");
        case State::F: return literal(c, 'a', State::Fa, "in literal false (expecting 'a')");
        case State::Fa: return literal(c, 'l', State::Fal, "in literal false (expecting 'l')");
        case State::Fal: return literal(c, 's', State::Fals, "in literal false (expecting 's')");
        case State::Fals: return literal(c, 'e', State::EndValue, "in literal false (expecting 'e')");
        case State::N: return literal(c, 'u', State::Nu, "in literal null (expecting 'u')");
        case State::Nu: return literal(c, 'l', State::Nul, "in literal null (expecting 'l')");
        case State::Nul: return literal(c, 'l', State::EndValue, "in literal null (expecting 'l')");
        }
        return false;
    }

    State state_ = State::BeginValue;
    std::vector<Parse> stack_;
    bool endTop_ = false;
    std::string err_;
};

// ---------------------------------------------------------------------------------------------
// Decoding a syntactically valid body like Go's Unmarshal into the Go type the server uses,
// collecting the first type error and (in strict mode) sigs.k8s.io/json's strict findings.

// The Go destination of a JSON value.
enum class Shape : std::uint8_t {
    Any,       // interface{}
    OpValue,   // interface{} inside handlers.jsonPatchOp.value (errors name the struct field)
    Raw,       // json.RawMessage, or a value Go skips: never an error
    MapAny,    // map[string]interface{}
    OpList,    // []handlers.jsonPatchOp
    Op,        // handlers.jsonPatchOp
    OpField,   // string field op / path / from of handlers.jsonPatchOp
    RawPatch,  // jsonpatch.Patch
    RawOp,     // jsonpatch.Operation
};

struct Decoded {
    json::value value;
    std::string typeError;                  // first UnmarshalTypeError text, "" if none
    std::vector<std::string> strictErrors;  // duplicate / unknown field findings
};

class GoDecoder {
public:
    GoDecoder(std::string_view data, bool strict) : s_(data), strict_(strict) {}

    Decoded run(Shape top) {
        beginValue(top, "");
        while (!done_) {
            Frame& f = frames_.back();
            skipSpace();
            char c = s_[i_];
            if (c == '}' || c == ']') {
                ++i_;
                json::value v = std::move(f.node);
                path_.resize(f.pathMark);
                frames_.pop_back();
                deliver(std::move(v));
                continue;
            }
            if (c == ',') {
                ++i_;
                skipSpace();
            }
            path_.resize(f.pathMark);
            if (f.node.is_object()) member(f);
            else element(f);
        }
        return std::move(out_);
    }

private:
    struct Frame {
        json::value node;
        Shape shape;
        std::size_t pathMark;
        std::string key;
        std::size_t index = 0;
    };

    void skipSpace() {
        while (i_ < s_.size() && (s_[i_] == ' ' || s_[i_] == '\t' || s_[i_] == '\r' || s_[i_] == '\n')) ++i_;
    }

    void member(Frame& f) {
        f.key = readString();
        skipSpace();
        ++i_;  // ':'
        Shape child = memberShape(f);
        std::string field = f.key;
        beginValue(child, field);
    }

    void element(Frame& f) {
        Shape child = elementShape(f.shape);
        if (strict_ && child != Shape::Raw) appendPath("[" + std::to_string(f.index) + "]", false);
        ++f.index;
        beginValue(child, "");
    }

    Shape elementShape(Shape s) const {
        switch (s) {
        case Shape::Any: return Shape::Any;
        case Shape::OpValue: return Shape::OpValue;
        case Shape::OpList: return Shape::Op;
        case Shape::RawPatch: return Shape::RawOp;
        default: return Shape::Raw;
        }
    }

    // The destination of the value of f.key, with the duplicate / unknown-field findings.
    Shape memberShape(Frame& f) {
        const std::string& key = f.key;
        bool seen = f.node.get_object().contains(key);
        switch (f.shape) {
        case Shape::Any:
        case Shape::OpValue:
        case Shape::MapAny:
            if (seen) strictError("duplicate field", key);
            appendPath(key, true);
            return f.shape == Shape::OpValue ? Shape::OpValue : Shape::Any;
        case Shape::Op:
            if (key == "op" || key == "path" || key == "from" || key == "value") {
                if (seen) strictError("duplicate field", key);
                appendPath(key, true);
                return key == "value" ? Shape::OpValue : Shape::OpField;
            }
            strictError("unknown field", key);
            return Shape::Raw;
        default: return Shape::Raw;
        }
    }

    void appendPath(const std::string& part, bool isKey) {
        if (!strict_) return;
        if (isKey && !path_.empty()) path_ += '.';
        path_ += part;
    }

    void strictError(std::string_view type, const std::string& field) {
        if (!strict_ || out_.strictErrors.size() >= kMaxStrictErrors) return;
        std::string where = path_.empty() ? field : path_ + "." + field;
        std::string text = std::string(type) + " " + goQuote(where);
        if (std::find(out_.strictErrors.begin(), out_.strictErrors.end(), text) == out_.strictErrors.end())
            out_.strictErrors.push_back(std::move(text));
    }

    // The Go type name and struct context a shape reports in UnmarshalTypeError.
    static std::pair<std::string_view, bool> goTypeOf(Shape s) {
        switch (s) {
        case Shape::MapAny: return {"map[string]interface {}", false};
        case Shape::OpList: return {"[]handlers.jsonPatchOp", false};
        case Shape::Op: return {"handlers.jsonPatchOp", false};
        case Shape::OpField: return {"string", true};
        case Shape::RawPatch: return {"jsonpatch.Patch", false};
        case Shape::RawOp: return {"jsonpatch.Operation", false};
        default: return {"", false};
        }
    }

    static bool accepts(Shape s, char c) {
        switch (s) {
        case Shape::MapAny:
        case Shape::Op:
        case Shape::RawOp: return c == '{' || c == 'n';
        case Shape::OpList:
        case Shape::RawPatch: return c == '[' || c == 'n';
        case Shape::OpField: return c == '"' || c == 'n';
        default: return true;
        }
    }

    static std::string_view kindWord(char c) {
        switch (c) {
        case '{': return "object";
        case '[': return "array";
        case '"': return "string";
        case 't':
        case 'f': return "bool";
        default: return "number";
        }
    }

    void typeError(std::string_view value, std::string_view type, std::string_view field) {
        if (!out_.typeError.empty()) return;
        out_.typeError = "json: cannot unmarshal " + std::string(value) + " into Go ";
        if (field.empty()) out_.typeError += "value of type " + std::string(type);
        else out_.typeError += "struct field jsonPatchOp." + std::string(field) + " of type " + std::string(type);
    }

    void beginValue(Shape shape, const std::string& field) {
        skipSpace();
        char c = s_[i_];
        if (!accepts(shape, c)) {
            auto [type, inStruct] = goTypeOf(shape);
            typeError(kindWord(c), type, inStruct ? field : "");
            shape = Shape::Raw;
        }
        if (c == '{' || c == '[') {
            ++i_;
            json::value node = c == '{' ? json::value(json::object()) : json::value(json::array());
            frames_.push_back(Frame{std::move(node), shape, path_.size(), {}, 0});
            return;
        }
        deliver(scalar(shape));
    }

    void deliver(json::value v) {
        if (frames_.empty()) {
            out_.value = std::move(v);
            done_ = true;
            return;
        }
        Frame& f = frames_.back();
        if (f.node.is_object()) f.node.get_object()[f.key] = std::move(v);
        else f.node.get_array().push_back(std::move(v));
    }

    json::value scalar(Shape shape) {
        char c = s_[i_];
        if (c == '"') return json::value(readString());
        if (c == 't' || c == 'f' || c == 'n') {
            i_ += c == 'f' ? 5 : 4;
            return c == 'n' ? json::value(nullptr) : json::value(c == 't');
        }
        std::size_t start = i_;
        while (i_ < s_.size() && std::strchr("+-0123456789.eE", s_[i_]) && s_[i_] != 0) ++i_;
        return number(s_.substr(start, i_ - start), shape);
    }

    // convertNumber with PreserveInts: int64 when the literal has no '.' and fits, else float64.
    json::value number(std::string_view lit, Shape shape) {
        if (lit.find('.') == std::string_view::npos) {
            std::int64_t n = 0;
            auto r = std::from_chars(lit.data(), lit.data() + lit.size(), n);
            if (r.ec == std::errc() && r.ptr == lit.data() + lit.size()) return json::value(n);
        }
        double d = std::strtod(std::string(lit).c_str(), nullptr);
        if (std::isinf(d)) {
            if (shape == Shape::Any || shape == Shape::OpValue)
                typeError("number " + std::string(lit), "float64", shape == Shape::OpValue ? "value" : "");
            d = d > 0 ? std::numeric_limits<double>::max() : std::numeric_limits<double>::lowest();
        }
        return json::value(d);
    }

    static int hexValue(char c) {
        if (c >= '0' && c <= '9') return c - '0';
        if (c >= 'a' && c <= 'f') return c - 'a' + 10;
        return c - 'A' + 10;
    }

    std::int32_t readU4(std::size_t at) const {
        if (at + 6 > s_.size() || s_[at] != '\\' || s_[at + 1] != 'u') return -1;
        std::int32_t r = 0;
        for (std::size_t k = at + 2; k < at + 6; ++k) {
            if (!std::isxdigit(static_cast<unsigned char>(s_[k]))) return -1;
            r = r * 16 + hexValue(s_[k]);
        }
        return r;
    }

    // decode.go unquote: escapes decoded, invalid UTF-8 and unpaired surrogates become U+FFFD.
    std::string readString() {
        std::string out;
        ++i_;  // opening quote
        while (s_[i_] != '"') {
            char c = s_[i_];
            if (c == '\\') {
                char e = s_[i_ + 1];
                if (e == 'u') {
                    std::int32_t r = readU4(i_);
                    i_ += 6;
                    if (r >= 0xD800 && r < 0xE000) {
                        std::int32_t r2 = readU4(i_);
                        if (r < 0xDC00 && r2 >= 0xDC00 && r2 < 0xE000) {
                            appendUtf8(out, 0x10000 + ((static_cast<std::uint32_t>(r) - 0xD800) << 10) +
                                                (static_cast<std::uint32_t>(r2) - 0xDC00));
                            i_ += 6;
                            continue;
                        }
                        r = 0xFFFD;
                    }
                    appendUtf8(out, static_cast<std::uint32_t>(r));
                    continue;
                }
                static constexpr std::pair<char, char> kEscapes[] = {{'b', '\b'}, {'f', '\f'}, {'n', '\n'}, {'r', '\r'},
                                                                     {'t', '\t'}, {'\\', '\\'}, {'/', '/'}, {'"', '"'}};
                for (auto const& [from, to] : kEscapes)
                    if (e == from) out += to;
                i_ += 2;
                continue;
            }
            Rune r = decodeRune(s_, i_);
            if (r.valid) out.append(s_.substr(i_, r.size));
            else appendUtf8(out, 0xFFFD);
            i_ += r.size;
        }
        ++i_;  // closing quote
        return out;
    }

    std::string_view s_;
    bool strict_;
    std::size_t i_ = 0;
    bool done_ = false;
    std::vector<Frame> frames_;
    std::string path_;
    Decoded out_;
};

struct Body {
    std::string syntaxError;  // Go SyntaxError text, "" if the body is valid JSON
    Decoded decoded;
};

Body decodeBody(std::string_view data, Shape top, bool strict) {
    Body b;
    b.syntaxError = GoSyntaxChecker().check(data);
    if (b.syntaxError.empty()) b.decoded = GoDecoder(data, strict).run(top);
    return b;
}

// ---------------------------------------------------------------------------------------------
// Results worded like the API server (k8s.io/apimachinery/pkg/api/errors).

PatchResult failure(unsigned code, std::string_view reason, std::string message) {
    PatchResult r;
    r.ok = false;
    r.code = code;
    r.reason = std::string(reason);
    r.message = std::move(message);
    return r;
}

PatchResult success(json::value v, std::vector<std::string> strictErrors) {
    PatchResult r;
    r.value = std::move(v);
    r.strictErrors = std::move(strictErrors);
    return r;
}

PatchResult badRequest(std::string message) { return failure(400, "BadRequest", std::move(message)); }

// NewGenericServerResponse(422, ...): the cause is not part of the response.
PatchResult genericInvalid(std::string cause) {
    PatchResult r = failure(422, "Invalid", std::string(kGenericInvalid));
    r.details = json::object();
    r.cause = std::move(cause);
    return r;
}

// A plain error reaching the handler: ErrorToAPIStatus makes it a 500 with an empty reason.
PatchResult internalError(std::string message) { return failure(500, "", std::move(message)); }

// A Go panic in the patch code: the server's panic filter answers with this text.
PatchResult panicked(std::string cause) {
    PatchResult r = failure(500, "InternalError", std::string(kPanicMessage));
    r.plainText = true;
    r.cause = std::move(cause);
    return r;
}

// NewInvalid(schema.GroupKind{}, "", {field.Invalid(field.NewPath("patch"), value, detail)}).
PatchResult invalidPatch(std::string_view value, std::string_view detail) {
    std::string body = "Invalid value: " + goQuote(value) + ": " + std::string(detail);
    PatchResult r = failure(422, "Invalid", " \"\" is invalid: patch: " + body);
    json::array causes;
    causes.push_back(json::object{{"reason", "FieldValueInvalid"}, {"message", body}, {"field", "patch"}});
    r.details = json::object{{"causes", std::move(causes)}};
    return r;
}

std::string strictDecodingError(const std::vector<std::string>& errors) {
    std::string out = "strict decoding error: ";
    for (std::size_t i = 0; i < errors.size(); ++i) out += (i ? ", " : "") + errors[i];
    return out;
}

// What the server's decode of a json/merge patch result adds: a non-object cannot be decoded,
// and under Strict the body's strict findings fail the request.
PatchResult finishDocument(json::value result, std::vector<std::string> strictErrors, FieldValidation validation) {
    if (!result.is_object()) return invalidPatch(goJson(result), kInterpretArray);
    if (validation == FieldValidation::Strict && !strictErrors.empty()) {
        PatchResult r = invalidPatch(goJson(result), strictDecodingError(strictErrors));
        r.strictErrors = std::move(strictErrors);
        return r;
    }
    return success(std::move(result), std::move(strictErrors));
}

}  // namespace

namespace {

// ---------------------------------------------------------------------------------------------
// application/merge-patch+json: gopkg.in/evanphx/json-patch.v4 merge.go MergePatch.

void pruneNulls(json::value& v);

void pruneDocNulls(json::object& doc) {
    for (auto it = doc.begin(); it != doc.end();) {
        if (it->value().is_null()) {
            it = doc.erase(it);
        } else {
            pruneNulls(it->value());
            ++it;
        }
    }
}

// Nulls inside objects are dropped; null array elements stay.
void pruneNulls(json::value& v) {
    if (v.is_object()) {
        pruneDocNulls(v.get_object());
    } else if (v.is_array()) {
        for (auto& e : v.get_array())
            if (!e.is_null()) pruneNulls(e);
    }
}

void mergeDocs(json::object& doc, json::object& patch);

json::value mergeValues(json::value cur, json::value patch) {
    if (!cur.is_object()) {
        pruneNulls(patch);
        return patch;
    }
    if (!patch.is_object()) return patch;
    mergeDocs(cur.get_object(), patch.get_object());
    return cur;
}

void mergeDocs(json::object& doc, json::object& patch) {
    for (auto& kv : patch) {
        if (kv.value().is_null()) {
            doc.erase(kv.key());
            continue;
        }
        json::value* cur = doc.if_contains(kv.key());
        if (!cur || cur->is_null()) {
            pruneNulls(kv.value());
            doc[kv.key()] = std::move(kv.value());
        } else {
            *cur = mergeValues(std::move(*cur), std::move(kv.value()));
        }
    }
}

constexpr std::string_view kErrBadJSONPatch = "Invalid JSON Patch";

// doMergePatch on a decoded target and patch (mergeMerge false).
PatchResult applyMergePatch(json::value doc, json::value patch) {
    if (doc.is_null()) return internalError("Invalid JSON Document");
    if (patch.is_null()) return badRequest(std::string(kErrBadJSONPatch));
    if (doc.is_object() && patch.is_object()) {
        mergeDocs(doc.get_object(), patch.get_object());
        return success(std::move(doc), {});
    }
    if (patch.is_object()) {
        pruneDocNulls(patch.get_object());
        return success(std::move(patch), {});
    }
    if (patch.is_array()) {
        pruneNulls(patch);
        return success(std::move(patch), {});
    }
    return badRequest(std::string(kErrBadJSONPatch));
}

// ---------------------------------------------------------------------------------------------
// application/json-patch+json: gopkg.in/evanphx/json-patch.v4 v4.12.0 patch.go Apply, with the
// API server's settings (negative indices allowed, 3 MiB copy limit).

struct OpError {
    std::string message;  // the library's error text (github.com/pkg/errors wrapping)
    bool panic = false;   // the library would dereference nil here
};
using OpStatus = std::optional<OpError>;

OpStatus opError(std::string message) { return OpError{std::move(message), false}; }
OpStatus opPanic(std::string message) { return OpError{std::move(message), true}; }

// strconv.Atoi.
std::optional<std::int64_t> goAtoi(std::string_view s) {
    std::string_view digits = s;
    if (!digits.empty() && (digits[0] == '+' || digits[0] == '-')) digits.remove_prefix(1);
    if (digits.empty() || !std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; }))
        return std::nullopt;
    std::int64_t n = 0;
    std::string_view parse = s[0] == '+' ? s.substr(1) : s;
    auto r = std::from_chars(parse.data(), parse.data() + parse.size(), n);
    if (r.ec != std::errc()) return std::nullopt;
    return n;
}

std::string atoiError(std::string_view s) {
    std::string_view digits = s;
    if (!digits.empty() && (digits[0] == '+' || digits[0] == '-')) digits.remove_prefix(1);
    bool syntax = digits.empty() || !std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; });
    return "strconv.Atoi: parsing " + goQuote(s) + (syntax ? ": invalid syntax" : ": value out of range");
}

std::string invalidIndex(std::int64_t idx) { return "Unable to access invalid index: " + std::to_string(idx) + ": invalid index referenced"; }

// rfc6901Decoder: "~1" -> "/", "~0" -> "~", left to right.
std::string decodePatchKey(std::string_view k) {
    std::string out;
    for (std::size_t i = 0; i < k.size(); ++i) {
        if (k[i] == '~' && i + 1 < k.size() && (k[i + 1] == '1' || k[i + 1] == '0')) {
            out += k[i + 1] == '1' ? '/' : '~';
            ++i;
        } else {
            out += k[i];
        }
    }
    return out;
}

std::vector<std::string_view> splitPath(std::string_view path) {
    std::vector<std::string_view> parts;
    std::size_t start = 0;
    for (;;) {
        std::size_t slash = path.find('/', start);
        parts.push_back(path.substr(start, slash == std::string_view::npos ? std::string_view::npos : slash - start));
        if (slash == std::string_view::npos) return parts;
        start = slash + 1;
    }
}

// partialArray.get's index rules; nullopt with `err` set when out of range.
std::optional<std::size_t> arrayIndex(const json::array& a, std::string_view key, std::string& err) {
    auto idx = goAtoi(key);
    if (!idx) {
        err = atoiError(key);
        return std::nullopt;
    }
    std::int64_t i = *idx, n = static_cast<std::int64_t>(a.size());
    if (i < 0) {
        if (i < -n) {
            err = invalidIndex(i);
            return std::nullopt;
        }
        i += n;
    }
    if (i >= n) {
        err = invalidIndex(i);
        return std::nullopt;
    }
    return static_cast<std::size_t>(i);
}

struct Location {
    json::value* container = nullptr;  // an object or array
    std::string key;
};

// findObject: the container of the last path token, walking objects and arrays; a leading token
// before the first "/" is ignored like upstream does.
Location findObject(json::value& doc, std::string_view path) {
    auto split = splitPath(path);
    if (split.size() < 2) return {};
    json::value* cur = &doc;
    for (std::size_t i = 1; i + 1 < split.size(); ++i) {
        std::string part = decodePatchKey(split[i]);
        json::value* next = nullptr;
        if (cur->is_object()) {
            next = cur->get_object().if_contains(part);
        } else {
            std::string err;
            if (auto idx = arrayIndex(cur->get_array(), part, err)) next = &cur->get_array()[*idx];
        }
        if (!next || !(next->is_object() || next->is_array())) return {};
        cur = next;
    }
    return {cur, decodePatchKey(split.back())};
}

// container.get: objects answer null for a missing key, arrays check the index.
std::optional<json::value> containerGet(json::value& c, const std::string& key, std::string& err) {
    if (c.is_object()) {
        json::value* v = c.get_object().if_contains(key);
        return v ? *v : json::value(nullptr);
    }
    auto idx = arrayIndex(c.get_array(), key, err);
    if (!idx) return std::nullopt;
    return c.get_array()[*idx];
}

OpStatus containerAdd(json::value& c, const std::string& key, json::value v) {
    if (c.is_object()) {
        c.get_object()[key] = std::move(v);
        return std::nullopt;
    }
    json::array& a = c.get_array();
    if (key == "-") {
        a.push_back(std::move(v));
        return std::nullopt;
    }
    auto idx = goAtoi(key);
    if (!idx) return opError("value was not a proper array index: '" + key + "': " + atoiError(key));
    std::int64_t i = *idx, size = static_cast<std::int64_t>(a.size()) + 1;
    if (i >= size || i < -size) return opError(invalidIndex(i));
    if (i < 0) i += size;
    a.insert(a.begin() + i, std::move(v));
    return std::nullopt;
}

OpStatus containerRemove(json::value& c, const std::string& key) {
    if (c.is_object()) {
        if (!c.get_object().contains(key)) return opError("Unable to remove nonexistent key: " + key + ": missing value");
        c.get_object().erase(key);
        return std::nullopt;
    }
    json::array& a = c.get_array();
    auto idx = goAtoi(key);
    if (!idx) return opError(atoiError(key));
    std::int64_t i = *idx, n = static_cast<std::int64_t>(a.size());
    if (i >= n || i < -n) return opError(invalidIndex(i));
    if (i < 0) i += n;
    a.erase(a.begin() + i);
    return std::nullopt;
}

// lazyNode.equal: structural, with numbers equal only in the same Go representation.
bool jsonEqual(const json::value& a, const json::value& b) {
    if (a.is_object() && b.is_object()) {
        auto const& x = a.get_object();
        auto const& y = b.get_object();
        if (x.size() != y.size()) return false;
        return std::all_of(x.begin(), x.end(), [&](auto const& kv) {
            auto const* other = y.if_contains(kv.key());
            return other && jsonEqual(kv.value(), *other);
        });
    }
    if (a.is_array() && b.is_array()) {
        auto const& x = a.get_array();
        auto const& y = b.get_array();
        return x.size() == y.size() && std::equal(x.begin(), x.end(), y.begin(), [](auto const& l, auto const& r) { return jsonEqual(l, r); });
    }
    if (goKind(a) != goKind(b)) return false;
    if (goKind(a) == GoKind::Float64) return asDouble(a) == asDouble(b);
    return a == b;
}

// One decoded operation: its members are raw JSON (json.RawMessage); JSON null members count as absent.
class Operation {
public:
    explicit Operation(const json::value& op) : op_(op.is_object() ? &op.get_object() : nullptr) {}

    std::string kind() const {
        const json::value* v = member("op");
        return v && v->is_string() ? std::string(v->get_string()) : "unknown";
    }
    std::optional<std::string> path() const { return stringMember("path"); }
    std::optional<std::string> from() const { return stringMember("from"); }
    bool hasValue() const { return op_ && op_->contains("value"); }
    json::value value() const { return hasValue() ? op_->at("value") : json::value(nullptr); }

private:
    const json::value* member(std::string_view k) const {
        const json::value* v = op_ ? op_->if_contains(k) : nullptr;
        return v && !v->is_null() ? v : nullptr;
    }
    std::optional<std::string> stringMember(std::string_view k) const {
        const json::value* v = member(k);
        if (!v || !v->is_string()) return std::nullopt;
        return std::string(v->get_string());
    }
    const json::object* op_;
};

class JsonPatcher {
public:
    explicit JsonPatcher(json::value doc) : doc_(std::move(doc)) {}

    OpStatus apply(const Operation& op) {
        static const std::unordered_map<std::string, OpStatus (JsonPatcher::*)(const Operation&)> kOps = {
            {"add", &JsonPatcher::add},   {"remove", &JsonPatcher::remove}, {"replace", &JsonPatcher::replace},
            {"move", &JsonPatcher::move}, {"test", &JsonPatcher::test},     {"copy", &JsonPatcher::copy},
        };
        auto it = kOps.find(op.kind());
        if (it == kOps.end()) return opError("Unexpected kind: " + op.kind());
        return (this->*it->second)(op);
    }

    json::value& document() { return doc_; }

private:
    OpStatus add(const Operation& op) {
        auto path = op.path();
        if (!path) return opError("add operation failed to decode path: missing value");
        Location loc = findObject(doc_, *path);
        if (!loc.container) return opError("add operation does not apply: doc is missing path: \"" + *path + "\": missing value");
        if (auto err = containerAdd(*loc.container, loc.key, op.value()))
            return opError("error in add for path: '" + *path + "': " + err->message);
        return std::nullopt;
    }

    OpStatus remove(const Operation& op) {
        auto path = op.path();
        if (!path) return opError("remove operation failed to decode path: missing value");
        Location loc = findObject(doc_, *path);
        if (!loc.container) return opError("remove operation does not apply: doc is missing path: \"" + *path + "\": missing value");
        if (auto err = containerRemove(*loc.container, loc.key))
            return opError("error in remove for path: '" + *path + "': " + err->message);
        return std::nullopt;
    }

    OpStatus replace(const Operation& op) {
        auto path = op.path();
        if (!path) return opError("replace operation failed to decode path: missing value");
        if (path->empty()) {
            if (!op.hasValue()) return opPanic("replace of the whole document without a value");
            json::value v = op.value();
            // A scalar here is silently ignored upstream (errors.Wrapf of a nil error).
            if (v.is_object() || v.is_array()) doc_ = std::move(v);
            return std::nullopt;
        }
        Location loc = findObject(doc_, *path);
        if (!loc.container) return opError("replace operation does not apply: doc is missing path: " + *path + ": missing value");
        std::string err;
        if (!containerGet(*loc.container, loc.key, err))
            return opError("replace operation does not apply: doc is missing key: " + *path + ": missing value");
        if (loc.container->is_object()) loc.container->get_object()[loc.key] = op.value();
        else loc.container->get_array()[*arrayIndex(loc.container->get_array(), loc.key, err)] = op.value();
        return std::nullopt;
    }

    OpStatus move(const Operation& op) {
        auto from = op.from();
        if (!from) return opError("move operation failed to decode from: missing value");
        Location src = findObject(doc_, *from);
        if (!src.container) return opError("move operation does not apply: doc is missing from path: " + *from + ": missing value");
        std::string err;
        auto val = containerGet(*src.container, src.key, err);
        if (!val) return opError("error in move for path: '" + src.key + "': " + err);
        if (auto e = containerRemove(*src.container, src.key)) return opError("error in move for path: '" + src.key + "': " + e->message);
        auto path = op.path();
        if (!path) return opError("move operation failed to decode path: missing value");
        Location dst = findObject(doc_, *path);
        if (!dst.container) return opError("move operation does not apply: doc is missing destination path: " + *path + ": missing value");
        if (auto e = containerAdd(*dst.container, dst.key, std::move(*val))) return opError("error in move for path: '" + *path + "': " + e->message);
        return std::nullopt;
    }

    OpStatus copy(const Operation& op) {
        auto from = op.from();
        if (!from) return opError("copy operation failed to decode from: missing value");
        Location src = findObject(doc_, *from);
        if (!src.container) return opError("copy operation does not apply: doc is missing from path: " + *from + ": missing value");
        std::string err;
        auto val = containerGet(*src.container, src.key, err);
        if (!val) return opError("error in copy for from: '" + *from + "': " + err);
        auto path = op.path();
        if (!path) return opError("copy operation failed to decode path: missing value");
        Location dst = findObject(doc_, *path);
        if (!dst.container) return opError("copy operation does not apply: doc is missing destination path: " + *path + ": missing value");
        if (!val->is_null()) copied_ += goJson(*val).size();  // deepCopy of a nil node copies nothing
        if (copied_ > kMaxAccumulatedCopyBytes)
            return opError("Unable to complete the copy, the accumulated size increase of copy is " + std::to_string(copied_) +
                           ", exceeding the limit " + std::to_string(kMaxAccumulatedCopyBytes));
        if (auto e = containerAdd(*dst.container, dst.key, std::move(*val))) return opError("error while adding value during copy: " + e->message);
        return std::nullopt;
    }

    OpStatus test(const Operation& op) {
        auto path = op.path();
        if (!path) return opError("test operation failed to decode path: missing value");
        if (path->empty()) {
            if (!op.hasValue()) return opPanic("test of the whole document without a value");
            if (jsonEqual(doc_, op.value())) return std::nullopt;
            return opError("testing value  failed: test failed");
        }
        Location loc = findObject(doc_, *path);
        if (!loc.container) return opError("test operation does not apply: is missing path: " + *path + ": missing value");
        std::string err;
        auto val = containerGet(*loc.container, loc.key, err);
        if (!val) return opError("error in test for path: '" + *path + "': " + err);
        if (val->is_null()) {
            if (!op.hasValue()) return opPanic("test of a missing value without a value");
            if (op.value().is_null()) return std::nullopt;
        } else if (op.hasValue() && jsonEqual(*val, op.value())) {
            return std::nullopt;
        }
        return opError("testing value " + *path + " failed: test failed");
    }

    json::value doc_;
    std::size_t copied_ = 0;
};

}  // namespace

namespace {

// ---------------------------------------------------------------------------------------------
// application/strategic-merge-patch+json: k8s.io/apimachinery/pkg/util/strategicpatch patch.go
// StrategicMergeMapPatch (MergeParallelList and IgnoreUnmatchedNulls set), error texts from
// k8s.io/apimachinery/pkg/util/mergepatch/errors.go.

// patchStrategy / patchMergeKey struct tags of k8s.io/api and k8s.io/apimachinery meta/v1 at v0.32
// (https://github.com/kubernetes/api/tree/v0.32.13), for the package-qualified Go struct types that
// reach a tagged field from a kind; inline structs are flattened. Fields not listed lead to no
// tag, and a kind's "metadata" is meta/v1.ObjectMeta. `child` is the struct type the field holds
// (the element type of a merged list) when a tagged field lies below it, else "". Sorted by
// (type, field).
struct SmpField {
    std::string_view type;
    std::string_view field;
    std::string_view child;
    std::string_view strategy;
    std::string_view mergeKey;
};

constexpr SmpField kSmpFields[] = {
    {"admissionregistration/v1.MutatingWebhook", "matchConditions", "", "merge", "name"},
    {"admissionregistration/v1.MutatingWebhookConfiguration", "webhooks", "admissionregistration/v1.MutatingWebhook", "merge", "name"},
    {"admissionregistration/v1.ValidatingAdmissionPolicy", "spec", "admissionregistration/v1.ValidatingAdmissionPolicySpec", "", ""},
    {"admissionregistration/v1.ValidatingAdmissionPolicySpec", "matchConditions", "", "merge", "name"},
    {"admissionregistration/v1.ValidatingAdmissionPolicySpec", "variables", "", "merge", "name"},
    {"admissionregistration/v1.ValidatingWebhook", "matchConditions", "", "merge", "name"},
    {"admissionregistration/v1.ValidatingWebhookConfiguration", "webhooks", "admissionregistration/v1.ValidatingWebhook", "merge", "name"},
    {"admissionregistration/v1alpha1.MutatingAdmissionPolicy", "spec", "admissionregistration/v1alpha1.MutatingAdmissionPolicySpec", "", ""},
    {"admissionregistration/v1alpha1.MutatingAdmissionPolicySpec", "matchConditions", "", "merge", "name"},
    {"admissionregistration/v1alpha1.ValidatingAdmissionPolicy", "spec", "admissionregistration/v1alpha1.ValidatingAdmissionPolicySpec", "", ""},
    {"admissionregistration/v1alpha1.ValidatingAdmissionPolicySpec", "matchConditions", "", "merge", "name"},
    {"admissionregistration/v1alpha1.ValidatingAdmissionPolicySpec", "variables", "", "merge", "name"},
    {"admissionregistration/v1beta1.MutatingWebhook", "matchConditions", "", "merge", "name"},
    {"admissionregistration/v1beta1.MutatingWebhookConfiguration", "webhooks", "admissionregistration/v1beta1.MutatingWebhook", "merge", "name"},
    {"admissionregistration/v1beta1.ValidatingAdmissionPolicy", "spec", "admissionregistration/v1beta1.ValidatingAdmissionPolicySpec", "", ""},
    {"admissionregistration/v1beta1.ValidatingAdmissionPolicySpec", "matchConditions", "", "merge", "name"},
    {"admissionregistration/v1beta1.ValidatingAdmissionPolicySpec", "variables", "", "merge", "name"},
    {"admissionregistration/v1beta1.ValidatingWebhook", "matchConditions", "", "merge", "name"},
    {"admissionregistration/v1beta1.ValidatingWebhookConfiguration", "webhooks", "admissionregistration/v1beta1.ValidatingWebhook", "merge", "name"},
    {"apps/v1.DaemonSet", "spec", "apps/v1.DaemonSetSpec", "", ""},
    {"apps/v1.DaemonSet", "status", "apps/v1.DaemonSetStatus", "", ""},
    {"apps/v1.DaemonSetSpec", "template", "core/v1.PodTemplateSpec", "", ""},
    {"apps/v1.DaemonSetStatus", "conditions", "", "merge", "type"},
    {"apps/v1.Deployment", "spec", "apps/v1.DeploymentSpec", "", ""},
    {"apps/v1.Deployment", "status", "apps/v1.DeploymentStatus", "", ""},
    {"apps/v1.DeploymentSpec", "strategy", "", "retainKeys", ""},
    {"apps/v1.DeploymentSpec", "template", "core/v1.PodTemplateSpec", "", ""},
    {"apps/v1.DeploymentStatus", "conditions", "", "merge", "type"},
    {"apps/v1.ReplicaSet", "spec", "apps/v1.ReplicaSetSpec", "", ""},
    {"apps/v1.ReplicaSet", "status", "apps/v1.ReplicaSetStatus", "", ""},
    {"apps/v1.ReplicaSetSpec", "template", "core/v1.PodTemplateSpec", "", ""},
    {"apps/v1.ReplicaSetStatus", "conditions", "", "merge", "type"},
    {"apps/v1.StatefulSet", "spec", "apps/v1.StatefulSetSpec", "", ""},
    {"apps/v1.StatefulSet", "status", "apps/v1.StatefulSetStatus", "", ""},
    {"apps/v1.StatefulSetSpec", "template", "core/v1.PodTemplateSpec", "", ""},
    {"apps/v1.StatefulSetStatus", "conditions", "", "merge", "type"},
    {"apps/v1beta1.Deployment", "spec", "apps/v1beta1.DeploymentSpec", "", ""},
    {"apps/v1beta1.Deployment", "status", "apps/v1beta1.DeploymentStatus", "", ""},
    {"apps/v1beta1.DeploymentSpec", "strategy", "", "retainKeys", ""},
    {"apps/v1beta1.DeploymentSpec", "template", "core/v1.PodTemplateSpec", "", ""},
    {"apps/v1beta1.DeploymentStatus", "conditions", "", "merge", "type"},
    {"apps/v1beta1.StatefulSet", "spec", "apps/v1beta1.StatefulSetSpec", "", ""},
    {"apps/v1beta1.StatefulSet", "status", "apps/v1beta1.StatefulSetStatus", "", ""},
    {"apps/v1beta1.StatefulSetSpec", "template", "core/v1.PodTemplateSpec", "", ""},
    {"apps/v1beta1.StatefulSetStatus", "conditions", "", "merge", "type"},
    {"apps/v1beta2.DaemonSet", "spec", "apps/v1beta2.DaemonSetSpec", "", ""},
    {"apps/v1beta2.DaemonSet", "status", "apps/v1beta2.DaemonSetStatus", "", ""},
    {"apps/v1beta2.DaemonSetSpec", "template", "core/v1.PodTemplateSpec", "", ""},
    {"apps/v1beta2.DaemonSetStatus", "conditions", "", "merge", "type"},
    {"apps/v1beta2.Deployment", "spec", "apps/v1beta2.DeploymentSpec", "", ""},
    {"apps/v1beta2.Deployment", "status", "apps/v1beta2.DeploymentStatus", "", ""},
    {"apps/v1beta2.DeploymentSpec", "strategy", "", "retainKeys", ""},
    {"apps/v1beta2.DeploymentSpec", "template", "core/v1.PodTemplateSpec", "", ""},
    {"apps/v1beta2.DeploymentStatus", "conditions", "", "merge", "type"},
    {"apps/v1beta2.ReplicaSet", "spec", "apps/v1beta2.ReplicaSetSpec", "", ""},
    {"apps/v1beta2.ReplicaSet", "status", "apps/v1beta2.ReplicaSetStatus", "", ""},
    {"apps/v1beta2.ReplicaSetSpec", "template", "core/v1.PodTemplateSpec", "", ""},
    {"apps/v1beta2.ReplicaSetStatus", "conditions", "", "merge", "type"},
    {"apps/v1beta2.StatefulSet", "spec", "apps/v1beta2.StatefulSetSpec", "", ""},
    {"apps/v1beta2.StatefulSet", "status", "apps/v1beta2.StatefulSetStatus", "", ""},
    {"apps/v1beta2.StatefulSetSpec", "template", "core/v1.PodTemplateSpec", "", ""},
    {"apps/v1beta2.StatefulSetStatus", "conditions", "", "merge", "type"},
    {"autoscaling/v2.HorizontalPodAutoscaler", "status", "autoscaling/v2.HorizontalPodAutoscalerStatus", "", ""},
    {"autoscaling/v2.HorizontalPodAutoscalerStatus", "conditions", "", "merge", "type"},
    {"batch/v1.CronJob", "spec", "batch/v1.CronJobSpec", "", ""},
    {"batch/v1.CronJobSpec", "jobTemplate", "batch/v1.JobTemplateSpec", "", ""},
    {"batch/v1.Job", "spec", "batch/v1.JobSpec", "", ""},
    {"batch/v1.Job", "status", "batch/v1.JobStatus", "", ""},
    {"batch/v1.JobSpec", "template", "core/v1.PodTemplateSpec", "", ""},
    {"batch/v1.JobStatus", "conditions", "", "merge", "type"},
    {"batch/v1.JobTemplateSpec", "metadata", "meta/v1.ObjectMeta", "", ""},
    {"batch/v1.JobTemplateSpec", "spec", "batch/v1.JobSpec", "", ""},
    {"batch/v1beta1.CronJob", "spec", "batch/v1beta1.CronJobSpec", "", ""},
    {"batch/v1beta1.CronJobSpec", "jobTemplate", "batch/v1beta1.JobTemplateSpec", "", ""},
    {"batch/v1beta1.JobTemplateSpec", "metadata", "meta/v1.ObjectMeta", "", ""},
    {"batch/v1beta1.JobTemplateSpec", "spec", "batch/v1.JobSpec", "", ""},
    {"core/v1.ComponentStatus", "conditions", "", "merge", "type"},
    {"core/v1.Container", "env", "", "merge", "name"},
    {"core/v1.Container", "ports", "", "merge", "containerPort"},
    {"core/v1.Container", "volumeDevices", "", "merge", "devicePath"},
    {"core/v1.Container", "volumeMounts", "", "merge", "mountPath"},
    {"core/v1.EphemeralContainer", "env", "", "merge", "name"},
    {"core/v1.EphemeralContainer", "ports", "", "merge", "containerPort"},
    {"core/v1.EphemeralContainer", "volumeDevices", "", "merge", "devicePath"},
    {"core/v1.EphemeralContainer", "volumeMounts", "", "merge", "mountPath"},
    {"core/v1.EphemeralVolumeSource", "volumeClaimTemplate", "core/v1.PersistentVolumeClaimTemplate", "", ""},
    {"core/v1.Namespace", "status", "core/v1.NamespaceStatus", "", ""},
    {"core/v1.NamespaceStatus", "conditions", "", "merge", "type"},
    {"core/v1.Node", "spec", "core/v1.NodeSpec", "", ""},
    {"core/v1.Node", "status", "core/v1.NodeStatus", "", ""},
    {"core/v1.NodeSpec", "podCIDRs", "", "merge", ""},
    {"core/v1.NodeStatus", "addresses", "", "merge", "type"},
    {"core/v1.NodeStatus", "conditions", "", "merge", "type"},
    {"core/v1.PersistentVolumeClaim", "status", "core/v1.PersistentVolumeClaimStatus", "", ""},
    {"core/v1.PersistentVolumeClaimStatus", "conditions", "", "merge", "type"},
    {"core/v1.PersistentVolumeClaimTemplate", "metadata", "meta/v1.ObjectMeta", "", ""},
    {"core/v1.Pod", "spec", "core/v1.PodSpec", "", ""},
    {"core/v1.Pod", "status", "core/v1.PodStatus", "", ""},
    {"core/v1.PodSpec", "containers", "core/v1.Container", "merge", "name"},
    {"core/v1.PodSpec", "ephemeralContainers", "core/v1.EphemeralContainer", "merge", "name"},
    {"core/v1.PodSpec", "hostAliases", "", "merge", "ip"},
    {"core/v1.PodSpec", "imagePullSecrets", "", "merge", "name"},
    {"core/v1.PodSpec", "initContainers", "core/v1.Container", "merge", "name"},
    {"core/v1.PodSpec", "resourceClaims", "", "merge,retainKeys", "name"},
    {"core/v1.PodSpec", "schedulingGates", "", "merge", "name"},
    {"core/v1.PodSpec", "topologySpreadConstraints", "", "merge", "topologyKey"},
    {"core/v1.PodSpec", "volumes", "core/v1.Volume", "merge,retainKeys", "name"},
    {"core/v1.PodStatus", "conditions", "", "merge", "type"},
    {"core/v1.PodStatus", "hostIPs", "", "merge", "ip"},
    {"core/v1.PodStatus", "podIPs", "", "merge", "ip"},
    {"core/v1.PodStatus", "resourceClaimStatuses", "", "merge,retainKeys", "name"},
    {"core/v1.PodStatusResult", "status", "core/v1.PodStatus", "", ""},
    {"core/v1.PodTemplate", "template", "core/v1.PodTemplateSpec", "", ""},
    {"core/v1.PodTemplateSpec", "metadata", "meta/v1.ObjectMeta", "", ""},
    {"core/v1.PodTemplateSpec", "spec", "core/v1.PodSpec", "", ""},
    {"core/v1.ReplicationController", "spec", "core/v1.ReplicationControllerSpec", "", ""},
    {"core/v1.ReplicationController", "status", "core/v1.ReplicationControllerStatus", "", ""},
    {"core/v1.ReplicationControllerSpec", "template", "core/v1.PodTemplateSpec", "", ""},
    {"core/v1.ReplicationControllerStatus", "conditions", "", "merge", "type"},
    {"core/v1.Service", "spec", "core/v1.ServiceSpec", "", ""},
    {"core/v1.Service", "status", "core/v1.ServiceStatus", "", ""},
    {"core/v1.ServiceAccount", "secrets", "", "merge", "name"},
    {"core/v1.ServiceSpec", "ports", "", "merge", "port"},
    {"core/v1.ServiceStatus", "conditions", "", "merge", "type"},
    {"core/v1.Volume", "ephemeral", "core/v1.EphemeralVolumeSource", "", ""},
    {"extensions/v1beta1.DaemonSet", "spec", "extensions/v1beta1.DaemonSetSpec", "", ""},
    {"extensions/v1beta1.DaemonSet", "status", "extensions/v1beta1.DaemonSetStatus", "", ""},
    {"extensions/v1beta1.DaemonSetSpec", "template", "core/v1.PodTemplateSpec", "", ""},
    {"extensions/v1beta1.DaemonSetStatus", "conditions", "", "merge", "type"},
    {"extensions/v1beta1.Deployment", "spec", "extensions/v1beta1.DeploymentSpec", "", ""},
    {"extensions/v1beta1.Deployment", "status", "extensions/v1beta1.DeploymentStatus", "", ""},
    {"extensions/v1beta1.DeploymentSpec", "strategy", "", "retainKeys", ""},
    {"extensions/v1beta1.DeploymentSpec", "template", "core/v1.PodTemplateSpec", "", ""},
    {"extensions/v1beta1.DeploymentStatus", "conditions", "", "merge", "type"},
    {"extensions/v1beta1.ReplicaSet", "spec", "extensions/v1beta1.ReplicaSetSpec", "", ""},
    {"extensions/v1beta1.ReplicaSet", "status", "extensions/v1beta1.ReplicaSetStatus", "", ""},
    {"extensions/v1beta1.ReplicaSetSpec", "template", "core/v1.PodTemplateSpec", "", ""},
    {"extensions/v1beta1.ReplicaSetStatus", "conditions", "", "merge", "type"},
    {"flowcontrol/v1.FlowSchema", "status", "flowcontrol/v1.FlowSchemaStatus", "", ""},
    {"flowcontrol/v1.FlowSchemaStatus", "conditions", "", "merge", "type"},
    {"flowcontrol/v1.PriorityLevelConfiguration", "status", "flowcontrol/v1.PriorityLevelConfigurationStatus", "", ""},
    {"flowcontrol/v1.PriorityLevelConfigurationStatus", "conditions", "", "merge", "type"},
    {"flowcontrol/v1beta3.FlowSchema", "status", "flowcontrol/v1beta3.FlowSchemaStatus", "", ""},
    {"flowcontrol/v1beta3.FlowSchemaStatus", "conditions", "", "merge", "type"},
    {"flowcontrol/v1beta3.PriorityLevelConfiguration", "status", "flowcontrol/v1beta3.PriorityLevelConfigurationStatus", "", ""},
    {"flowcontrol/v1beta3.PriorityLevelConfigurationStatus", "conditions", "", "merge", "type"},
    {"meta/v1.ObjectMeta", "finalizers", "", "merge", ""},
    {"meta/v1.ObjectMeta", "ownerReferences", "", "merge", "uid"},
    {"networking/v1alpha1.ServiceCIDR", "status", "networking/v1alpha1.ServiceCIDRStatus", "", ""},
    {"networking/v1alpha1.ServiceCIDRStatus", "conditions", "", "merge", "type"},
    {"networking/v1beta1.ServiceCIDR", "status", "networking/v1beta1.ServiceCIDRStatus", "", ""},
    {"networking/v1beta1.ServiceCIDRStatus", "conditions", "", "merge", "type"},
    {"policy/v1.PodDisruptionBudget", "spec", "policy/v1.PodDisruptionBudgetSpec", "", ""},
    {"policy/v1.PodDisruptionBudget", "status", "policy/v1.PodDisruptionBudgetStatus", "", ""},
    {"policy/v1.PodDisruptionBudgetSpec", "selector", "", "replace", ""},
    {"policy/v1.PodDisruptionBudgetStatus", "conditions", "", "merge", "type"},
    {"policy/v1beta1.PodDisruptionBudget", "status", "policy/v1beta1.PodDisruptionBudgetStatus", "", ""},
    {"policy/v1beta1.PodDisruptionBudgetStatus", "conditions", "", "merge", "type"},
    {"resource/v1alpha3.ResourceClaim", "status", "resource/v1alpha3.ResourceClaimStatus", "", ""},
    {"resource/v1alpha3.ResourceClaimStatus", "reservedFor", "", "merge", "uid"},
    {"resource/v1alpha3.ResourceClaimTemplate", "spec", "resource/v1alpha3.ResourceClaimTemplateSpec", "", ""},
    {"resource/v1alpha3.ResourceClaimTemplateSpec", "metadata", "meta/v1.ObjectMeta", "", ""},
    {"resource/v1beta1.ResourceClaim", "status", "resource/v1beta1.ResourceClaimStatus", "", ""},
    {"resource/v1beta1.ResourceClaimStatus", "reservedFor", "", "merge", "uid"},
    {"resource/v1beta1.ResourceClaimTemplate", "spec", "resource/v1beta1.ResourceClaimTemplateSpec", "", ""},
    {"resource/v1beta1.ResourceClaimTemplateSpec", "metadata", "meta/v1.ObjectMeta", "", ""},
    {"storage/v1.CSINode", "spec", "storage/v1.CSINodeSpec", "", ""},
    {"storage/v1.CSINodeSpec", "drivers", "", "merge", "name"},
    {"storage/v1beta1.CSINode", "spec", "storage/v1beta1.CSINodeSpec", "", ""},
    {"storage/v1beta1.CSINodeSpec", "drivers", "", "merge", "name"},
    {"storagemigration/v1alpha1.StorageVersionMigration", "status", "storagemigration/v1alpha1.StorageVersionMigrationStatus", "", ""},
    {"storagemigration/v1alpha1.StorageVersionMigrationStatus", "conditions", "", "merge", "type"},
};

constexpr std::string_view kObjectMeta = "meta/v1.ObjectMeta";
constexpr std::string_view kDirective = "$patch";
constexpr std::string_view kRetainKeys = "$retainKeys";
constexpr std::string_view kDeleteFromPrimitiveList = "$deleteFromPrimitiveList";
constexpr std::string_view kSetElementOrder = "$setElementOrder";
constexpr std::string_view kErrNoListOfLists = "lists of lists are not supported";
constexpr std::string_view kErrBadPrimitiveList = "invalid patch format of primitive list";
constexpr std::string_view kErrBadRetainKeys = "invalid patch format of retainKeys";
constexpr std::string_view kErrBadSetElementOrder = "invalid patch format of setElementOrder list";
constexpr std::string_view kNilDereference = "runtime error: invalid memory address or nil pointer dereference";

// The Go package of an apiVersion's types: "v1" -> core/v1, "apps/v1" -> apps/v1,
// "rbac.authorization.k8s.io/v1" -> rbac/v1, "internal.apiserver.k8s.io/v1alpha1" -> apiserverinternal/v1alpha1.
std::string goPackage(std::string_view apiVersion) {
    auto slash = apiVersion.find('/');
    if (slash == std::string_view::npos) return "core/" + std::string(apiVersion);
    std::string_view group = apiVersion.substr(0, slash);
    std::string pkg = group == "internal.apiserver.k8s.io" ? "apiserverinternal" : std::string(group.substr(0, group.find('.')));
    return pkg + "/" + std::string(apiVersion.substr(slash + 1));
}

// The Go struct the patch descends into: a table type, a kind's type (root), or "" for a struct
// without tagged fields below it.
struct Schema {
    std::string_view type;
    bool root = false;
};

struct PatchMeta {
    Schema sub;
    std::string_view strategy;  // "merge", "replace" or "" (retainKeys alone changes nothing when merging)
    std::string_view mergeKey;
};

// extractRetainKeysPatchStrategy, keeping the strategy that is not retainKeys.
std::string_view strategyOf(std::string_view tag) {
    if (tag == "merge" || tag == "merge,retainKeys") return "merge";
    if (tag == "replace") return "replace";
    return "";
}

PatchMeta lookupPatchMeta(const Schema& schema, std::string_view field) {
    if (schema.root && field == "metadata") return {{kObjectMeta}, "", ""};
    auto key = std::pair(schema.type, field);
    auto it = std::lower_bound(std::begin(kSmpFields), std::end(kSmpFields), key,
                               [](const SmpField& f, const auto& k) { return std::pair(f.type, f.field) < k; });
    if (it == std::end(kSmpFields) || it->type != schema.type || it->field != field) return {};
    return {{it->child}, strategyOf(it->strategy), it->mergeKey};
}

// Go's == on two interface{} values: different dynamic types are unequal, two maps or two slices panic.
enum class GoEq { False, True, Panic };

GoEq goEqual(const json::value& a, const json::value& b) {
    GoKind k = goKind(a);
    if (k != goKind(b)) return GoEq::False;
    switch (k) {
    case GoKind::Nil: return GoEq::True;
    case GoKind::Map:
    case GoKind::Slice: return GoEq::Panic;
    case GoKind::Float64: return asDouble(a) == asDouble(b) ? GoEq::True : GoEq::False;
    default: return a == b ? GoEq::True : GoEq::False;
    }
}

// A hashable identity agreeing with goEqual on scalars; maps and slices keep only their kind.
std::string goIdentity(const json::value& v) {
    switch (goKind(v)) {
    case GoKind::Nil: return "n";
    case GoKind::Map: return "M";
    case GoKind::Slice: return "A";
    case GoKind::String: return "s" + std::string(v.get_string());
    case GoKind::Int64: return "i" + std::to_string(v.get_int64());
    case GoKind::Bool: return v.get_bool() ? "b1" : "b0";
    case GoKind::Float64: break;
    }
    double d = asDouble(v);
    char buf[40];
    auto r = std::to_chars(buf, buf + sizeof buf, d == 0 ? 0.0 : d);
    return "f" + std::string(buf, r.ptr);
}

// First position of each value in a list, answering like Go's linear scan with ==.
class FirstIndex {
public:
    void add(const json::value& v, std::size_t pos) { first_.try_emplace(goIdentity(v), pos); }
    // The first equal element's position; `panic` set when the scan would compare two maps or two slices.
    std::optional<std::size_t> find(const json::value& probe, bool& panic) const {
        auto it = first_.find(goIdentity(probe));
        if (it == first_.end()) return std::nullopt;
        if (probe.is_object() || probe.is_array()) {
            panic = true;
            return std::nullopt;
        }
        return it->second;
    }
    std::optional<std::size_t> position(const json::value& v) const {
        auto it = first_.find(goIdentity(v));
        return it == first_.end() ? std::nullopt : std::optional(it->second);
    }

private:
    std::unordered_map<std::string, std::size_t> first_;
};

bool isString(const json::value& v, std::string_view s) { return v.is_string() && v.get_string() == s; }

bool isDeleteDirective(const json::value& v) {
    if (!v.is_object()) return false;
    const json::value* d = v.get_object().if_contains(kDirective);
    return d && isString(*d, "delete");
}

// strings.SplitN(s, "/", 2) with the prefix checked: the key after the first "/".
std::optional<std::string> extractKey(std::string_view s, std::string_view prefix) {
    auto slash = s.find('/');
    if (slash == std::string_view::npos || s.substr(0, slash) != prefix) return std::nullopt;
    return std::string(s.substr(slash + 1));
}

std::string errNoMergeKey(const json::value& m, std::string_view key) {
    return "map: " + goValue(m) + " does not contain declared merge key: " + std::string(key);
}

std::string errBadArgType(std::string_view expected, const json::value& actual) {
    return "expected a " + std::string(expected) + ", but received a " + goTypeName(actual);
}

std::string errBadPatchType(const json::value& directive, const json::value& m) {
    return "unknown patch type: " + goValue(directive, 's') + " in map: " + goValue(m);
}

// removeDirectives: maps carrying $patch disappear (nullopt), recursively.
std::optional<json::value> removeDirectives(json::value v) {
    if (v.is_object()) {
        json::object& o = v.get_object();
        if (o.contains(kDirective)) return std::nullopt;
        for (auto it = o.begin(); it != o.end();) {
            auto kept = removeDirectives(std::move(it->value()));
            if (kept) {
                it->value() = std::move(*kept);
                ++it;
            } else {
                it = o.erase(it);
            }
        }
    } else if (v.is_array()) {
        json::array out;
        for (auto& e : v.get_array())
            if (auto kept = removeDirectives(std::move(e))) out.push_back(std::move(*kept));
        return json::value(std::move(out));
    }
    return v;
}

// discardNullValuesFromPatch: null members of maps go, recursively; null list items stay.
void discardNulls(json::value& v) {
    if (v.is_object()) {
        json::object& o = v.get_object();
        for (auto it = o.begin(); it != o.end();) {
            if (it->value().is_null()) {
                it = o.erase(it);
            } else {
                discardNulls(it->value());
                ++it;
            }
        }
    } else if (v.is_array()) {
        for (auto& e : v.get_array()) discardNulls(e);
    }
}

enum class SmpFailure { BadRequest, Invalid, Internal, Panic };

struct SmpError {
    SmpFailure kind;
    std::string message;
};

class StrategicMerger {
public:
    std::optional<SmpError> error;

    // mergeMap; nullopt with `error` set on failure.
    std::optional<json::object> mergeMap(json::object original, json::object patch, const Schema& schema) {
        if (patch.contains(kDirective)) return mapDirective(std::move(patch));
        if (!applyRetainKeys(original, patch) || !mergeElementOrder(original, patch, schema)) return std::nullopt;
        for (auto& kv : patch)
            if (!mergeField(original, kv.key(), kv.value(), schema)) return std::nullopt;
        return original;
    }

private:
    bool fail(SmpFailure kind, std::string message) {
        if (!error) error = SmpError{kind, std::move(message)};
        return false;
    }

    // handleDirectiveInMergeMap.
    [[gnu::noinline]] std::optional<json::object> mapDirective(json::object patch) {
        json::value d = patch.at(kDirective);
        if (isString(d, "replace")) {
            patch.erase(kDirective);
            return patch;
        }
        if (isString(d, "delete")) return json::object();
        fail(SmpFailure::Internal, errBadPatchType(d, json::value(std::move(patch))));
        return std::nullopt;
    }

    // applyRetainKeysDirective.
    [[gnu::noinline]] bool applyRetainKeys(json::object& original, json::object& patch) {
        auto it = patch.find(kRetainKeys);
        if (it == patch.end()) return true;
        json::value list = std::move(it->value());
        patch.erase(it);
        if (!list.is_array()) return fail(SmpFailure::BadRequest, std::string(kErrBadRetainKeys));
        std::unordered_set<std::string> keep;
        for (auto const& v : list.get_array()) {
            if (v.is_object() || v.is_array())
                return fail(SmpFailure::Panic, "runtime error: hash of unhashable type " + goTypeName(v));
            if (v.is_string()) keep.insert(std::string(v.get_string()));
        }
        for (auto const& kv : patch) {
            if (kv.value().is_null() || startsWith(kv.key(), kDeleteFromPrimitiveList) || startsWith(kv.key(), kSetElementOrder)) continue;
            if (!keep.count(std::string(kv.key()))) return fail(SmpFailure::BadRequest, std::string(kErrBadRetainKeys));
        }
        for (auto o = original.begin(); o != original.end();) {
            if (keep.count(std::string(o->key()))) ++o;
            else o = original.erase(o);
        }
        return true;
    }

    // One member of the patch map merged into the original map (the loop body of mergeMap).
    // One member of the patch map merged into the original map (the loop body of mergeMap). The
    // recursion through nested maps runs through here, so the rarer cases live in helpers that
    // are kept out of this frame.
    bool mergeField(json::object& original, std::string_view key, json::value& patchV, const Schema& schema) {
        if (startsWith(key, kDeleteFromPrimitiveList)) return mergeDeleteList(original, key, patchV, schema);
        if (patchV.is_null()) {
            original.erase(key);
            return true;
        }
        json::value* cur = original.if_contains(key);
        if (!cur || goKind(*cur) != goKind(patchV)) return takePatchValue(original, key, patchV);
        if (patchV.is_array()) return mergeChildList(*cur, key, patchV, schema, false);
        if (!patchV.is_object()) {
            *cur = std::move(patchV);
            return true;
        }
        PatchMeta meta = lookupPatchMeta(schema, key);
        if (meta.strategy == "replace") {
            *cur = std::move(patchV);
            return true;
        }
        auto merged = mergeMap(std::move(cur->get_object()), std::move(patchV.get_object()), meta.sub);
        if (!merged) return false;
        *cur = std::move(*merged);
        return true;
    }

    // A value the original lacks or holds with another type: the patch value, cleaned.
    [[gnu::noinline]] static bool takePatchValue(json::object& original, std::string_view key, json::value& patchV) {
        discardNulls(patchV);
        if (auto kept = removeDirectives(std::move(patchV))) original[key] = std::move(*kept);
        else original.erase(key);
        return true;
    }

    // $deleteFromPrimitiveList/<list>: the parallel list of items to drop from <list>.
    [[gnu::noinline]] bool mergeDeleteList(json::object& original, std::string_view key, json::value& patchV, const Schema& schema) {
        auto listKey = extractKey(key, kDeleteFromPrimitiveList);
        if (!listKey) return fail(SmpFailure::BadRequest, std::string(kErrBadPrimitiveList));
        std::string target = listKey->empty() ? std::string(key) : *listKey;
        if (patchV.is_null()) {
            original.erase(target);
            return true;
        }
        json::value* cur = original.if_contains(target);
        if (!cur || goKind(*cur) != goKind(patchV)) return true;
        if (patchV.is_array()) return mergeChildList(*cur, target, patchV, schema, true);
        if (patchV.is_object()) {
            PatchMeta meta = lookupPatchMeta(schema, target);
            if (meta.strategy == "replace") {
                *cur = std::move(patchV);
                return true;
            }
            auto merged = mergeMap(std::move(cur->get_object()), std::move(patchV.get_object()), meta.sub);
            if (!merged) return false;
            *cur = std::move(*merged);
            return true;
        }
        *cur = std::move(patchV);
        return true;
    }

    // mergeSliceHandler: merged by the field's strategy, else replaced by the patch list.
    [[gnu::noinline]] bool mergeChildList(json::value& cur, std::string_view key, json::value& patchV, const Schema& schema, bool deleteList) {
        PatchMeta meta = lookupPatchMeta(schema, key);
        if (meta.strategy != "merge" && !deleteList) {
            cur = std::move(patchV);
            return true;
        }
        auto merged = mergeSlice(std::move(cur.get_array()), std::move(patchV.get_array()), meta, deleteList);
        if (!merged) return false;
        cur = std::move(*merged);
        return true;
    }

    // sliceElementType: the one Go type of all items.
    std::optional<GoKind> sliceElementType(std::initializer_list<const json::array*> lists) {
        std::optional<GoKind> prev;
        for (const json::array* l : lists) {
            for (auto const& v : *l) {
                GoKind k = goKind(v);
                if (!prev) {
                    if (k == GoKind::Nil) return fail(SmpFailure::Panic, std::string(kNilDereference)), std::nullopt;
                    if (k == GoKind::Slice) return fail(SmpFailure::Invalid, std::string(kErrNoListOfLists)), std::nullopt;
                    prev = k;
                } else if (k != *prev) {
                    std::string all = "[";
                    for (const json::array* each : lists) all += (all.size() > 1 ? " " : "") + goValue(json::value(*each));
                    return fail(SmpFailure::Internal, "list element types are not identical: " + all + "]"), std::nullopt;
                }
            }
        }
        if (!prev) fail(SmpFailure::Internal, "no elements in any of the given slices");
        return prev;
    }

    // mergeSlice for a list with the merge strategy (or a $deleteFromPrimitiveList list).
    [[gnu::noinline]] std::optional<json::array> mergeSlice(json::array original, json::array patch, const PatchMeta& meta, bool deleteList) {
        if (original.empty() && patch.empty()) return original;
        auto kind = sliceElementType({&original, &patch});
        if (!kind) return std::nullopt;
        std::string_view mergeKey = meta.mergeKey;
        if (*kind != GoKind::Map) {
            if (deleteList) return deleteFromSlice(original, patch);
            json::array merged = original;
            merged.insert(merged.end(), patch.begin(), patch.end());
            return normalizedMerge(dedupe(std::move(merged)), patch, original, mergeKey, *kind);
        }
        // The element's Go type is named in this message; only string lists lack a merge key.
        if (mergeKey.empty()) return fail(SmpFailure::Internal, "cannot merge lists without merge key for string"), std::nullopt;
        if (!specialElements(original, patch, mergeKey)) return std::nullopt;
        json::array serverOrder = original;
        auto merged = mergeWithoutSpecial(std::move(original), patch, mergeKey, meta.sub);
        if (!merged) return std::nullopt;
        return normalizedMerge(std::move(*merged), patch, serverOrder, mergeKey, *kind);
    }

    // The tail of mergeSlice: items split by presence in the patch, each part in its own order.
    std::optional<json::array> normalizedMerge(json::array merged, const json::array& patch, const json::array& serverOrder,
                                               std::string_view mergeKey, GoKind kind) {
        json::array patchItems, serverOnly;
        if (!partition(std::move(merged), patch, mergeKey, patchItems, serverOnly)) return std::nullopt;
        return normalizeElementOrder(std::move(patchItems), std::move(serverOnly), patch, serverOrder, mergeKey, kind);
    }

    static json::array dedupe(json::array items) {
        std::unordered_set<std::string> seen;
        json::array out;
        for (auto& v : items)
            if (seen.insert(goIdentity(v)).second) out.push_back(std::move(v));
        return out;
    }

    static json::array deleteFromSlice(const json::array& current, const json::array& toDelete) {
        std::unordered_set<std::string> drop;
        for (auto const& v : toDelete) drop.insert(goIdentity(v));
        json::array out;
        for (auto const& v : current)
            if (!drop.count(goIdentity(v))) out.push_back(v);
        return out;
    }

    // mergeSliceWithSpecialElements: $patch delete / replace items of a list of maps. The deletions
    // are collected and applied in one pass (upstream rescans the list for each).
    bool specialElements(json::array& original, json::array& patch, std::string_view mergeKey) {
        json::array plain;
        bool replace = false;
        std::unordered_set<std::string> doomed;
        for (auto& v : patch) {
            const json::value* d = v.get_object().if_contains(kDirective);
            if (!d) {
                plain.push_back(std::move(v));
            } else if (isString(*d, "delete")) {
                const json::value* key = v.get_object().if_contains(mergeKey);
                if (!key) return fail(SmpFailure::Internal, errNoMergeKey(v, mergeKey));
                if (key->is_object() || key->is_array()) {
                    // Go's == panics on the first list item whose key is a map (or slice) too; no other item can match.
                    if (hasKeyOfKind(original, mergeKey, goKind(*key)))
                        return fail(SmpFailure::Panic, "runtime error: comparing uncomparable type " + goTypeName(*key));
                    continue;
                }
                doomed.insert(goIdentity(*key));
            } else if (isString(*d, "replace")) {
                replace = true;
            } else if (isString(*d, "merge")) {
                return fail(SmpFailure::Internal, "merging lists cannot yet be specified in the patch");
            } else {
                return fail(SmpFailure::Internal, errBadPatchType(*d, v));
            }
        }
        if (!doomed.empty()) {
            json::array kept;
            for (auto& e : original) {
                const json::value* k = e.get_object().if_contains(mergeKey);
                if (!k || !doomed.count(goIdentity(*k))) kept.push_back(std::move(e));
            }
            original = std::move(kept);
        }
        if (replace) {
            original = std::move(plain);
            patch.clear();
        } else {
            patch = std::move(plain);
        }
        return true;
    }

    static bool hasKeyOfKind(const json::array& list, std::string_view mergeKey, GoKind kind) {
        return std::any_of(list.begin(), list.end(), [&](const json::value& e) {
            const json::value* k = e.get_object().if_contains(mergeKey);
            return k && goKind(*k) == kind;
        });
    }

    // mergeSliceWithoutSpecialElements: patch maps merged into the original map with the same key, else appended.
    std::optional<json::array> mergeWithoutSpecial(json::array original, const json::array& patch, std::string_view mergeKey,
                                                   const Schema& schema) {
        FirstIndex index;
        for (std::size_t i = 0; i < original.size(); ++i)
            if (const json::value* k = original[i].get_object().if_contains(mergeKey)) index.add(*k, i);
        for (auto const& v : patch) {
            const json::value* key = v.get_object().if_contains(mergeKey);
            if (!key) return fail(SmpFailure::Internal, errNoMergeKey(v, mergeKey)), std::nullopt;
            bool panic = false;
            auto pos = index.find(*key, panic);
            if (panic) return fail(SmpFailure::Panic, "runtime error: comparing uncomparable type " + goTypeName(*key)), std::nullopt;
            if (!pos) {
                index.add(*key, original.size());
                original.push_back(v);
                continue;
            }
            auto merged = mergeMap(std::move(original[*pos].get_object()), v.get_object(), schema);
            if (!merged) return std::nullopt;
            original[*pos] = std::move(*merged);
        }
        return original;
    }

    // partitionPrimitivesByPresentInList / partitionMapsByPresentInList.
    bool partition(json::array merged, const json::array& by, std::string_view mergeKey, json::array& in, json::array& out) {
        FirstIndex index;
        std::optional<std::size_t> firstNonMap;
        for (std::size_t i = 0; i < by.size(); ++i) {
            if (mergeKey.empty()) {
                if (by[i].is_object() || by[i].is_array())
                    return fail(SmpFailure::Panic, "runtime error: hash of unhashable type " + goTypeName(by[i]));
                index.add(by[i], i);
            } else if (!by[i].is_object()) {
                if (!firstNonMap) firstNonMap = i;
            } else if (const json::value* k = by[i].get_object().if_contains(mergeKey)) {
                index.add(*k, i);
            }
        }
        for (auto& v : merged) {
            std::optional<std::size_t> pos;
            bool panic = false;
            if (mergeKey.empty()) {
                if (v.is_object() || v.is_array()) return fail(SmpFailure::Panic, "runtime error: hash of unhashable type " + goTypeName(v));
                pos = index.find(v, panic);
            } else {
                if (!v.is_object()) return fail(SmpFailure::Internal, errBadArgType("map[string]interface {}", v));
                const json::value* k = v.get_object().if_contains(mergeKey);
                if (!k) return fail(SmpFailure::Internal, errNoMergeKey(v, mergeKey));
                pos = index.find(*k, panic);
                if (firstNonMap && (!pos || *firstNonMap < *pos) && !panic)
                    return fail(SmpFailure::Internal, "value for key " + std::to_string(*firstNonMap) + " is not a map");
            }
            if (panic) return fail(SmpFailure::Panic, "runtime error: comparing uncomparable type " + goTypeName(v));
            (pos ? in : out).push_back(std::move(v));
        }
        return true;
    }

    // validateMergeKeyInLists.
    bool validateMergeKeys(std::string_view mergeKey, std::initializer_list<const json::array*> lists) {
        for (const json::array* l : lists) {
            for (auto const& v : *l) {
                if (!v.is_object()) return fail(SmpFailure::Internal, errBadArgType("map[string]interface {}", v));
                if (!v.get_object().contains(mergeKey)) return fail(SmpFailure::Internal, errNoMergeKey(v, mergeKey));
            }
        }
        return true;
    }

    // The value `index` compares: the merge key's value for maps (nil when absent), the item itself otherwise.
    static const json::value& orderValue(const json::value& item, std::string_view mergeKey, GoKind kind) {
        static const json::value kNil;
        if (kind != GoKind::Map) return item;
        if (!item.is_object()) return kNil;
        const json::value* v = item.get_object().if_contains(mergeKey);
        return v ? *v : kNil;
    }

    static FirstIndex orderIndex(const json::array& order, std::string_view mergeKey, GoKind kind) {
        FirstIndex index;
        for (std::size_t i = 0; i < order.size(); ++i) index.add(orderValue(order[i], mergeKey, kind), i);
        return index;
    }

    // Positions of the items in the order list (index()); nullopt after a panic.
    std::optional<std::vector<std::optional<std::size_t>>> positions(const json::array& items, const FirstIndex& index,
                                                                     std::string_view mergeKey, GoKind kind) {
        std::vector<std::optional<std::size_t>> pos;
        for (auto const& item : items) {
            bool panic = false;
            const json::value& v = orderValue(item, mergeKey, kind);
            pos.push_back(index.find(v, panic));
            if (panic) return fail(SmpFailure::Panic, "runtime error: comparing uncomparable type " + goTypeName(v)), std::nullopt;
        }
        return pos;
    }

    // normalizeSliceOrder: sorted stably by position in `order`, $patch: delete items last.
    std::optional<json::array> normalizeSliceOrder(json::array toSort, const json::array& order, std::string_view mergeKey, GoKind kind) {
        json::array toDelete;
        if (kind == GoKind::Map) {
            if (!validateMergeKeys(mergeKey, {&toSort, &order})) return std::nullopt;
            json::array keep;
            for (auto& v : toSort) (isDeleteDirective(v) ? toDelete : keep).push_back(std::move(v));
            toSort = std::move(keep);
        }
        auto pos = positions(toSort, orderIndex(order, mergeKey, kind), mergeKey, kind);
        if (!pos) return std::nullopt;
        std::vector<std::size_t> perm(toSort.size());
        for (std::size_t i = 0; i < perm.size(); ++i) perm[i] = i;
        // Go's comparator puts an item without a position before anything; with all positions known
        // it is a strict order and any stable sort agrees with sort.SliceStable.
        auto rank = [&](std::size_t i) { return (*pos)[i] ? static_cast<std::ptrdiff_t>(*(*pos)[i]) : -1; };
        std::stable_sort(perm.begin(), perm.end(), [&](std::size_t a, std::size_t b) { return rank(a) < rank(b); });
        json::array out;
        for (std::size_t i : perm) out.push_back(std::move(toSort[i]));
        for (auto& v : toDelete) out.push_back(std::move(v));
        return out;
    }

    // normalizeElementOrder + mergeSortedSlice: server-only items interleaved into the patch items.
    std::optional<json::array> normalizeElementOrder(json::array patchItems, json::array serverOnly, const json::array& patchOrder,
                                                     const json::array& serverOrder, std::string_view mergeKey, GoKind kind) {
        auto right = normalizeSliceOrder(std::move(patchItems), patchOrder, mergeKey, kind);
        if (!right) return std::nullopt;
        auto left = normalizeSliceOrder(std::move(serverOnly), serverOrder, mergeKey, kind);
        if (!left) return std::nullopt;
        FirstIndex index = orderIndex(serverOrder, mergeKey, kind);
        auto li = positions(*left, index, mergeKey, kind);
        auto ri = li ? positions(*right, index, mergeKey, kind) : std::nullopt;
        if (!ri) return std::nullopt;
        json::array out;
        std::size_t i = 0, j = 0;
        while (i < left->size() || j < right->size()) {
            bool takeLeft = j >= right->size() ||
                            (i < left->size() && (*li)[i] && (*ri)[j] && *(*li)[i] < *(*ri)[j]);
            if (takeLeft) out.push_back(std::move((*left)[i++]));
            else out.push_back(std::move((*right)[j++]));
        }
        return out;
    }

    // validatePatchWithSetOrderList.
    bool validateOrder(const json::array& patchList, const json::array& order, std::string_view mergeKey) {
        if (order.empty() || patchList.empty()) return true;
        std::vector<const json::value*> items;
        for (auto const& v : patchList) {
            if (!mergeKey.empty()) {
                if (!v.is_object()) return fail(SmpFailure::Internal, errBadArgType("map[string]interface {}", v));
                if (isDeleteDirective(v)) continue;
            }
            items.push_back(&v);
        }
        std::size_t pi = 0, si = 0;
        while (pi < items.size() && si < order.size()) {
            const json::value& item = *items[pi];
            if (item.is_object() && item.get_object().contains(kDirective)) {
                ++pi;
                continue;
            }
            GoEq eq = GoEq::False;
            if (mergeKey.empty()) {
                eq = goEqual(item, order[si]);
            } else {
                if (!order[si].is_object()) return fail(SmpFailure::Internal, errBadArgType("map[string]interface {}", order[si]));
                const json::value* l = item.get_object().if_contains(mergeKey);
                if (!l) return fail(SmpFailure::Internal, errNoMergeKey(item, mergeKey));
                const json::value* r = order[si].get_object().if_contains(mergeKey);
                if (!r) return fail(SmpFailure::Internal, errNoMergeKey(order[si], mergeKey));
                eq = goEqual(*l, *r);
            }
            if (eq == GoEq::Panic) return fail(SmpFailure::Panic, "runtime error: comparing uncomparable type " + goTypeName(item));
            if (eq == GoEq::True) ++pi;
            ++si;
        }
        if (pi < items.size() && si >= order.size())
            return fail(SmpFailure::Internal, "The order in patch list:\n" + goValue(json::value(patchList)) + "\n doesn't match " +
                                                  std::string(kSetElementOrder) + " list:\n" + goValue(json::value(order)) + "\n");
        return true;
    }

    // mergePatchIntoOriginal: each $setElementOrder/<list> directive with its list.
    [[gnu::noinline]] bool mergeElementOrder(json::object& original, json::object& patch, const Schema& schema) {
        std::vector<std::string> keys;
        for (auto const& kv : patch)
            if (startsWith(kv.key(), kSetElementOrder)) keys.emplace_back(kv.key());
        for (auto const& key : keys) {
            json::value order = std::move(patch.at(key));
            patch.erase(key);
            if (!order.is_array()) return fail(SmpFailure::Internal, errBadArgType("[]interface {}", order));
            auto listKey = extractKey(key, kSetElementOrder);
            if (!listKey) return fail(SmpFailure::BadRequest, std::string(kErrBadSetElementOrder));
            if (!mergeOrderedList(original, patch, *listKey, order.get_array(), schema)) return false;
        }
        return true;
    }

    bool mergeOrderedList(json::object& original, json::object& patch, const std::string& listKey, const json::array& order,
                          const Schema& schema) {
        static const json::array kEmpty;
        const json::value* orig = original.if_contains(listKey);
        const json::value* pat = patch.if_contains(listKey);
        if (orig && !orig->is_array()) return fail(SmpFailure::Internal, errBadArgType("[]interface {}", *orig));
        if (pat && !pat->is_array()) return fail(SmpFailure::Internal, errBadArgType("[]interface {}", *pat));
        const json::array& origList = orig ? orig->get_array() : kEmpty;
        const json::array& patList = pat ? pat->get_array() : kEmpty;
        PatchMeta meta = lookupPatchMeta(schema, listKey);
        if (!validateOrder(patList, order, meta.mergeKey)) return false;
        if (!orig && !pat) return true;
        json::array merged;
        if (!pat) {
            merged = origList;
        } else if (!orig) {
            merged = removeDirectives(json::value(patList))->get_array();
        } else if (meta.strategy == "merge") {
            auto m = mergeSlice(origList, patList, meta, false);
            if (!m) return false;
            merged = std::move(*m);
        } else {
            merged = patList;
        }
        json::array patchItems, serverOnly;
        if (!partition(std::move(merged), order, meta.mergeKey, patchItems, serverOnly)) return false;
        auto kind = sliceElementType({&origList, &patList});
        if (!kind) return false;
        json::array serverOrder = origList;
        auto both = normalizeElementOrder(std::move(patchItems), std::move(serverOnly), order, serverOrder, meta.mergeKey, *kind);
        if (!both) return false;
        original[listKey] = std::move(*both);
        patch.erase(listKey);
        return true;
    }
};

PatchResult smpFailure(const SmpError& e) {
    switch (e.kind) {
    case SmpFailure::BadRequest: return badRequest(e.message);
    case SmpFailure::Invalid: return genericInvalid(e.message);
    case SmpFailure::Internal: return internalError(e.message);
    case SmpFailure::Panic: return panicked(e.message);
    }
    return internalError(e.message);
}

}  // namespace

// ---------------------------------------------------------------------------------------------

json::object statusOf(const PatchResult& failed) {
    json::object s{{"kind", "Status"}, {"apiVersion", "v1"}, {"metadata", json::object()}, {"status", "Failure"},
                   {"message", failed.message}};
    if (!failed.reason.empty()) s["reason"] = failed.reason;
    if (failed.details) s["details"] = *failed.details;
    s["code"] = failed.code;
    return s;
}

PatchResult unsupportedPatchType(bool builtinKind) {
    std::string accepted = builtinKind ? "application/json-patch+json, application/merge-patch+json, "
                                         "application/strategic-merge-patch+json, application/apply-patch+yaml"
                                       : "application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml";
    return failure(415, "UnsupportedMediaType",
                   "the body of the request was in an unknown format - accepted media types include: " + accepted);
}

PatchResult mergePatch(const json::value& target, std::string_view patchBody, FieldValidation validation) {
    Body body;
    std::vector<std::string> strictErrors;
    if (validation != FieldValidation::Ignore) {
        // handlers/patch.go decodes the body strictly first, then hands it to MergePatch.
        body = decodeBody(patchBody, Shape::MapAny, true);
        if (!body.syntaxError.empty()) return badRequest("error decoding patch: " + body.syntaxError);
        if (!body.decoded.typeError.empty()) return badRequest("error decoding patch: " + body.decoded.typeError);
        strictErrors = std::move(body.decoded.strictErrors);
    } else {
        body = decodeBody(patchBody, Shape::Raw, false);
        if (!body.syntaxError.empty()) return badRequest(std::string(kErrBadJSONPatch));
    }
    PatchResult r = applyMergePatch(target, std::move(body.decoded.value));
    if (!r.ok) return r;
    return finishDocument(std::move(r.value), std::move(strictErrors), validation);
}

PatchResult jsonPatch(const json::value& target, std::string_view patchBody, FieldValidation validation) {
    bool strict = validation != FieldValidation::Ignore;
    // Under Warn / Strict the body is first decoded strictly into []handlers.jsonPatchOp.
    Body body = decodeBody(patchBody, strict ? Shape::OpList : Shape::RawPatch, strict);
    std::string prefix = strict ? "error decoding patch: " : "";
    if (!body.syntaxError.empty()) return badRequest(prefix + body.syntaxError);
    if (!body.decoded.typeError.empty()) return badRequest(prefix + body.decoded.typeError);
    std::vector<std::string> strictErrors;
    for (auto const& e : body.decoded.strictErrors) strictErrors.push_back("json patch " + e);
    const json::value& ops = body.decoded.value;
    std::size_t count = ops.is_array() ? ops.get_array().size() : 0;
    if (count > kMaxJsonPatchOperations)
        return failure(413, "RequestEntityTooLarge",
                       "Request entity too large: The allowed maximum operations in a JSON patch is " +
                           std::to_string(kMaxJsonPatchOperations) + ", got " + std::to_string(count));
    if (!target.is_object() && !target.is_array()) return genericInvalid("json: cannot unmarshal into jsonpatch.partialDoc");
    JsonPatcher patcher(target);
    for (std::size_t i = 0; i < count; ++i) {
        if (auto err = patcher.apply(Operation(ops.get_array()[i])))
            return err->panic ? panicked(err->message) : genericInvalid(err->message);
    }
    return finishDocument(std::move(patcher.document()), std::move(strictErrors), validation);
}

PatchResult strategicMergePatch(const json::value& target, std::string_view patchBody, std::string_view apiVersion,
                                std::string_view kind, bool builtinKind, FieldValidation validation) {
    // A custom resource's PATCH handler does not list strategic merge patch among its media types.
    if (!builtinKind) return unsupportedPatchType(false);
    Body body = decodeBody(patchBody, Shape::MapAny, validation != FieldValidation::Ignore);
    if (!body.syntaxError.empty()) return badRequest(body.syntaxError);
    if (!body.decoded.typeError.empty()) return badRequest(body.decoded.typeError);
    std::vector<std::string> strictErrors = std::move(body.decoded.strictErrors);
    json::value patch = std::move(body.decoded.value);
    bool strictFailure = validation == FieldValidation::Strict && !strictErrors.empty();
    std::string patchText = strictFailure ? goValue(patch) : "";
    json::object original = target.is_object() ? target.get_object() : json::object();
    std::string rootType = goPackage(apiVersion) + "." + std::string(kind);
    StrategicMerger merger;
    std::optional<json::object> merged = std::move(original);
    if (patch.is_object()) merged = merger.mergeMap(std::move(*merged), std::move(patch.get_object()), Schema{rootType, true});
    if (!merged) return smpFailure(*merger.error);
    if (strictFailure) {
        PatchResult r = invalidPatch(patchText, strictDecodingError(strictErrors));
        r.strictErrors = std::move(strictErrors);
        return r;
    }
    return success(json::value(std::move(*merged)), std::move(strictErrors));
}

std::string formatGoValue(const json::value& v) { return goValue(v); }

}  // namespace trainer::core::apiserver
