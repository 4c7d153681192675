// The JSONPath subset CRD additionalPrinterColumns and selectableFields use, evaluated on JSON:
// ".a.b", "['a']", "[0]", "[-1:]", "[1:3]", "[*]", ".*", "[?(@.x==\"v\")]", "[?(@.x)]", "{...}".
#pragma once

#include <boost/json.hpp>

#include <optional>
#include <string_view>
#include <vector>

namespace trainer::core {

namespace json = boost::json;

// Values at `jsonPath` in `obj`, in document order; nullopt when the path does not parse.
std::optional<std::vector<json::value>> tryEvalJsonPath(const json::value& obj, std::string_view jsonPath);

// The same with a malformed path reading as no values.
std::vector<json::value> evalJsonPath(const json::value& obj, std::string_view jsonPath);

// Whether `jsonPath` is in the subset.
bool isJsonPath(std::string_view jsonPath);

}  // namespace trainer::core
