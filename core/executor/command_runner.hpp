// Runs a short host command (a readiness probe's `exec`, readiness_probe.hpp) and returns its result.
#pragma once

#include <string>
#include <vector>

namespace trainer::core::executor {

struct CommandResult {
    int exitCode = -1;   // -1 when it could not be started
    std::string output;  // stdout and stderr
    bool ok() const { return exitCode == 0; }
};

// posix_spawnp of argv (safe from a threaded process); waits for it. Its stdin is /dev/null.
CommandResult runCommand(const std::vector<std::string>& argv);

}  // namespace trainer::core::executor
