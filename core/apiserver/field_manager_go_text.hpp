// The Go text forms the field manager writes: strconv.Quote (fmt %q) in conflict and error
// messages, fmt %v of a float64 in value.ToString, and encoding/json Marshal output in FieldsV1
// keys, manager identifiers and the last-applied-configuration annotation.
//   https://pkg.go.dev/strconv#Quote, https://pkg.go.dev/strconv#FormatFloat,
//   https://pkg.go.dev/encoding/json#Marshal
// These are the field manager's own byte-wise forms (they take their input as valid UTF-8); a
// later change is to replace them with the shared Go-text module split out of patch.cpp.
#pragma once

#include <boost/json.hpp>

#include <string>
#include <string_view>
#include <vector>

namespace trainer::core::apiserver::smd {

namespace json = boost::json;

// strconv.Quote for valid UTF-8: bytes >= 0x80 are passed through as printable runes.
std::string goQuote(std::string_view s);

// fmt %q of a []string: `["a" "b"]`.
std::string goQuoteList(const std::vector<std::string>& keys);

// encoding/json string encoding (HTML-safe, as json.Marshal and jsoniter's std config write it).
std::string goJsonString(std::string_view s);

// fmt's %v of a float64 = strconv.FormatFloat(f, 'g', -1, 64): %e when the decimal exponent is < -4
// or >= 6 (the shortest form decides with precision 6), e.g. 1e+06, 123456, 0.0001, 1e-05.
std::string goFloatV(double d);

// json.Marshal of a decoded unstructured value: map keys sorted, HTML-safe strings.
std::string goJson(const json::value& v);

}  // namespace trainer::core::apiserver::smd
