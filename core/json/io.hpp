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

// Reads files (YAML, multi-document YAML, JSON, `kind: List`/`*List` flattened) and directories
// (their *.yaml, *.yml, *.json files, sorted, not recursive); "-" reads stdin. Appends every
// object to `out`; every problem is an error whose `origin` names the file. Never throws.
Diagnostics readInputs(const std::vector<std::string>& paths, std::vector<InputDocument>& out);

// Parses one file's text (as readInputs does for a file named `fileName`).
Diagnostics parseInputText(std::string_view text, const std::string& fileName, std::vector<InputDocument>& out);

// YAML (possibly several documents) to JSON values with Kubernetes (sigs.k8s.io/yaml) scalar
// semantics; empty documents are dropped. On malformed YAML returns false and sets `error`
// to "line L, column C: <reason>" (1-based).
bool parseYaml(std::string_view text, std::vector<json::value>& docs, std::string& error);

// What a plain (unquoted) YAML scalar means: null, bool, int64/uint64, double, else string.
json::value resolvePlainScalar(std::string_view text);

// A JSON object from API text (a server's answer, a stored body), nesting allowed as deep as
// Kubernetes objects go (Boost.JSON's default of 32 is far too shallow for a CRD); nullopt when
// the text is not a JSON object.
std::optional<json::object> parseJsonObject(std::string_view text);

// JSON text; pretty = 2-space indent. Keys keep their stored order.
std::string toJson(const json::value& v, bool pretty = false);

// Block-style YAML (kubectl layout). Strings that would read back as another type are
// quoted; multi-line strings become literal blocks. Ends with a newline.
std::string toYaml(const json::value& v);

}  // namespace trainer::core
