// Reading a container's log as `kubectl logs` gets it: the whole file or its last lines, capped
// in bytes, and with `follow` the bytes appended later until the container instance ends.
// poll() never blocks, so the API server's streaming response, the CLI and tests drive it
// (the API server and the CLI poll every kPollInterval; tests call it by hand).
#pragma once

#include "core/executor/pod_logs.hpp"

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>

namespace trainer::core::executor {

inline constexpr std::chrono::milliseconds kPollInterval{100};

struct LogOptions {
    std::string container;              // empty: the pod's only container
    bool previous = false;              // the instance before the current one
    bool follow = false;                // keep reading until the instance ends
    std::optional<int64_t> tailLines;   // only the last N lines (0: none) of what exists now
    std::optional<int64_t> limitBytes;  // stop after this many bytes
    // With follow: a container that has not started yet (or a pod whose status says nothing
    // about it) is waited for instead of being a NotStarted error.
    bool waitForStart = false;
};

// The offset where the last `lines` lines of `path` start (lines end with '\n'; an unterminated
// last line counts). 0 when the file has fewer lines or is absent.
uint64_t tailOffset(const std::filesystem::path& path, int64_t lines);

struct LogChunk {
    std::string data;
    bool done = false;  // nothing more will come
};

// One container's log. The pod and container are resolved when constructed: check error()
// before polling (a failed reader's poll() reports done at once).
class LogReader {
public:
    LogReader(const ClusterReader& cluster, std::filesystem::path stateDir, ObjectKey pod, LogOptions options);

    const LogError& error() const { return error_; }
    // The resolved instance (valid once started()).
    const ContainerLog& target() const { return log_; }
    bool started() const { return started_; }

    // The bytes not returned yet (at most 1 MiB per call). Without follow, done once the file
    // was read to its end (a large file takes several calls). With follow, done comes after the Pod says the instance
    // ended and the file was read to its end (status is checked before reading, so whatever
    // was written before the status is delivered).
    LogChunk poll();

private:
    bool start(const json::object& pod);
    std::string readMore(bool& atEnd);

    const ClusterReader& cluster_;
    std::filesystem::path stateDir_;
    ObjectKey pod_;
    LogOptions options_;
    LogError error_;
    ContainerLog log_;
    bool started_ = false;
    bool done_ = false;
    uint64_t offset_ = 0;
    int64_t sent_ = 0;
};

}  // namespace trainer::core::executor
