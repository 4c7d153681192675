// A small rtnetlink client (rtnetlink(7)): the link, address and route requests the pod network
// (pod_network.hpp) makes, each acknowledged by the kernel, in the network namespace the socket
// was opened in. What iproute2's `ip` did for it in two processes per pod (~1 ms apiece), in a
// few system calls. Every error names the request and the kernel's errno text.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace trainer::core::executor {

class Rtnetlink {
public:
    // A socket in the calling thread's network namespace; nullopt and `error` when it cannot.
    static std::optional<Rtnetlink> open(std::string& error);
    ~Rtnetlink();
    Rtnetlink(Rtnetlink&& other) noexcept;
    Rtnetlink& operator=(Rtnetlink&& other) noexcept;
    Rtnetlink(const Rtnetlink&) = delete;
    Rtnetlink& operator=(const Rtnetlink&) = delete;

    // Each returns "" on success, else what failed (e.g. "add veth trn0v5: File exists").
    // The index of link `name` in this namespace (0 and `error` when there is none).
    int linkIndex(const std::string& name, std::string& error);
    std::string addBridge(const std::string& name);
    // A veth pair: `name` here, `peer` in the namespace `peerNetnsFd` refers to.
    std::string addVeth(const std::string& name, const std::string& peer, int peerNetnsFd);
    // Sets link `name` up, and makes it a port of the link `masterIndex` when not 0.
    std::string setUp(const std::string& name, int masterIndex = 0);
    std::string deleteLink(const std::string& name);
    // An IPv4 address "a.b.c.d" with prefix length `prefix` on link `name`.
    std::string addAddress(const std::string& name, const std::string& address, int prefix);
    // The default IPv4 route through `gateway`.
    std::string addDefaultRoute(const std::string& gateway);

private:
    explicit Rtnetlink(int fd) : fd_(fd) {}
    struct Request;
    // Sends `r` and waits for its acknowledgement; fills `reply` with the first answer's body
    // when given. "" on success, else `what` and the errno text.
    std::string transact(Request& r, const std::string& what, std::string* reply = nullptr);

    int fd_ = -1;
    uint32_t seq_ = 0;
};

}  // namespace trainer::core::executor
