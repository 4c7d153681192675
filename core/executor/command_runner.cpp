#include "core/executor/command_runner.hpp"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

namespace trainer::core::executor {

namespace {

// A pipe already holding `input`, its write end closed: the child's stdin. -1 on failure.
int inputPipe(const std::string& input, std::string& error) {
    int in[2];
    if (pipe2(in, O_CLOEXEC | O_NONBLOCK) != 0) {
        error = std::string("pipe: ") + std::strerror(errno);
        return -1;
    }
    size_t done = 0;
    while (done < input.size()) {
        ssize_t n = ::write(in[1], input.data() + done, input.size() - done);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break;
        done += static_cast<size_t>(n);
    }
    ::close(in[1]);
    if (done == input.size() && ::fcntl(in[0], F_SETFL, 0) == 0) return in[0];  // the child reads it blocking
    ::close(in[0]);
    error = "the command's input (" + std::to_string(input.size()) + " bytes) does not fit its pipe";
    return -1;
}

CommandResult run(const std::vector<std::string>& argv, int stdinFd) {
    CommandResult r;
    int out[2];
    if (argv.empty() || pipe2(out, O_CLOEXEC) != 0) return r;
    std::vector<char*> args;
    for (auto const& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    if (stdinFd >= 0) posix_spawn_file_actions_adddup2(&fa, stdinFd, 0);
    else posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_adddup2(&fa, out[1], 1);
    posix_spawn_file_actions_adddup2(&fa, out[1], 2);
    pid_t pid = -1;
    int err = posix_spawnp(&pid, args[0], &fa, nullptr, args.data(), environ);
    posix_spawn_file_actions_destroy(&fa);
    ::close(out[1]);
    if (err != 0) {
        ::close(out[0]);
        r.output = argv[0] + ": " + std::strerror(err);
        return r;
    }
    char buf[4096];
    for (;;) {
        ssize_t n = ::read(out[0], buf, sizeof buf);
        if (n > 0) r.output.append(buf, static_cast<size_t>(n));
        else if (n == 0 || errno != EINTR) break;
    }
    ::close(out[0]);
    int st = 0;
    while (::waitpid(pid, &st, 0) < 0 && errno == EINTR) {
    }
    r.exitCode = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
    while (!r.output.empty() && (r.output.back() == '\n' || r.output.back() == ' ')) r.output.pop_back();
    return r;
}

}  // namespace

CommandResult runCommand(const std::vector<std::string>& argv) { return run(argv, -1); }

CommandResult runCommand(const std::vector<std::string>& argv, const std::string& input) {
    CommandResult r;
    const int in = inputPipe(input, r.output);
    if (in < 0) return r;
    r = run(argv, in);
    ::close(in);
    return r;
}

}  // namespace trainer::core::executor
