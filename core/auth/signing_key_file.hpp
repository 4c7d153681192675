// The service-account signing key of the embedded mode, kept in one file so that tokens minted
// before a restart still verify after it (kube-apiserver reads its --service-account-key-file
// the same way: made once, reused).
#pragma once

#include "core/auth/es256_key.hpp"

#include <filesystem>
#include <optional>
#include <string>

namespace trainer::core::auth {

// The key file's name inside the key directory.
inline constexpr std::string_view kSigningKeyFileName = "service-account-signing-key.pem";

// Reads `<dir>/service-account-signing-key.pem`, or creates it when absent: `dir` is made
// (mode 0700) if missing; the key is written to a fresh temporary file in `dir` (O_CREAT|O_EXCL|
// O_NOFOLLOW, mode 0600), fsynced, renamed into place without replacing a file another process
// put there meanwhile (that one is then read instead), and `dir` is fsynced. Every system call is
// checked.
//
// An existing file is never replaced: a symlink, a non-regular file, one readable or writable by
// group or others, one larger than 64 KiB, or one that is not an unencrypted ECDSA P-256 private
// key in PEM is an error naming the path (remove the file to start over; the tokens signed with
// the old key then stop verifying). nullopt and `error` on any failure.
std::optional<Es256Key> loadOrCreateSigningKey(const std::filesystem::path& dir, std::string& error);

}  // namespace trainer::core::auth
