// Name resolution between local pods: what a cluster's DNS answers for pods that have a hostname
// and a subdomain (`<hostname>.<subdomain>.<ns>.svc.cluster.local`, also reachable through the
// pod's search domains as `<hostname>.<subdomain>` and `<hostname>.<subdomain>.<ns>.svc`),
// written as each pod's /etc/hosts with the kubelet's own entries on top. Every pod with an
// address is listed, ready or not (as with publishNotReadyAddresses). Names the node serves
// (setNodeNames) are listed in every pod's file.
#pragma once

#include <map>
#include <mutex>
#include <string>
#include <vector>

namespace trainer::core::executor {

struct DnsEntry {
    std::string ns;
    std::string hostname;   // spec.hostname, else the pod name
    std::string subdomain;  // spec.subdomain, may be empty
    std::string ip;
    std::string hostsPath;  // the pod's hosts file, rewritten in place when names change
};

class ClusterDns {
public:
    // Maps `names` to `ip` (the node's address on the pod network) in every hosts file written
    // from now on. Set before the first pod is added.
    void setNodeNames(std::string ip, std::vector<std::string> names);
    // Adds or replaces the pod `uid` and rewrites the hosts files of its namespace.
    void add(const std::string& uid, DnsEntry entry);
    // Removes it and rewrites the hosts files of its namespace.
    void remove(const std::string& uid);
    // The hosts file content for pod `uid` ("" when unknown).
    std::string hostsFor(const std::string& uid) const;

private:
    std::string render(const DnsEntry& self) const;
    void rewrite(const std::string& ns) const;

    mutable std::mutex mu_;
    std::map<std::string, DnsEntry> pods_;  // by uid
    std::string nodeIp_;
    std::vector<std::string> nodeNames_;
};

// The kubelet's hosts file lines for one pod (localhost entries and its own name).
std::string kubeletHostsHeader(const DnsEntry& self);

}  // namespace trainer::core::executor
