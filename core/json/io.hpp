// Reading Kubernetes manifests (YAML / JSON files and directories) and writing JSON / YAML.
#pragma once

#include "core/api/errors.hpp"

#include <boost/json.hpp>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace trainer::core {

namespace json = boost::json;

// One object read from the inputs, with where it came from ("a.yaml", "a.yaml (document 2)").
struct InputDocument {
    json::object object;
    std::string origin;
};

// Input limits, the same for every entry point (CLI files, run --config, the webhook's
// AdmissionReview, the embedded API's request bodies). Documented in README.md "Input limits".
//
// Arrays and objects (YAML sequences and mappings) may nest at most this deep; deeper input is
// refused with "nesting deeper than 256". Kubernetes objects, the trainer CRDs included, nest
// under 50; 256 stays below yaml-cpp's own recursion guard (about 500 nodes), so YAML and JSON
// share one limit and one message.
inline constexpr std::size_t kMaxNestingDepth = 256;
// One YAML document, with every alias expanded, may hold at most this many nodes (scalars,
// sequences, mappings) and this many bytes of scalar text; beyond either it is refused, so an
// alias bomb costs at most these bounds in memory. An alias to a node still being read (a cycle,
// `a: &a [*a]`) is refused.
inline constexpr std::size_t kMaxYamlNodes = 1u << 20;
inline constexpr std::size_t kMaxYamlScalarBytes = 64u << 20;
// A name or value quoted in an error message is cut to this many bytes (see `quoteForError`).
inline constexpr std::size_t kMaxEchoBytes = 256;

// `s` as an error message quotes it: at most kMaxEchoBytes bytes (cut on a UTF-8 boundary),
// then "... (N bytes)" when cut; invalid UTF-8 replaced by U+FFFD.
std::string quoteForError(std::string_view s);

// `s` with every invalid UTF-8 sequence replaced by U+FFFD (valid text is returned unchanged).
std::string toValidUtf8(std::string_view s);

// Strict JSON text to a value: nesting at most kMaxNestingDepth ("nesting deeper than 256") and
// no object with a key twice ("spec.env[0]: duplicate key \"name\"", as YAML refuses it). On
// failure returns false and sets `error`; `limitHit` (when given) tells a refused limit or
// duplicate key apart from text that is not JSON.
bool parseJson(std::string_view text, json::value& out, std::string& error, bool* limitHit = nullptr);

// Reads files (YAML, multi-document YAML, JSON, `kind: List`/`*List` flattened) and directories
// (their *.yaml, *.yml, *.json files, sorted, not recursive); "-" reads stdin. Appends every
// object to `out`; every problem is an error whose `origin` names the file. Never throws.
Diagnostics readInputs(const std::vector<std::string>& paths, std::vector<InputDocument>& out);

// Parses one file's text (as readInputs does for a file named `fileName`).
Diagnostics parseInputText(std::string_view text, const std::string& fileName, std::vector<InputDocument>& out);

// YAML (possibly several documents) to JSON values with Kubernetes (sigs.k8s.io/yaml) scalar
// semantics; empty documents are dropped. On malformed YAML, or YAML beyond the input limits
// above (depth, alias cycle, expanded size), returns false and sets `error` to
// "line L, column C: <reason>" (1-based). Never throws, never recurses per node.
bool parseYaml(std::string_view text, std::vector<json::value>& docs, std::string& error);

// What a plain (unquoted) YAML scalar means: null, bool, int64/uint64, double, else string.
json::value resolvePlainScalar(std::string_view text);

// A JSON object from API text (a server's answer, a stored body: not user input), nesting allowed
// to twice kMaxNestingDepth since objects the operator builds embed user input a few levels down;
// nullopt when the text is not a JSON object.
std::optional<json::object> parseJsonObject(std::string_view text);

// Boost.JSON's json::parse(text, ec, {}, opts with `maxDepth`), through a parser the thread keeps
// between calls: text this process, its store or a plugin wrote (not user input: parseJson checks
// that), parsed without allocating the parser's working space each time. Null and `ec` on failure.
json::value parseReusing(std::string_view text, json::error_code& ec, std::size_t maxDepth = 32);

// JSON text; pretty = 2-space indent. Keys keep their stored order.
std::string toJson(const json::value& v, bool pretty = false);
// The same for an object, without making a json::value of it (a copy of the whole tree).
std::string toJson(const json::object& o, bool pretty = false);
// `s` as a JSON string, quotes included, appended to `out`: `"`, `\`, bytes below 0x20 and DEL
// escaped (\n, \t, ... or \u00XX), every other byte written as itself.
void appendJsonString(std::string& out, std::string_view s);
// Appends what toJson writes, as if `v` stood `indent` spaces deep inside a pretty document (its
// nested lines indented from there): a list can be written item by item.
void appendJson(std::string& out, const json::value& v, bool pretty, int indent);
void appendJson(std::string& out, const json::object& o, bool pretty, int indent);

// Block-style YAML (kubectl layout). Strings that would read back as another type are
// quoted; multi-line strings become literal blocks. Ends with a newline.
std::string toYaml(const json::value& v);

}  // namespace trainer::core
