#include "core/auth/signing_key_file.hpp"

#include "core/server/atomic_file.hpp"
#include "core/server/unique_fd.hpp"

#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>

namespace trainer::core::auth {

namespace fs = std::filesystem;

namespace {

constexpr off_t kMaxKeyFileBytes = 64 * 1024;

using Fd = server::UniqueFd;

std::string sysError(std::string_view what, const fs::path& path, int err = errno) {
    return std::string(what) + " " + path.string() + ": " + std::strerror(err);
}

// `dir` opened as a directory, never through a symlink; made (0700) when absent.
int openKeyDir(const fs::path& dir, std::string& error) {
    std::error_code ec;
    if (dir.has_parent_path()) fs::create_directories(dir.parent_path(), ec);
    if (ec) return error = "create " + dir.parent_path().string() + ": " + ec.message(), -1;
    if (::mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST) return error = sysError("mkdir", dir), -1;
    int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) error = sysError("open directory", dir);
    return fd;
}

// The whole content of the open key file, checked first (regular, private, small).
bool readKeyFile(int fd, const fs::path& path, std::string& out, std::string& error) {
    struct stat st {};
    if (::fstat(fd, &st) != 0) return error = sysError("stat", path), false;
    if (!S_ISREG(st.st_mode)) return error = path.string() + " is not a regular file", false;
    if ((st.st_mode & 077) != 0) {
        char mode[8];
        std::snprintf(mode, sizeof mode, "%04o", unsigned(st.st_mode & 07777));
        return error = path.string() + " is accessible by group or others (mode " + mode + ", want 0600)", false;
    }
    if (st.st_size > kMaxKeyFileBytes) return error = path.string() + " is larger than 64 KiB", false;
    out.assign(static_cast<size_t>(st.st_size), '\0');
    size_t done = 0;
    while (done < out.size()) {
        ssize_t n = ::read(fd, out.data() + done, out.size() - done);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) return error = sysError("read", path), false;
        if (n == 0) break;
        done += static_cast<size_t>(n);
    }
    out.resize(done);
    return true;
}

std::optional<Es256Key> parseKey(const std::string& pem, const fs::path& path, std::string& error) {
    std::string cause;
    auto key = Es256Key::fromPrivatePem(pem, cause);
    if (!key) error = path.string() + ": " + cause + " (remove the file to make a new key; tokens signed with it will stop verifying)";
    return key;
}

std::optional<Es256Key> readExisting(int dirFd, const fs::path& path, bool& absent, std::string& error) {
    Fd fd(::openat(dirFd, kSigningKeyFileName.data(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY | O_NONBLOCK));
    absent = fd.get() < 0 && errno == ENOENT;
    if (absent) return std::nullopt;
    if (fd.get() < 0 && errno == ELOOP) return error = path.string() + " is a symbolic link", std::nullopt;
    if (fd.get() < 0) return error = sysError("open", path), std::nullopt;
    std::string pem;
    if (!readKeyFile(fd.get(), path, pem, error)) return std::nullopt;
    return parseKey(pem, path, error);
}

// A new key published without replacing one another process put there meanwhile (`raced`).
std::optional<Es256Key> createKey(int dirFd, const fs::path& dir, bool& raced, std::string& error) {
    auto key = Es256Key::generate(error);
    if (!key) return std::nullopt;
    std::string pem = key->privatePem();
    if (pem.empty()) return error = "encoding the new signing key failed", std::nullopt;
    auto written = server::writeFileAtomicallyAt(dirFd, dir, std::string(kSigningKeyFileName), pem, {0600, false});
    raced = written.code == EEXIST;
    if (!written.ok() && !raced) error = written.error;
    if (!written.ok()) return std::nullopt;
    return key;
}

}  // namespace

std::optional<Es256Key> loadOrCreateSigningKey(const fs::path& dir, std::string& error) {
    Fd dirFd(openKeyDir(dir, error));
    if (dirFd.get() < 0) return std::nullopt;
    const fs::path path = dir / kSigningKeyFileName;
    // Twice at most: a concurrent creator may win the race between our read and our rename.
    for (int attempt = 0; attempt < 2; ++attempt) {
        bool absent = false, raced = false;
        auto key = readExisting(dirFd.get(), path, absent, error);
        if (key || !absent) return key;
        key = createKey(dirFd.get(), dir, raced, error);
        if (key || !raced) return key;
    }
    error = path.string() + " keeps changing under us";
    return std::nullopt;
}

}  // namespace trainer::core::auth
