// A file descriptor owned by a scope: closed on destruction unless released. Close errors are
// ignored there; code for which they matter (a file just written) closes explicitly and checks.
#pragma once

#include <unistd.h>

#include <utility>

namespace trainer::core::server {

class UniqueFd {
public:
    explicit UniqueFd(int fd = -1) : fd_(fd) {}
    ~UniqueFd() {
        if (fd_ >= 0) ::close(fd_);
    }
    UniqueFd(const UniqueFd&) = delete;
    UniqueFd& operator=(const UniqueFd&) = delete;
    int get() const { return fd_; }
    int release() { return std::exchange(fd_, -1); }

private:
    int fd_;
};

}  // namespace trainer::core::server
