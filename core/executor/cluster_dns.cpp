#include "core/executor/cluster_dns.hpp"

#include <fcntl.h>
#include <unistd.h>

namespace trainer::core::executor {

namespace {

std::string fqdn(const DnsEntry& e) { return e.hostname + "." + e.subdomain + "." + e.ns + ".svc.cluster.local"; }

// In place (O_TRUNC, same inode): the file is bind-mounted into running containers.
void writeInPlace(const std::string& path, const std::string& text) {
    int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) return;
    size_t off = 0;
    while (off < text.size()) {
        ssize_t n = ::write(fd, text.data() + off, text.size() - off);
        if (n <= 0) break;
        off += static_cast<size_t>(n);
    }
    ::close(fd);
}

}  // namespace

std::string kubeletHostsHeader(const DnsEntry& self) {
    std::string out =
        "# Kubernetes-managed hosts file (the trainer-operator local executor).\n"
        "127.0.0.1\tlocalhost\n::1\tlocalhost ip6-localhost ip6-loopback\n"
        "fe00::0\tip6-localnet\nfe00::0\tip6-mcastprefix\nfe00::1\tip6-allnodes\nfe00::2\tip6-allrouters\n";
    if (self.subdomain.empty()) out += self.ip + "\t" + self.hostname + "\n";
    else out += self.ip + "\t" + fqdn(self) + "\t" + self.hostname + "\n";
    return out;
}

std::string ClusterDns::render(const DnsEntry& self) const {
    std::string out = kubeletHostsHeader(self);
    std::string pods;
    for (auto const& [uid, e] : pods_) {
        if (e.ns != self.ns || e.subdomain.empty() || e.ip.empty()) continue;
        pods += e.ip + "\t" + fqdn(e) + "\t" + e.hostname + "." + e.subdomain + "." + e.ns + ".svc\t" + e.hostname + "." +
                e.subdomain + "\n";
    }
    if (!pods.empty()) out += "# pods of namespace " + self.ns + " (cluster DNS)\n" + pods;
    if (!nodeNames_.empty()) {
        out += "# services of the operator on this node\n" + nodeIp_;
        for (auto const& name : nodeNames_) out += "\t" + name;
        out += "\n";
    }
    return out;
}

void ClusterDns::setNodeNames(std::string ip, std::vector<std::string> names) {
    std::lock_guard lock(mu_);
    nodeIp_ = std::move(ip);
    nodeNames_ = std::move(names);
}

void ClusterDns::rewrite(const std::string& ns) const {
    for (auto const& [uid, e] : pods_)
        if (e.ns == ns && !e.hostsPath.empty()) writeInPlace(e.hostsPath, render(e));
}

void ClusterDns::add(const std::string& uid, DnsEntry entry) {
    std::lock_guard lock(mu_);
    std::string ns = entry.ns;
    pods_[uid] = std::move(entry);
    rewrite(ns);
}

void ClusterDns::remove(const std::string& uid) {
    std::lock_guard lock(mu_);
    auto it = pods_.find(uid);
    if (it == pods_.end()) return;
    std::string ns = it->second.ns;
    pods_.erase(it);
    rewrite(ns);
}

std::string ClusterDns::hostsFor(const std::string& uid) const {
    std::lock_guard lock(mu_);
    auto it = pods_.find(uid);
    return it == pods_.end() ? std::string() : render(it->second);
}

}  // namespace trainer::core::executor
