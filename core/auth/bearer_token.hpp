// Bearer credentials as the servers see them: taking the token out of an Authorization header,
// comparing two tokens without leaking where they differ, and the digest caches key tokens by
// (so no cache ever holds a raw token).
#pragma once

#include <string>
#include <string_view>

namespace trainer::core::auth {

// The credential of an RFC 7235 "Bearer" Authorization header: the scheme matched
// case-insensitively, any surrounding or separating whitespace tolerated; empty unless the header
// carries exactly one bearer credential (upstream's extractRawToken,
// https://github.com/kubeflow/trainer/blob/master/pkg/statusserver/auth.go).
std::string bearerToken(std::string_view authorizationHeader);

// True when `presented` equals `expected`, in time independent of where they differ and of the
// expected token's length (both are hashed first). An empty `expected` matches nothing.
bool tokensEqual(std::string_view presented, std::string_view expected);

// Lower-case hex SHA-256 of `token`.
std::string tokenDigest(std::string_view token);

}  // namespace trainer::core::auth
