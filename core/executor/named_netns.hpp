// Named network namespaces as iproute2 keeps them (ip-netns(8)): the file /run/netns/NAME
// bind-mounted from the namespace, /run/netns a shared mount point, so `ip netns list` and
// `ip netns exec` see the pods' namespaces and the container init joins one by its file.
#pragma once

#include "core/executor/rtnetlink.hpp"

#include <optional>
#include <string>

namespace trainer::core::executor {

struct NamedNetns {
    std::string path;    // /run/netns/NAME
    int fd = -1;         // the namespace, open (close-on-exec); the caller closes it
    std::optional<Rtnetlink> inside;  // a netlink socket in the namespace (always set when returned)
};

// Creates the namespace NAME (like `ip netns add NAME`); nullopt and `error` when it cannot
// (nothing is left behind then). The calling thread stays in its namespace.
std::optional<NamedNetns> addNamedNetns(const std::string& name, std::string& error);

// Removes /run/netns/NAME (like `ip netns del NAME`): the namespace ends with its last user.
// "" when done or when there was none, else what failed.
std::string deleteNamedNetns(const std::string& name);

inline constexpr const char* kNetnsDir = "/run/netns";

}  // namespace trainer::core::executor
