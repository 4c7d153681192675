#include "core/server/atomic_file.hpp"
#include "core/server/random_hex.hpp"
#include "core/server/unique_fd.hpp"

#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>

namespace trainer::core::server {

namespace fs = std::filesystem;

namespace {

using Fd = UniqueFd;

FileWriteResult failure(std::string_view step, const fs::path& path, int err = errno) {
    return {std::string(step) + " " + path.string() + ": " + std::strerror(err), err};
}


FileWriteResult writeAll(int fd, std::string_view data, const fs::path& path) {
    size_t done = 0;
    while (done < data.size()) {
        ssize_t n = ::write(fd, data.data() + done, data.size() - done);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) return failure("write", path);
        if (n == 0) return failure("write", path, EIO);
        done += static_cast<size_t>(n);
    }
    return {};
}

// Mode (past the umask), bytes, optional fsync and close of a freshly created file; each checked.
FileWriteResult fill(Fd& fd, std::string_view data, const fs::path& path, mode_t mode, bool sync) {
    if (::fchmod(fd.get(), mode) != 0) return failure("chmod", path);
    if (auto r = writeAll(fd.get(), data, path); !r.ok()) return r;
    if (sync && ::fsync(fd.get()) != 0) return failure("fsync", path);
    if (::close(fd.release()) != 0) return failure("close", path);
    return {};
}

// Moves `tmp` to `name` (both in `dirFd`); without replace, never over an existing file.
FileWriteResult publish(int dirFd, const fs::path& dir, const std::string& tmp, const std::string& name, bool replace) {
    if (replace) {
        if (::renameat(dirFd, tmp.c_str(), dirFd, name.c_str()) != 0) return failure("rename " + (dir / tmp).string() + " to", dir / name);
        return {};
    }
    if (::renameat2(dirFd, tmp.c_str(), dirFd, name.c_str(), RENAME_NOREPLACE) == 0) return {};
    if (errno != EINVAL && errno != ENOSYS) return failure("rename " + (dir / tmp).string() + " to", dir / name);
    // A file system without RENAME_NOREPLACE: link(2) never replaces either.
    if (::linkat(dirFd, tmp.c_str(), dirFd, name.c_str(), 0) != 0) return failure("link " + (dir / tmp).string() + " to", dir / name);
    if (::unlinkat(dirFd, tmp.c_str(), 0) != 0) return failure("remove", dir / tmp);
    return {};
}

}  // namespace

FileWriteResult writeFileAtomicallyAt(int dirFd, const fs::path& dir, const std::string& name, std::string_view data,
                                      FileWriteOptions options) {
    std::string unique = randomHex(8);  // O_EXCL below makes a collision an error, never a clobber
    if (unique.empty()) unique = std::to_string(::getpid());
    const std::string tmp = "." + name + "." + unique + ".tmp";
    Fd fd(::openat(dirFd, tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, options.mode));
    if (fd.get() < 0) return failure("create", dir / tmp);
    auto r = fill(fd, data, dir / tmp, options.mode, true);
    if (r.ok()) r = publish(dirFd, dir, tmp, name, options.replace);
    if (!r.ok()) {
        ::unlinkat(dirFd, tmp.c_str(), 0);
        return r;
    }
    if (::fsync(dirFd) != 0) return failure("fsync directory", dir);
    return {};
}

FileWriteResult writeFileAtomically(const fs::path& path, std::string_view data, FileWriteOptions options) {
    const fs::path dir = path.has_parent_path() ? path.parent_path() : fs::path(".");
    const std::string name = path.filename().string();
    if (name.empty() || name == "." || name == "..") return {"write " + path.string() + ": not a file name", EINVAL};
    Fd dirFd(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    if (dirFd.get() < 0) return failure("open directory", dir);
    auto r = writeFileAtomicallyAt(dirFd.get(), dir, name, data, options);
    if (r.ok() && ::close(dirFd.release()) != 0) return failure("close directory", dir);
    return r;
}

FileWriteResult writeNewFile(const fs::path& path, std::string_view data, mode_t mode) {
    Fd fd(::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode & 0600));
    if (fd.get() < 0) return failure("create", path);
    auto r = fill(fd, data, path, mode, false);
    if (!r.ok()) ::unlink(path.c_str());
    return r;
}

std::string ensurePrivateDirectory(const fs::path& dir) {
    std::error_code ec;
    if (dir.has_parent_path()) fs::create_directories(dir.parent_path(), ec);
    if (ec) return "create " + dir.parent_path().string() + ": " + ec.message();
    if (::mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST) return failure("create directory", dir).error;
    Fd fd(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    if (fd.get() < 0) return failure("open directory", dir).error;
    struct stat st {};
    if (::fstat(fd.get(), &st) != 0) return failure("stat", dir).error;
    if ((st.st_mode & 077) != 0 && ::fchmod(fd.get(), 0700) != 0) return failure("chmod", dir).error;
    return {};
}

}  // namespace trainer::core::server
