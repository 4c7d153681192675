#include "core/executor/process_launcher.hpp"

#include "core/executor/container_init.hpp"

#include <cerrno>
#include <csignal>
#include <cstring>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <poll.h>
#include <sched.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

namespace trainer::core::executor {

ContainerProcess::ContainerProcess(ContainerProcess&& o) noexcept
    : pid_(o.pid_), pidfd_(o.pidfd_), exitCode_(o.exitCode_) {
    o.pid_ = -1;
    o.pidfd_ = -1;
}

ContainerProcess& ContainerProcess::operator=(ContainerProcess&& o) noexcept {
    if (this != &o) {
        reset();
        pid_ = o.pid_;
        pidfd_ = o.pidfd_;
        exitCode_ = o.exitCode_;
        o.pid_ = -1;
        o.pidfd_ = -1;
    }
    return *this;
}

ContainerProcess::~ContainerProcess() { reset(); }

void ContainerProcess::reset() {
    if (pid_ > 0 && !exitCode_) {
        ::syscall(SYS_pidfd_send_signal, pidfd_, SIGKILL, nullptr, 0);
        int st = 0;
        while (::waitpid(pid_, &st, 0) < 0 && errno == EINTR) {
        }
    }
    if (pidfd_ >= 0) ::close(pidfd_);
    pid_ = -1;
    pidfd_ = -1;
}

std::optional<int> ContainerProcess::poll() {
    if (exitCode_ || pid_ <= 0) return exitCode_;
    int st = 0;
    pid_t r = ::waitpid(pid_, &st, WNOHANG);
    if (r != pid_) return std::nullopt;
    exitCode_ = WIFEXITED(st) ? WEXITSTATUS(st) : WIFSIGNALED(st) ? 128 + WTERMSIG(st) : 1;
    return exitCode_;
}

void ContainerProcess::signal(int sig) const {
    // Through the pidfd: never a recycled pid.
    if (pid_ > 0 && !exitCode_) ::syscall(SYS_pidfd_send_signal, pidfd_, sig, nullptr, 0);
}

bool ContainerProcess::catches(int sig) const {
    if (pid_ <= 0 || exitCode_) return false;
    std::ifstream status("/proc/" + std::to_string(pid_) + "/status");
    for (std::string line; std::getline(status, line);) {
        if (line.rfind("SigCgt:", 0) != 0) continue;
        unsigned long long mask = std::strtoull(line.c_str() + 7, nullptr, 16);
        return (mask >> (sig - 1)) & 1ULL;
    }
    return false;
}

const std::string& selfExecutable() {
    static const std::string path = [] {
        std::error_code ec;
        auto p = std::filesystem::read_symlink("/proc/self/exe", ec);
        return ec ? std::string("/proc/self/exe") : p.string();
    }();
    return path;
}

LaunchResult launchContainerInit(const std::string& exe, const std::string& specFile) {
    // Everything the child touches is prepared before the clone: after it, only syscalls.
    std::string arg0 = "trainer-container-init", arg1(kContainerInitArg);
    char* argv[] = {arg0.data(), arg1.data(), const_cast<char*>(specFile.c_str()), nullptr};
    char path[] = "PATH=/usr/sbin:/usr/bin:/sbin:/bin";
    char* envp[] = {path, nullptr};
    // The operator itself, watched by the child across the moment before its parent-death signal
    // is armed (getppid() cannot tell from a new PID namespace). Pidfds are close-on-exec.
    static const int operatorPidfd = static_cast<int>(::syscall(SYS_pidfd_open, ::getpid(), 0));
    const long flags = CLONE_NEWPID | CLONE_NEWNS | CLONE_NEWUTS | CLONE_NEWIPC | SIGCHLD;
    long pid = ::syscall(SYS_clone, flags, nullptr, nullptr, nullptr, nullptr);
    if (pid < 0) return {std::nullopt, std::string("clone with new namespaces: ") + std::strerror(errno)};
    if (pid == 0) {
        ::prctl(PR_SET_PDEATHSIG, SIGKILL);
        pollfd gone{operatorPidfd, POLLIN, 0};
        if (operatorPidfd >= 0 && ::poll(&gone, 1, 0) > 0) ::_exit(137);
        ::execve(exe.c_str(), argv, envp);
        ::_exit(127);
    }
    int pidfd = static_cast<int>(::syscall(SYS_pidfd_open, static_cast<pid_t>(pid), 0));
    if (pidfd < 0) {
        int err = errno;
        ::kill(static_cast<pid_t>(pid), SIGKILL);
        int st = 0;
        ::waitpid(static_cast<pid_t>(pid), &st, 0);
        return {std::nullopt, std::string("pidfd_open: ") + std::strerror(err)};
    }
    return {ContainerProcess(static_cast<int>(pid), pidfd), ""};
}

}  // namespace trainer::core::executor
