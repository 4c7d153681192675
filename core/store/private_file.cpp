#include "core/store/private_file.hpp"

#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace trainer::core {

namespace {

std::string sysError(std::string_view what, const std::string& path, int err = errno) {
    return std::string(what) + " " + path + ": " + std::strerror(err);
}

std::string octal(mode_t mode) {
    char buf[8];
    std::snprintf(buf, sizeof buf, "%04o", unsigned(mode & 07777));
    return buf;
}

// Narrows an existing file to 0600 when group or others have access; `absentOk` for -wal/-shm.
std::string tighten(const std::string& path, bool absentOk, std::vector<std::string>& warnings) {
    int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
    if (fd < 0 && errno == ENOENT && absentOk) return {};
    if (fd < 0) return sysError("open", path);
    struct stat st {};
    std::string error;
    if (::fstat(fd, &st) != 0)
        error = sysError("stat", path);
    else if (!S_ISREG(st.st_mode))
        error = path + ": not a regular file";
    else if ((st.st_mode & 077) != 0) {
        if (::fchmod(fd, 0600) != 0)
            error = sysError("chmod", path);
        else
            warnings.push_back(path + " was accessible by group or others (mode " + octal(st.st_mode) +
                               "); narrowed to 0600");
    }
    if (::close(fd) != 0 && error.empty()) error = sysError("close", path);
    return error;
}

}  // namespace

std::string preparePrivateStoreFile(const std::string& path, std::vector<std::string>& warnings) {
    if (path.empty() || path == ":memory:") return {};
    int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd >= 0) {
        // Exactly 0600 whatever the umask (this only ever narrows or restores owner bits).
        std::string error = ::fchmod(fd, 0600) == 0 ? std::string() : sysError("chmod", path);
        if (::close(fd) != 0 && error.empty()) error = sysError("close", path);
        return error;
    }
    if (errno != EEXIST) return sysError("create", path);
    for (auto const& [file, absentOk] : {std::pair{path, false}, {path + "-wal", true}, {path + "-shm", true}})
        if (auto error = tighten(file, absentOk, warnings); !error.empty()) return error;
    return {};
}

}  // namespace trainer::core
