// Go's text forms of decoded JSON values, byte for byte as the Kubernetes API server (Go) writes
// them into error messages: strconv.Quote, fmt's %v and %s, reflect type names, encoding/json
// Marshal, and the UTF-8 decoding they rest on. Each function names the Go function it mirrors:
//   https://github.com/golang/go/tree/go1.23.0/src/strconv (quote.go, ftoa.go)
//   https://github.com/golang/go/tree/go1.23.0/src/fmt (print.go)
//   https://github.com/golang/go/tree/go1.23.0/src/encoding/json (encode.go, scanner.go)
//   https://github.com/golang/go/tree/go1.23.0/src/unicode/utf8 (utf8.go)
// A json::value stands for what Go holds after decoding JSON into interface{} with PreserveInts
// (https://github.com/kubernetes-sigs/json): nil, map[string]interface{}, []interface{}, string,
// int64 (an integer that fits), float64 (any other number), bool. Strings may hold any bytes;
// invalid UTF-8 is treated as Go treats it. Pure functions: no I/O, no exceptions.
#pragma once

#include <boost/json.hpp>

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace trainer::core::apiserver::gotext {

namespace json = boost::json;

// goValue and goJson print a map or slice nested deeper than this as "..." and null instead of
// recursing further. No body a patch accepts is deeper (go_json_decode.hpp kMaxNestingDepth), so
// what those print is always printed in full.
constexpr std::size_t kMaxPrintDepth = 1000;

// One rune of a byte string as utf8.DecodeRune reads it.
struct Rune {
    std::uint32_t value;  // U+FFFD when !valid
    std::size_t size;     // bytes consumed: 1 to 4, and 1 when !valid
    bool valid;           // false for an invalid, overlong, surrogate or truncated sequence
};

// utf8.DecodeRune(s[i:]); requires i < s.size().
Rune decodeRune(std::string_view s, std::size_t i);

// utf8.AppendRune for a Unicode scalar value `r` (<= U+10FFFF, not a surrogate; not checked).
void appendUtf8(std::string& out, std::uint32_t r);

// strconv.Quote: double-quoted, Go escapes, non-printable runes as \x / \u / \U, invalid bytes as \xNN.
std::string goQuote(std::string_view s);

// quoteChar of encoding/json scanner.go: the byte as a Go rune literal ('x', '\'', '"', '\n', ...),
// as syntax errors print the offending character.
std::string goQuoteChar(unsigned char c);

// fmt %v of a float64 (strconv.FormatFloat(f, 'g', -1, 64)): the shortest digits that read back
// as f, in exponent form below 1e-4 and from 1e6 up (1e-05, 0.0001, 123456, 1e+06); "+Inf", "-Inf".
std::string goFloatV(double f);

// encoding/json floatEncoder for a float64: shortest digits, exponent form below 1e-6 and from
// 1e21 with the exponent unpadded (1e-07, 1e+21). Infinities print as the largest finite float64.
std::string goJsonFloat(double f);

// The dynamic Go type of a decoded value.
enum class GoKind { Nil, Map, Slice, String, Int64, Float64, Bool };

// The GoKind of `v`: json int64 is Int64; uint64 and double are Float64.
GoKind goKind(const json::value& v);

// The float64 value of a number (int64, uint64 or double).
double asDouble(const json::value& v);

// reflect.Type.String() of a decoded value ("map[string]interface {}", "[]interface {}",
// "string", "int64", "float64", "bool"); "%!s(<nil>)" for nil, as fmt's %s prints a nil Type.
std::string goTypeName(const json::value& v);

// fmt's verb 'v' (default) or 's' applied to a decoded value: maps as map[k:v ...] with sorted
// keys, slices as [a b], floats as goFloatV; under 's' a non-string scalar prints as
// %!s(type=value) and nil as %!s(<nil>).
std::string goValue(const json::value& v, char verb = 'v');

// encoding/json Marshal of a decoded value: object keys sorted, strings HTML-escaped (<, >, & as
// \u003c ...; U+2028, U+2029 escaped; invalid UTF-8 as \ufffd), floats as goJsonFloat.
std::string goJson(const json::value& v);

}  // namespace trainer::core::apiserver::gotext
