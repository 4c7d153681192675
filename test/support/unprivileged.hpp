// Permission checks that bite whoever runs the suite. The suite runs as root (scripts/test.sh),
// whom file modes do not stop: a test of "cannot read" / "cannot write" runs its body through
// this in a forked child that is the unprivileged user `nobody` (uid and gid 65534) when the test
// runs as root, and the caller itself otherwise, instead of being skipped as root.
#pragma once

#include <grp.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <functional>
#include <string>

namespace trainer::test {

// What `body` returned, run as above. Paths it touches must be reachable by `nobody` (directories
// on the way searchable by others). A child that could not drop root, or that died, answers a
// line starting with "<" saying so.
inline std::string asUnprivileged(const std::function<std::string()>& body) {
    int fds[2];
    if (::pipe(fds) != 0) return std::string("<pipe: ") + std::strerror(errno) + ">";
    pid_t pid = ::fork();
    if (pid < 0) return std::string("<fork: ") + std::strerror(errno) + ">";
    if (pid == 0) {
        ::close(fds[0]);
        std::string out;
        if (::geteuid() == 0 && (::setgroups(0, nullptr) != 0 || ::setgid(65534) != 0 || ::setuid(65534) != 0))
            out = std::string("<could not become nobody: ") + std::strerror(errno) + ">";
        else
            out = body();
        for (std::size_t done = 0; done < out.size();) {
            auto n = ::write(fds[1], out.data() + done, out.size() - done);
            if (n <= 0) break;
            done += static_cast<std::size_t>(n);
        }
        ::_exit(0);
    }
    ::close(fds[1]);
    std::string out;
    char buf[4096];
    for (ssize_t n; (n = ::read(fds[0], buf, sizeof buf)) > 0;) out.append(buf, static_cast<std::size_t>(n));
    ::close(fds[0]);
    int st = 0;
    ::waitpid(pid, &st, 0);
    if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) return "<the unprivileged child died>" + out;
    return out;
}

}  // namespace trainer::test
