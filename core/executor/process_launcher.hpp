// Starts a container init (container_init.hpp) in new PID, mount, UTS and IPC namespaces and
// tracks it through a pidfd. The init gets SIGKILL when the thread that launched it ends
// (PR_SET_PDEATHSIG), so the operator's death, even by SIGKILL, takes every container with it:
// the init is PID 1 of its namespace, and the kernel kills the namespace when PID 1 dies.
#pragma once

#include <chrono>
#include <optional>
#include <string>

namespace trainer::core::executor {

// One running init. Not copyable; the destructor SIGKILLs and reaps a process still running.
class ContainerProcess {
public:
    ContainerProcess() = default;
    ContainerProcess(int pid, int pidfd) : pid_(pid), pidfd_(pidfd) {}
    ContainerProcess(ContainerProcess&& o) noexcept;
    ContainerProcess& operator=(ContainerProcess&& o) noexcept;
    ContainerProcess(const ContainerProcess&) = delete;
    ContainerProcess& operator=(const ContainerProcess&) = delete;
    ~ContainerProcess();

    int pid() const { return pid_; }
    // Readable (poll POLLIN) once the process has exited.
    int pidfd() const { return pidfd_; }
    bool running() const { return pid_ > 0 && !exitCode_; }
    // Reaps the process if it has exited: its exit code (128+N for signal N), else nullopt.
    std::optional<int> poll();
    void signal(int sig) const;
    // Whether the process has a handler for `sig` (/proc/<pid>/status SigCgt). A namespace's
    // PID 1 drops signals it has no handler for, so SIGTERM waits until the init has one.
    bool catches(int sig) const;

private:
    void reset();
    int pid_ = -1;
    int pidfd_ = -1;
    std::optional<int> exitCode_;
};

struct LaunchResult {
    std::optional<ContainerProcess> process;
    std::string error;
};

// Launches `<exe> __container-init <specFile>` in new namespaces. The calling thread must outlive
// the process (see the header comment). `exe` runs the init: the helper or the operator's binary
// (container_init_binary.hpp).
LaunchResult launchContainerInit(const std::string& exe, const std::string& specFile);

// The running binary's path, resolved once.
const std::string& selfExecutable();

}  // namespace trainer::core::executor
