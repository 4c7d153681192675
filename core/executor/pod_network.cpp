#include "core/executor/pod_network.hpp"

#include "core/executor/named_netns.hpp"
#include "core/executor/rtnetlink.hpp"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <sys/file.h>
#include <unistd.h>

namespace trainer::core::executor {

namespace fs = std::filesystem;

namespace {

constexpr const char* kLockDir = "/run/trainer-operator";
constexpr int kMaxIndex = 65534;

}  // namespace

std::unique_ptr<PodNetwork> PodNetwork::open(std::string& error) {
    std::error_code ec;
    fs::create_directories(kLockDir, ec);
    if (ec) {
        error = std::string("create ") + kLockDir + ": " + ec.message();
        return nullptr;
    }
    for (int k = 0; k < kSlots; ++k) {
        std::string path = std::string(kLockDir) + "/slot-" + std::to_string(k) + ".lock";
        int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
        if (fd < 0) {
            error = "open " + path + ": " + std::strerror(errno);
            return nullptr;
        }
        if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
            ::close(fd);
            continue;
        }
        std::unique_ptr<PodNetwork> net(new PodNetwork(k, fd));
        net->removeLeftovers();
        if (error = net->createBridge(); !error.empty()) {
            error = "create the pod network bridge: " + error;
            return nullptr;
        }
        return net;
    }
    error = "every pod network slot (" + std::to_string(kSlots) + ") is held by another operator on this machine";
    return nullptr;
}

PodNetwork::~PodNetwork() {
    removeLeftovers();
    ::close(lockFd_);
}

std::string PodNetwork::bridge() const { return "trn" + std::to_string(slot_); }

std::string PodNetwork::hostIp() const { return addressOf(1); }

std::string PodNetwork::addressOf(int index) const {
    return "10." + std::to_string(200 + slot_) + "." + std::to_string(index >> 8) + "." + std::to_string(index & 255);
}

std::string PodNetwork::createBridge() {
    std::string error;
    auto nl = Rtnetlink::open(error);
    if (!nl) return error;
    if (error = nl->addBridge(bridge()); !error.empty()) return error;
    if (error = nl->addAddress(bridge(), hostIp(), 16); !error.empty()) return error;
    if (error = nl->setUp(bridge()); !error.empty()) return error;
    bridgeIndex_ = nl->linkIndex(bridge(), error);
    return error;
}

void PodNetwork::removeLeftovers() const {
    const std::string prefix = bridge() + "-";
    std::error_code ec;
    for (auto const& e : fs::directory_iterator(kNetnsDir, ec)) {
        auto name = e.path().filename().string();
        if (name.rfind(prefix, 0) == 0) deleteNamedNetns(name);
    }
    std::string error;
    if (auto nl = Rtnetlink::open(error)) nl->deleteLink(bridge());  // none there is the usual case
}

std::optional<PodEndpoint> PodNetwork::attach(std::string& error) {
    int index = 0;
    {
        std::lock_guard lock(mu_);
        for (int tries = 0; tries < kMaxIndex && !index; ++tries) {
            int candidate = next_;
            next_ = next_ >= kMaxIndex ? 2 : next_ + 1;
            if (!used_.count(candidate) && (candidate & 255) != 0 && (candidate & 255) != 255) index = candidate;
        }
        if (!index) {
            error = "the pod network " + addressOf(0) + "/16 has no free address";
            return std::nullopt;
        }
        used_.insert(index);
    }
    const std::string name = bridge() + "-" + std::to_string(index);
    PodEndpoint endpoint{std::string(kNetnsDir) + "/" + name, addressOf(index), index};
    if (auto err = plug(name, index); !err.empty()) {
        error = "set up the pod's network: " + err;
        detach(endpoint);
        return std::nullopt;
    }
    return endpoint;
}

// The namespace `name`, a veth pair from the bridge into it (eth0 there), the pod's address and
// its default route through the bridge, as `ip netns add`, `ip link add ... type veth` and friends
// would, over netlink sockets on each side.
std::string PodNetwork::plug(const std::string& name, int index) const {
    std::string error;
    auto host = Rtnetlink::open(error);
    if (!host) return error;
    auto ns = addNamedNetns(name, error);
    if (!ns) return error;
    const std::string veth = bridge() + "v" + std::to_string(index);
    error = host->addVeth(veth, "eth0", ns->fd);
    ::close(ns->fd);
    if (error.empty()) error = host->setUp(veth, bridgeIndex_);
    if (error.empty()) error = ns->inside->addAddress("eth0", addressOf(index), 16);
    if (error.empty()) error = ns->inside->setUp("eth0");
    if (error.empty()) error = ns->inside->setUp("lo");
    if (error.empty()) error = ns->inside->addDefaultRoute(hostIp());
    return error;
}

void PodNetwork::detach(const PodEndpoint& endpoint) {
    deleteNamedNetns(fs::path(endpoint.netns).filename().string());  // the veth pair ends with it
    std::lock_guard lock(mu_);
    used_.erase(endpoint.index);
}

}  // namespace trainer::core::executor
