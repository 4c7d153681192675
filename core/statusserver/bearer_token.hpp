// The credential of an `Authorization: Bearer <token>` header, as upstream's extractRawToken
// (https://github.com/kubeflow/trainer/blob/master/pkg/statusserver/auth.go).
#pragma once

#include <string>
#include <string_view>

namespace trainer::core::statusserver {

// The credentials of an RFC 7235 "Bearer" Authorization header value: the value is split on
// white space (Go's strings.Fields: ASCII and Unicode White_Space, any amount, leading and
// trailing tolerated); it must have exactly two fields, the first equal to "Bearer" ignoring
// case. Anything else (empty, "Bearer", "Basic x", "Bearerx t", "Bearer a b") gives "".
std::string extractRawToken(std::string_view header);

}  // namespace trainer::core::statusserver
