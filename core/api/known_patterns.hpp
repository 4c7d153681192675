// The patterns every TrainJob and runtime is checked against, as code instead of std::regex.
// Each function matches exactly what its pattern matches under std::regex ECMAScript (the
// grammar core/api/schema.cpp compiles schema patterns with); test/core/api/test_known_patterns.cpp
// holds each to its pattern over generated strings. std::regex took a few microseconds per
// match, and admission matches a name, every label and every resource quantity (issue 14: P1, P5).
#pragma once

#include <string_view>

namespace trainer::core {

// Kubernetes names (k8s.io/apimachinery/pkg/util/validation), as whole-string matches.
inline constexpr const char* kDns1123LabelPattern = "[a-z0-9]([-a-z0-9]*[a-z0-9])?";
inline constexpr const char* kDns1123SubdomainPattern = "[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*";
inline constexpr const char* kQualifiedNamePattern = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]";
inline constexpr const char* kLabelValuePattern = "(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?";
inline constexpr const char* kRfc3339Pattern = R"(\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2}))";

// kDns1123LabelPattern is core/api/dns_names.hpp's isDns1123LabelChars.
bool isDns1123Subdomain(std::string_view s);  // kDns1123SubdomainPattern, no length limit
bool isQualifiedNamePart(std::string_view s); // kQualifiedNamePattern (a label key's name part)
bool isLabelValue(std::string_view s);        // kLabelValuePattern, no length limit
bool isRfc3339(std::string_view s);           // kRfc3339Pattern (the schema's date-time format)

// Schema `pattern`s (searched, so they carry their own anchors) with a matcher here: the CRDs'
// resource quantity, the CEL rules' URL and object name. Null for any other pattern text.
using PatternMatcher = bool (*)(std::string_view);
PatternMatcher knownPattern(std::string_view pattern);

}  // namespace trainer::core
