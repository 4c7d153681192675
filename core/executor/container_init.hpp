// The container init: what runs as PID 1 of a container's new PID, mount, UTS and IPC namespaces,
// created by the process launcher (process_launcher.hpp): the trainer-container-init helper
// (core/cli/container_init_main.cpp), or the operator's binary through its hidden entry
// `trainer-operator __container-init SPEC`, never a user command (container_init_binary.hpp).
//
// Contract: joins the pod's network namespace, makes mounts private, mounts /proc, the volumes and
// the pod's /etc/hosts, sets the hostname, joins the cgroup, then forks the command with the
// container's env and working directory (stdout and stderr appended to the log file) and reaps
// every process of the namespace. SIGTERM, SIGINT, SIGHUP, SIGQUIT, SIGUSR1/2 are forwarded to the
// command. It exits with the command's exit code (128+N when killed by signal N); its exit tears
// the namespace down, so nothing the command started outlives it. A failure before the command
// runs (a mount, a missing executable) is written to the spec's result file and exits 128.
#pragma once

#include <string_view>

namespace trainer::core::executor {

// argv[1] of the hidden entry.
inline constexpr std::string_view kContainerInitArg = "__container-init";

// Runs the init for `trainer-operator __container-init SPEC_FILE`; returns the exit code.
int containerInitMain(int argc, char** argv);

}  // namespace trainer::core::executor
