// The local pod network: one Linux bridge per operator process, one network namespace per pod
// joined to it by a veth pair, one IP per pod. Pods reach each other by IP across TrainJobs, like
// a cluster's flat pod network, and two pods may listen on the same port.
//
// Several operators on one machine (tests run in parallel) each claim a slot k (a lock file under
// /run/trainer-operator held for the process's life): bridge `trn<k>`, subnet 10.(200+k).0.0/16,
// namespaces `/run/netns/trn<k>-<i>`. Claiming a slot first removes what a killed predecessor
// left in it. Needs CAP_NET_ADMIN and CAP_SYS_ADMIN (root). The work is done over rtnetlink
// (rtnetlink.hpp) with namespaces kept as iproute2 keeps them (named_netns.hpp), so `ip netns`
// and `ip link` show and can clean up everything.
#pragma once

#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>

namespace trainer::core::executor {

struct PodEndpoint {
    std::string netns;  // /run/netns/trn<k>-<i>
    std::string ip;
    int index = 0;
};

class PodNetwork {
public:
    static constexpr int kSlots = 50;
    // Claims a slot and creates its bridge; null and `error` when it cannot.
    static std::unique_ptr<PodNetwork> open(std::string& error);
    ~PodNetwork();
    PodNetwork(const PodNetwork&) = delete;
    PodNetwork& operator=(const PodNetwork&) = delete;

    // A new namespace with its address, or nullopt and `error`.
    std::optional<PodEndpoint> attach(std::string& error);
    // Removes the namespace (and with it the veth pair) and frees the address.
    void detach(const PodEndpoint& endpoint);
    // The bridge's address: the pods' gateway and the node's address (status.hostIP).
    std::string hostIp() const;
    int slot() const { return slot_; }

private:
    PodNetwork(int slot, int lockFd) : slot_(slot), lockFd_(lockFd) {}
    std::string addressOf(int index) const;
    std::string bridge() const;
    void removeLeftovers() const;
    std::string createBridge();
    std::string plug(const std::string& name, int index) const;

    int slot_;
    int lockFd_;
    std::mutex mu_;
    std::set<int> used_;
    int next_ = 2;
    int bridgeIndex_ = 0;
};

}  // namespace trainer::core::executor
