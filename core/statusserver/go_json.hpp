// The parts of Go's encoding/json the status server's clients can observe: how strings are
// decoded (invalid UTF-8 and lone surrogates become U+FFFD), how keys match struct fields
// (case-insensitively) and how strings are encoded (HTML-safe escapes).
// https://github.com/golang/go/blob/master/src/encoding/json/decode.go, encode.go, fold.go
#pragma once

#include <string>
#include <string_view>

namespace trainer::core::statusserver {

// `s` with each byte that does not start a valid UTF-8 sequence replaced by U+FFFD (Go's
// utf8.DecodeRune rules: no overlong forms, no surrogates, nothing above U+10FFFF).
std::string sanitizeUtf8(std::string_view s);

// JSON text with every \u escape of an unpaired UTF-16 surrogate inside a string literal rewritten
// as \ufffd (Go decodes those as U+FFFD; Boost.JSON refuses them). Same length; everything else
// untouched, so malformed text stays malformed.
std::string replaceLoneSurrogates(std::string_view text);

// Whether a JSON object key selects the struct field `name` as Go does: equal after Unicode simple
// case folding (ASCII letters, and U+017F / U+212A folding to S / K).
bool keyMatches(std::string_view key, std::string_view name);

// `s` as a JSON string literal the way Go encodes it: \" \\ \b \f \n \r \t, other control
// characters and < > & as \u00XX, U+2028 and U+2029 escaped, invalid UTF-8 as \ufffd.
std::string goQuote(std::string_view s);

}  // namespace trainer::core::statusserver
