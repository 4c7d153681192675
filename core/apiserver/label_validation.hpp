// Label key and value checks and the error texts of k8s.io/apimachinery as the API server words
// them (pkg/util/validation/validation.go, pkg/util/validation/field/errors.go,
// pkg/util/errors/errors.go), for selectors.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace trainer::core::apiserver {

// validation.IsQualifiedName: the problems of a label key ("prefix part ...", "name part ..."),
// empty when valid.
std::vector<std::string> qualifiedNameErrors(std::string_view key);

// validation.IsValidLabelValue: the problems of a label value, empty when valid.
std::vector<std::string> labelValueErrors(std::string_view value);

// field.Invalid(path, key, problems joined by "; ").Error() for an invalid key:
// `<path>: Invalid value: "<key>": <problems>`; nullopt when valid.
std::optional<std::string> labelKeyError(std::string_view key, std::string_view path);
// The same for a label value.
std::optional<std::string> labelValueError(std::string_view value, std::string_view path);

// Go's strconv.Quote (what %q prints).
std::string goQuote(std::string_view s);

// Go's %#v of a []string built by append to nil: `[]string(nil)`, `[]string{"a", "b"}`.
std::string goSliceText(const std::vector<std::string>& values);

// An aggregate error's text: the one message, or "[m1, m2]" without repeats.
std::string aggregateText(const std::vector<std::string>& messages);

}  // namespace trainer::core::apiserver
