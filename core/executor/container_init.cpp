#include "core/executor/container_init.hpp"

#include "core/executor/container_spec.hpp"

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <sched.h>
#include <sstream>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

namespace trainer::core::executor {

namespace fs = std::filesystem;

namespace {

volatile pid_t gChild = 0;
volatile sig_atomic_t gPending[NSIG];
constexpr int kForwarded[] = {SIGTERM, SIGINT, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2};

void onSignal(int s) {
    if (gChild > 0) kill(gChild, s);
    else gPending[s] = 1;
}

std::string errnoText(int e) { return std::strerror(e); }

// Host files the init needs, opened before any mount can hide their paths (the state directory
// may live under a mountPath, e.g. /tmp).
struct HostFiles {
    int log = -1, result = -1, scratch = -1, hosts = -1;
    std::vector<int> sources;  // O_PATH, one per spec mount
};

// Writes the failure where the pod worker looks for it and returns the init's exit code.
int fail(const HostFiles& files, std::string message) {
    StartFailure f{"StartError", std::move(message), 128};
    if (files.result >= 0) {
        std::string text = encodeFailure(f);
        (void)!::write(files.result, text.data(), text.size());
    }
    return f.exitCode;
}

std::string openHostFiles(const ContainerSpec& spec, HostFiles& files) {
    files.result = spec.resultFile.empty() ? -1 : ::open(spec.resultFile.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    files.log = ::open(spec.logFile.empty() ? "/dev/null" : spec.logFile.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0640);
    if (files.log < 0) return "open log " + spec.logFile + ": " + errnoText(errno);
    if (!spec.scratchDir.empty() && (files.scratch = ::open(spec.scratchDir.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC)) < 0)
        return "open " + spec.scratchDir + ": " + errnoText(errno);
    if (!spec.hostsFile.empty() && (files.hosts = ::open(spec.hostsFile.c_str(), O_PATH | O_CLOEXEC)) < 0)
        return "open " + spec.hostsFile + ": " + errnoText(errno);
    for (auto const& m : spec.mounts) {
        int fd = ::open(m.source.c_str(), O_PATH | O_CLOEXEC);
        if (fd < 0)
            return "error mounting \"" + m.source + "\" to rootfs at \"" + m.target + "\": stat " + m.source + ": " + errnoText(errno);
        files.sources.push_back(fd);
    }
    return "";
}

// Creates the mount point: a directory for a directory source, an empty file for a file source.
std::string prepareTarget(int sourceFd, const std::string& target) {
    struct stat st {};
    if (::fstat(sourceFd, &st) != 0) return "stat: " + errnoText(errno);
    std::error_code ec;
    const fs::path t(target);
    if (S_ISDIR(st.st_mode)) {
        fs::create_directories(t, ec);
        if (ec) return "mkdir " + target + ": " + ec.message();
        return fs::is_directory(t) ? "" : "mkdir " + target + ": not a directory";
    }
    fs::create_directories(t.parent_path(), ec);
    if (ec) return "mkdir " + t.parent_path().string() + ": " + ec.message();
    if (!fs::exists(t, ec)) {
        int fd = ::open(target.c_str(), O_CREAT | O_WRONLY | O_CLOEXEC, 0644);
        if (fd < 0) return "create " + target + ": " + errnoText(errno);
        ::close(fd);
    }
    return fs::is_directory(t) ? "mount " + target + ": is a directory, the source is a file" : "";
}

std::string bindMount(int sourceFd, const std::string& source, const std::string& target, bool readOnly) {
    const std::string what = "error mounting \"" + source + "\" to rootfs at \"" + target + "\": ";
    if (auto err = prepareTarget(sourceFd, target); !err.empty()) return what + err;
    const std::string via = "/proc/self/fd/" + std::to_string(sourceFd);
    if (::mount(via.c_str(), target.c_str(), nullptr, MS_BIND | MS_REC, nullptr) != 0) return what + errnoText(errno);
    if (readOnly && ::mount(nullptr, target.c_str(), nullptr, MS_BIND | MS_REMOUNT | MS_RDONLY | MS_REC, nullptr) != 0)
        return "remount \"" + target + "\" read-only: " + errnoText(errno);
    return "";
}

std::string mountAll(const ContainerSpec& spec, const HostFiles& files) {
    std::vector<size_t> order(spec.mounts.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(),
                     [&](size_t a, size_t b) { return spec.mounts[a].target.size() < spec.mounts[b].target.size(); });
    bool ownHosts = false;
    for (size_t i : order) {
        auto const& m = spec.mounts[i];
        if (auto err = bindMount(files.sources[i], m.source, m.target, m.readOnly); !err.empty()) return err;
        ownHosts = ownHosts || m.target == "/etc/hosts";
    }
    if (files.hosts >= 0 && !ownHosts)
        if (auto err = bindMount(files.hosts, spec.hostsFile, "/etc/hosts", true); !err.empty()) return err;
    // The scratch directory keeps its host path even when a mount (a private /tmp) hid it.
    struct stat viaFd {}, viaPath {};
    if (files.scratch >= 0 && ::fstat(files.scratch, &viaFd) == 0 &&
        (::stat(spec.scratchDir.c_str(), &viaPath) != 0 || viaFd.st_ino != viaPath.st_ino || viaFd.st_dev != viaPath.st_dev))
        return bindMount(files.scratch, spec.scratchDir, spec.scratchDir, false);
    return "";
}

// Everything the namespaces need before the command runs; "" or the failure message.
std::string setUpNamespaces(const ContainerSpec& spec, const HostFiles& files) {
    if (!spec.netns.empty()) {
        int fd = ::open(spec.netns.c_str(), O_RDONLY | O_CLOEXEC);
        if (fd < 0 || ::setns(fd, CLONE_NEWNET) != 0) return "join network namespace " + spec.netns + ": " + errnoText(errno);
        ::close(fd);
    }
    if (::mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0) return "make mounts private: " + errnoText(errno);
    if (::mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, nullptr) != 0)
        return "mount /proc: " + errnoText(errno);
    if (!spec.cgroup.empty()) {
        std::ofstream procs(spec.cgroup + "/cgroup.procs");
        procs << "0" << std::flush;
        if (!procs) return "join cgroup " + spec.cgroup + ": cannot write cgroup.procs";
    }
    if (auto err = mountAll(spec, files); !err.empty()) return err;
    if (!spec.hostname.empty() && ::sethostname(spec.hostname.data(), spec.hostname.size()) != 0)
        return "sethostname " + spec.hostname + ": " + errnoText(errno);
    std::error_code ec;
    if (!spec.workingDir.empty()) fs::create_directories(spec.workingDir, ec);
    if (ec) return "mkdir " + spec.workingDir + ": " + ec.message();
    return "";
}

// argv[0] resolved against the container env's PATH, as execvp would with that PATH.
std::vector<std::string> candidates(const ContainerSpec& spec) {
    const std::string& cmd = spec.argv[0];
    if (cmd.find('/') != std::string::npos) return {cmd};
    std::string path = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";
    for (auto const& e : spec.env)
        if (e.rfind("PATH=", 0) == 0) path = e.substr(5);
    std::vector<std::string> out;
    std::stringstream ss(path);
    for (std::string dir; std::getline(ss, dir, ':');) out.push_back((dir.empty() ? "." : dir) + "/" + cmd);
    return out;
}

struct ExecReport {
    int stage = 0;  // 1 chdir, 2 exec
    int err = 0;
};

[[noreturn]] void runCommand(const ContainerSpec& spec, const HostFiles& files, int reportFd, std::vector<char*>& argv,
                             std::vector<char*>& envp, const std::vector<std::string>& paths) {
    sigset_t none;
    sigemptyset(&none);
    for (int s : kForwarded) signal(s, SIG_DFL);
    signal(SIGPIPE, SIG_DFL);
    sigprocmask(SIG_SETMASK, &none, nullptr);
    int devNull = ::open("/dev/null", O_RDONLY);
    dup2(devNull, 0);
    dup2(files.log, 1);
    dup2(files.log, 2);
    ExecReport r;
    const bool cd = spec.workingDir.empty() ? (files.scratch < 0 || fchdir(files.scratch) == 0) : chdir(spec.workingDir.c_str()) == 0;
    if (!cd) {
        r = {1, errno};
    } else {
        int firstErr = ENOENT;
        for (auto const& p : paths) {
            execve(p.c_str(), argv.data(), envp.data());
            if (errno != ENOENT && errno != ENOTDIR) firstErr = errno;
        }
        r = {2, firstErr};
    }
    (void)!write(reportFd, &r, sizeof r);
    _exit(127);
}

std::string execMessage(const ContainerSpec& spec, const ExecReport& r) {
    if (r.stage == 1) return "chdir to cwd (\"" + (spec.workingDir.empty() ? spec.scratchDir : spec.workingDir) + "\") failed: " + errnoText(r.err);
    const std::string& cmd = spec.argv[0];
    if (r.err == ENOENT && cmd.find('/') == std::string::npos)
        return "exec: \"" + cmd + "\": executable file not found in $PATH";
    if (r.err == ENOENT) return "exec: \"" + cmd + "\": stat " + cmd + ": no such file or directory";
    return "exec: \"" + cmd + "\": " + errnoText(r.err);
}

int exitCodeOf(int status) {
    if (WIFEXITED(status)) return WEXITSTATUS(status);
    if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
    return 1;
}

// Forks the command, reaps every process of the namespace until the command is gone.
int superviseCommand(const ContainerSpec& spec, const HostFiles& files) {
    int report[2];
    if (pipe2(report, O_CLOEXEC) != 0) return fail(files, "pipe: " + errnoText(errno));
    std::vector<char*> argv, envp;
    for (auto const& a : spec.argv) argv.push_back(const_cast<char*>(a.c_str()));
    for (auto const& e : spec.env) envp.push_back(const_cast<char*>(e.c_str()));
    argv.push_back(nullptr);
    envp.push_back(nullptr);
    auto paths = candidates(spec);
    // Forwarded signals are held across the fork: the child must not run the init's handler,
    // and one that arrives meanwhile reaches the command (runCommand unblocks after resetting).
    sigset_t forwarded, previous;
    sigemptyset(&forwarded);
    for (int s : kForwarded) sigaddset(&forwarded, s);
    sigprocmask(SIG_BLOCK, &forwarded, &previous);
    pid_t child = fork();
    if (child < 0) return fail(files, "fork: " + errnoText(errno));
    if (child == 0) runCommand(spec, files, report[1], argv, envp, paths);
    gChild = child;
    for (int s : kForwarded)
        if (gPending[s]) kill(child, s);
    sigprocmask(SIG_SETMASK, &previous, nullptr);
    ::close(report[1]);
    ExecReport r;
    ssize_t n;
    while ((n = read(report[0], &r, sizeof r)) < 0 && errno == EINTR) {
    }
    int status = 0;
    for (;;) {
        pid_t p = waitpid(-1, &status, 0);
        if (p == child) break;
        if (p < 0 && errno != EINTR) return fail(files, "wait: " + errnoText(errno));
    }
    if (n == static_cast<ssize_t>(sizeof r)) return fail(files, execMessage(spec, r));
    return exitCodeOf(status);
}

}  // namespace

int containerInitMain(int argc, char** argv) {
    ::syscall(SYS_close_range, 3U, ~0U, 0U);
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, nullptr);
    struct sigaction sa {};
    sa.sa_handler = onSignal;
    sigemptyset(&sa.sa_mask);
    for (int s : kForwarded) sigaction(s, &sa, nullptr);
    if (argc != 3) return 2;
    // Mounts and the hostname change the caller's namespaces: only ever as PID 1 of new ones.
    if (::getpid() != 1) {
        std::fputs("trainer-operator: __container-init runs only as PID 1 of a container's namespaces\n", stderr);
        return 2;
    }
    std::ifstream in(argv[2]);
    std::stringstream text;
    text << in.rdbuf();
    std::string error;
    auto spec = decodeSpec(text.str(), error);
    HostFiles files;
    if (!spec) return fail(files, error);
    if (auto err = openHostFiles(*spec, files); !err.empty()) return fail(files, err);
    if (auto err = setUpNamespaces(*spec, files); !err.empty()) return fail(files, err);
    return superviseCommand(*spec, files);
}

}  // namespace trainer::core::executor
