#include "core/executor/rtnetlink.hpp"

#include <arpa/inet.h>
#include <linux/if.h>
#include <linux/if_link.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <linux/veth.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <vector>

namespace trainer::core::executor {

// One request: a netlink header, the message's fixed part, then attributes (nested ones closed
// by end()). Too many attributes for the buffer mark it overflowed; transact() refuses it.
struct Rtnetlink::Request {
    alignas(NLMSG_ALIGNTO) char buf[1024] = {};
    bool overflowed = false;

    Request(uint16_t type, uint16_t flags, const void* body, size_t len) {
        header()->nlmsg_len = NLMSG_LENGTH(len);
        header()->nlmsg_type = type;
        header()->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK | flags;
        std::memcpy(NLMSG_DATA(header()), body, len);
    }
    nlmsghdr* header() { return reinterpret_cast<nlmsghdr*>(buf); }

    rtattr* put(uint16_t type, const void* data, size_t len) {
        const size_t at = NLMSG_ALIGN(header()->nlmsg_len);
        if (at + RTA_SPACE(len) > sizeof buf) {
            overflowed = true;
            return nullptr;
        }
        auto* a = reinterpret_cast<rtattr*>(buf + at);
        a->rta_type = type;
        a->rta_len = static_cast<unsigned short>(RTA_LENGTH(len));
        if (len) std::memcpy(RTA_DATA(a), data, len);
        header()->nlmsg_len = static_cast<uint32_t>(at + RTA_ALIGN(a->rta_len));
        return a;
    }
    void putString(uint16_t type, const std::string& s) { put(type, s.c_str(), s.size() + 1); }
    void putU32(uint16_t type, uint32_t v) { put(type, &v, sizeof v); }
    // Raw bytes inside the current nest (a nested message's fixed part, as VETH_INFO_PEER has).
    void putRaw(const void* data, size_t len) {
        const size_t at = NLMSG_ALIGN(header()->nlmsg_len);
        if (at + NLMSG_ALIGN(len) > sizeof buf) {
            overflowed = true;
            return;
        }
        std::memcpy(buf + at, data, len);
        header()->nlmsg_len = static_cast<uint32_t>(at + NLMSG_ALIGN(len));
    }
    rtattr* begin(uint16_t type) { return put(type, nullptr, 0); }
    void end(rtattr* nest) {
        if (nest) nest->rta_len = static_cast<unsigned short>(buf + header()->nlmsg_len - reinterpret_cast<char*>(nest));
    }
};

namespace {

std::string errnoText(int e) { return std::strerror(e); }

// The kernel's own words on a refused request (NETLINK_EXT_ACK's NLMSGERR_ATTR_MSG), or "".
std::string kernelMessage(const nlmsghdr* h) {
    if (!(h->nlmsg_flags & NLM_F_ACK_TLVS)) return "";
    const auto* e = static_cast<const nlmsgerr*>(NLMSG_DATA(h));
    // The attributes follow the error and, unless capped, the whole request it echoes.
    size_t at = NLMSG_LENGTH(sizeof(nlmsgerr));
    if (!(h->nlmsg_flags & NLM_F_CAPPED)) at += NLMSG_ALIGN(e->msg.nlmsg_len) - NLMSG_HDRLEN;
    const char* base = reinterpret_cast<const char*>(h);
    for (size_t left = h->nlmsg_len > at ? h->nlmsg_len - at : 0; left >= sizeof(nlattr);) {
        const auto* a = reinterpret_cast<const nlattr*>(base + at);
        if (a->nla_len < sizeof(nlattr) || a->nla_len > left) break;
        if ((a->nla_type & NLA_TYPE_MASK) == NLMSGERR_ATTR_MSG)
            return std::string(reinterpret_cast<const char*>(a) + NLA_HDRLEN, ::strnlen(reinterpret_cast<const char*>(a) + NLA_HDRLEN, a->nla_len - NLA_HDRLEN));
        const size_t step = NLA_ALIGN(a->nla_len);
        if (step >= left) break;
        at += step;
        left -= step;
    }
    return "";
}

ifinfomsg linkMessage(int index = 0, unsigned flags = 0, unsigned change = 0) {
    ifinfomsg m{};
    m.ifi_family = AF_UNSPEC;
    m.ifi_index = index;
    m.ifi_flags = flags;
    m.ifi_change = change;
    return m;
}

}  // namespace

std::optional<Rtnetlink> Rtnetlink::open(std::string& error) {
    int fd = ::socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
    if (fd < 0) {
        error = "open a netlink socket: " + errnoText(errno);
        return std::nullopt;
    }
    sockaddr_nl local{};
    local.nl_family = AF_NETLINK;
    int one = 1;
    ::setsockopt(fd, SOL_NETLINK, NETLINK_EXT_ACK, &one, sizeof one);
    // The kernel answers at once; a pod's start never waits on a socket for good.
    timeval bound{10, 0};
    ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &bound, sizeof bound);
    if (::bind(fd, reinterpret_cast<sockaddr*>(&local), sizeof local) != 0) {
        error = "bind a netlink socket: " + errnoText(errno);
        ::close(fd);
        return std::nullopt;
    }
    return Rtnetlink(fd);
}

Rtnetlink::~Rtnetlink() {
    if (fd_ >= 0) ::close(fd_);
}

Rtnetlink::Rtnetlink(Rtnetlink&& other) noexcept : fd_(other.fd_), seq_(other.seq_) { other.fd_ = -1; }

Rtnetlink& Rtnetlink::operator=(Rtnetlink&& other) noexcept {
    if (this != &other) {
        if (fd_ >= 0) ::close(fd_);
        fd_ = other.fd_;
        seq_ = other.seq_;
        other.fd_ = -1;
    }
    return *this;
}

std::string Rtnetlink::transact(Request& r, const std::string& what, std::string* reply) {
    if (r.overflowed) return what + ": the request does not fit in one message";
    const uint32_t seq = ++seq_;
    r.header()->nlmsg_seq = seq;
    sockaddr_nl kernel{};
    kernel.nl_family = AF_NETLINK;
    if (::sendto(fd_, r.buf, r.header()->nlmsg_len, 0, reinterpret_cast<sockaddr*>(&kernel), sizeof kernel) < 0)
        return what + ": send: " + errnoText(errno);
    std::vector<char> in(32768);
    for (;;) {
        ssize_t n = ::recv(fd_, in.data(), in.size(), 0);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return what + ": no answer from the kernel within 10 s";
        if (n < 0) return what + ": receive: " + errnoText(errno);
        auto len = static_cast<unsigned>(n);
        for (auto* h = reinterpret_cast<nlmsghdr*>(in.data()); NLMSG_OK(h, len); h = NLMSG_NEXT(h, len)) {
            if (h->nlmsg_seq != seq) continue;  // an answer to an earlier request that gave up
            if (h->nlmsg_type == NLMSG_ERROR) {
                if (h->nlmsg_len < NLMSG_LENGTH(sizeof(nlmsgerr))) return what + ": a truncated acknowledgement";
                int err = -static_cast<nlmsgerr*>(NLMSG_DATA(h))->error;
                if (err == 0) return "";
                const std::string detail = kernelMessage(h);
                return what + ": " + errnoText(err) + (detail.empty() ? "" : " (" + detail + ")");
            }
            if (reply && reply->empty())
                reply->assign(static_cast<const char*>(NLMSG_DATA(h)), h->nlmsg_len - NLMSG_LENGTH(0));
        }
    }
}

int Rtnetlink::linkIndex(const std::string& name, std::string& error) {
    auto m = linkMessage();
    Request r(RTM_GETLINK, 0, &m, sizeof m);
    r.putString(IFLA_IFNAME, name);
    std::string body;
    error = transact(r, "find link " + name, &body);
    if (!error.empty()) return 0;
    if (body.size() < sizeof(ifinfomsg)) {
        error = "find link " + name + ": no answer";
        return 0;
    }
    ifinfomsg found{};
    std::memcpy(&found, body.data(), sizeof found);
    return found.ifi_index;
}

std::string Rtnetlink::addBridge(const std::string& name) {
    auto m = linkMessage();
    Request r(RTM_NEWLINK, NLM_F_CREATE | NLM_F_EXCL, &m, sizeof m);
    r.putString(IFLA_IFNAME, name);
    auto* info = r.begin(IFLA_LINKINFO);
    r.putString(IFLA_INFO_KIND, "bridge");
    r.end(info);
    return transact(r, "add bridge " + name);
}

std::string Rtnetlink::addVeth(const std::string& name, const std::string& peer, int peerNetnsFd) {
    auto m = linkMessage();
    Request r(RTM_NEWLINK, NLM_F_CREATE | NLM_F_EXCL, &m, sizeof m);
    r.putString(IFLA_IFNAME, name);
    auto* info = r.begin(IFLA_LINKINFO);
    r.putString(IFLA_INFO_KIND, "veth");
    auto* data = r.begin(IFLA_INFO_DATA);
    auto* peerInfo = r.begin(VETH_INFO_PEER);
    auto pm = linkMessage();
    r.putRaw(&pm, sizeof pm);
    r.putString(IFLA_IFNAME, peer);
    r.putU32(IFLA_NET_NS_FD, static_cast<uint32_t>(peerNetnsFd));
    r.end(peerInfo);
    r.end(data);
    r.end(info);
    return transact(r, "add veth " + name + " (peer " + peer + ")");
}

std::string Rtnetlink::setUp(const std::string& name, int masterIndex) {
    auto m = linkMessage(0, IFF_UP, IFF_UP);
    Request r(RTM_NEWLINK, 0, &m, sizeof m);
    r.putString(IFLA_IFNAME, name);
    if (masterIndex) r.putU32(IFLA_MASTER, static_cast<uint32_t>(masterIndex));
    return transact(r, "set link " + name + " up");
}

std::string Rtnetlink::deleteLink(const std::string& name) {
    auto m = linkMessage();
    Request r(RTM_DELLINK, 0, &m, sizeof m);
    r.putString(IFLA_IFNAME, name);
    return transact(r, "delete link " + name);
}

std::string Rtnetlink::addAddress(const std::string& name, const std::string& address, int prefix) {
    in_addr a{};
    if (::inet_pton(AF_INET, address.c_str(), &a) != 1) return "add address " + address + ": not an IPv4 address";
    std::string error;
    const int index = linkIndex(name, error);
    if (!index) return error;
    ifaddrmsg m{};
    m.ifa_family = AF_INET;
    m.ifa_prefixlen = static_cast<unsigned char>(prefix);
    m.ifa_scope = RT_SCOPE_UNIVERSE;
    m.ifa_index = static_cast<unsigned>(index);
    Request r(RTM_NEWADDR, NLM_F_CREATE | NLM_F_EXCL, &m, sizeof m);
    r.put(IFA_LOCAL, &a, sizeof a);
    r.put(IFA_ADDRESS, &a, sizeof a);
    return transact(r, "add address " + address + "/" + std::to_string(prefix) + " to " + name);
}

std::string Rtnetlink::addDefaultRoute(const std::string& gateway) {
    in_addr g{};
    if (::inet_pton(AF_INET, gateway.c_str(), &g) != 1) return "add default route via " + gateway + ": not an IPv4 address";
    rtmsg m{};
    m.rtm_family = AF_INET;
    m.rtm_table = RT_TABLE_MAIN;
    m.rtm_protocol = RTPROT_BOOT;
    m.rtm_scope = RT_SCOPE_UNIVERSE;
    m.rtm_type = RTN_UNICAST;
    Request r(RTM_NEWROUTE, NLM_F_CREATE | NLM_F_EXCL, &m, sizeof m);
    r.put(RTA_GATEWAY, &g, sizeof g);
    return transact(r, "add default route via " + gateway);
}

}  // namespace trainer::core::executor
