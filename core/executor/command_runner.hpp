// Runs a short host tool (the network set-up runs iproute2's `ip`) and returns its result.
#pragma once

#include <string>
#include <vector>

namespace trainer::core::executor {

struct CommandResult {
    int exitCode = -1;   // -1 when it could not be started
    std::string output;  // stdout and stderr
    bool ok() const { return exitCode == 0; }
};

// posix_spawnp of argv (safe from a threaded process); waits for it. Its stdin is /dev/null, or
// `input` when given (at most 64 KiB, a pipe's capacity: longer input fails the call, unstarted).
CommandResult runCommand(const std::vector<std::string>& argv);
CommandResult runCommand(const std::vector<std::string>& argv, const std::string& input);

}  // namespace trainer::core::executor
