// The child's side of process isolation: `trainer-operator plugin-host`, started only by the
// operator (isolation_client.cpp). It loads one plugin file through the inherited descriptor,
// describes it, then serves Create and Call frames on the inherited socket until the operator
// closes it, forwarding the plugin's host-API calls (log, diagnostic, emit, lookup) as frames.
#pragma once

#include <cstdint>
#include <string>
#include <sys/types.h>

namespace trainer::core::isolation {

struct ChildArgs {
    int socketFd = 3;
    int fileFd = 4;
    std::string path;          // the plugin file, for messages
    uint64_t memoryBytes = 0;  // 0: no address-space backstop
    pid_t parentPid = 0;       // the child exits when this process is gone
};

// Runs the child; returns its exit status (0 when the operator closed the socket).
int runPluginHost(const ChildArgs& args);

}  // namespace trainer::core::isolation
