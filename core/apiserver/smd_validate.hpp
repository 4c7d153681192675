// The applied configuration must be keyable: every item of an associative list has its keys (or
// is a scalar, for a set) and no key occurs twice. Errors carry upstream's text.
//   https://github.com/kubernetes-sigs/structured-merge-diff/blob/master/typed/validate.go
// Internal to the field manager (core/apiserver/field_manager.hpp).
#pragma once

#include "core/apiserver/smd_typed_helpers.hpp"

#include <string>
#include <vector>

namespace trainer::core::apiserver::smd {

struct ValidationError {
    std::string path, message;
    std::string text() const { return path.empty() ? message : path + ": " + message; }
};

// Appends to `errs` what is wrong with `v`, at path string `prefix` and schema path `names`
// (both as `v` is reached; `names` is restored on return).
void validateValue(const json::value& v, const std::string& prefix, Names& names, const Shapes& sh,
                   std::vector<ValidationError>& errs);

// The errors as one message: the single error's text, or "errors:" and one indented line each.
std::string validationText(const std::vector<ValidationError>& errs);

}  // namespace trainer::core::apiserver::smd
