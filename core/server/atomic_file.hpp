// Writing one file so that nobody else can read it early, redirect it or see half of it: the
// writer every private key, token and kubeconfig the operator writes goes through.
//
// The bytes go into a fresh temporary file `.<name>.<random>.tmp` of the target's directory,
// created with O_CREAT|O_EXCL|O_NOFOLLOW|O_CLOEXEC and the final mode (so a planted file or
// symlink of any name is never opened, and the file is never readable more widely than asked),
// written in full (short writes and EINTR retried), fsynced and closed, then renamed over the
// target (rename(2) replaces a symlink at the target, never writes through it) and the directory
// is fsynced. Every system call is checked; on failure the temporary file is removed.
#pragma once

#include <sys/types.h>

#include <filesystem>
#include <string>
#include <string_view>

namespace trainer::core::server {

struct FileWriteOptions {
    mode_t mode = 0600;
    // false: fail with code EEXIST instead of replacing a file already at the target.
    bool replace = true;
};

// The outcome: `error` is "" on success, else "<step> <path>: <strerror>"; `code` the errno.
struct FileWriteResult {
    std::string error;
    int code = 0;
    bool ok() const { return error.empty(); }
};

// Replaces `path` with `data` as described above.
FileWriteResult writeFileAtomically(const std::filesystem::path& path, std::string_view data,
                                    FileWriteOptions options = {});

// The same inside the open directory `dirFd`; `dir` names it in messages only.
FileWriteResult writeFileAtomicallyAt(int dirFd, const std::filesystem::path& dir, const std::string& name,
                                      std::string_view data, FileWriteOptions options = {});

// Creates `path`, which must not exist, with exactly `mode` (O_EXCL|O_NOFOLLOW, umask
// overridden by fchmod) and writes `data` to it, closing it checked; no rename, no fsync. For
// files of a directory nobody reads yet.
FileWriteResult writeNewFile(const std::filesystem::path& path, std::string_view data, mode_t mode);

// Makes `dir` (its parents as usual) with mode 0700, or narrows an existing one to 0700 when
// group or others have any access. "" or the error.
std::string ensurePrivateDirectory(const std::filesystem::path& dir);

}  // namespace trainer::core::server
