// Memory and CPU limits of local containers, enforced with cgroup v2 where the machine has it
// (a unified hierarchy at /sys/fs/cgroup with the memory and cpu controllers): one cgroup per
// container under /sys/fs/cgroup/trainer-operator/, memory.max = limits.memory, cpu.max =
// limits.cpu × 100 ms per 100 ms. Elsewhere (cgroup v1, hybrid mounts, no permission) limits
// are not enforced and that is reported once, with the reason.
#pragma once

#include "core/log/log.hpp"

#include <boost/json.hpp>

#include <atomic>
#include <string>

namespace trainer::core::executor {

class ResourceLimits {
public:
    explicit ResourceLimits(log::Logger logger, std::string root = "/sys/fs/cgroup");
    // Why limits cannot be enforced here, or "" when they can.
    const std::string& unavailable() const { return unavailable_; }
    // The cgroup directory the container joins ("" when it has no limits, or they cannot be
    // enforced); `error` when its limits are invalid or the cgroup cannot be made.
    std::string prepare(const std::string& id, const boost::json::object& container, std::string& error);
    // Removes the container's cgroup (after its processes are gone).
    void release(const std::string& dir);

private:
    log::Logger logger_;
    std::string base_;
    std::string unavailable_;
    std::atomic<bool> reported_{false};
};

}  // namespace trainer::core::executor
