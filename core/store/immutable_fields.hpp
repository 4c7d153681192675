// Fields the API server never lets an update change, checked by the store for every update and
// apply (so the embedded API's write handlers and the controller's writes obey the same rule).
#pragma once

#include "core/api/errors.hpp"

#include <boost/json.hpp>

#include <string>

namespace trainer::core {

// The field errors an update from `current` to `next` makes, as upstream's ValidateSecretUpdate
// and ValidateConfigMapUpdate word them: a v1 Secret or ConfigMap stored with `immutable: true`
// keeps `immutable: true` and its data (a Secret's stringData counts as the data it encodes to;
// a ConfigMap's binaryData too): path "data", type Forbidden, message "Forbidden: field is
// immutable when `immutable` is set". Empty when the update is allowed.
ErrorList immutableFieldErrors(const boost::json::object& current, const boost::json::object& next);

// The errors joined as the API server's aggregate prints them: "path: message" or "[e1, e2]".
std::string joinFieldErrors(const ErrorList& errors);

}  // namespace trainer::core
