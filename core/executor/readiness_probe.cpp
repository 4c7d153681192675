#include "core/executor/readiness_probe.hpp"

#include "core/executor/command_runner.hpp"

#include <arpa/inet.h>
#include <cerrno>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

namespace trainer::core::executor {

namespace json = boost::json;

namespace {

int intField(const json::object& o, std::string_view key, int def) {
    auto* v = o.if_contains(key);
    return v && v->is_int64() ? static_cast<int>(v->get_int64()) : def;
}

// A port number, or a name looked up in the container's ports; 0 when neither.
int resolvePort(const json::value* port, const json::object& container) {
    if (!port) return 0;
    if (port->is_int64()) return static_cast<int>(port->get_int64());
    if (!port->is_string()) return 0;
    auto* ports = container.if_contains("ports");
    if (ports && ports->is_array())
        for (auto const& p : ports->get_array())
            if (p.is_object() && p.get_object().if_contains("name") && p.get_object().at("name") == port->get_string())
                return intField(p.get_object(), "containerPort", 0);
    return 0;
}

// A connected socket to ip:port within the timeout, else -1.
int connectWithin(const std::string& ip, int port, int timeoutSeconds) {
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(static_cast<uint16_t>(port));
    if (inet_pton(AF_INET, ip.c_str(), &addr.sin_addr) != 1) return -1;
    int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0) return -1;
    if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 && errno != EINPROGRESS) {
        ::close(fd);
        return -1;
    }
    pollfd p{fd, POLLOUT, 0};
    int err = 0;
    socklen_t len = sizeof err;
    if (::poll(&p, 1, timeoutSeconds * 1000) != 1 || ::getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) != 0 || err) {
        ::close(fd);
        return -1;
    }
    return fd;
}

bool probeHttp(const ProbeSpec& probe, const std::string& ip) {
    int fd = connectWithin(ip, probe.port, probe.timeoutSeconds);
    if (fd < 0) return false;
    std::string req = "GET " + probe.path + " HTTP/1.1\r\nHost: " + ip + ":" + std::to_string(probe.port) +
                      "\r\nUser-Agent: kube-probe/1.32\r\nConnection: close\r\n\r\n";
    (void)!::write(fd, req.data(), req.size());
    pollfd p{fd, POLLIN, 0};
    char buf[64] = {};
    ssize_t n = ::poll(&p, 1, probe.timeoutSeconds * 1000) == 1 ? ::read(fd, buf, sizeof buf - 1) : -1;
    ::close(fd);
    if (n < 12) return false;
    int code = std::atoi(buf + 9);
    return code >= 200 && code < 400;
}

}  // namespace

ProbeSpec readinessProbeOf(const json::object& container, std::string& error) {
    ProbeSpec p;
    auto* probe = container.if_contains("readinessProbe");
    if (!probe || !probe->is_object()) return p;
    auto const& o = probe->get_object();
    p.initialDelaySeconds = intField(o, "initialDelaySeconds", 0);
    p.periodSeconds = std::max(1, intField(o, "periodSeconds", 10));
    p.timeoutSeconds = std::max(1, intField(o, "timeoutSeconds", 1));
    p.successThreshold = std::max(1, intField(o, "successThreshold", 1));
    p.failureThreshold = std::max(1, intField(o, "failureThreshold", 3));
    if (auto* tcp = o.if_contains("tcpSocket"); tcp && tcp->is_object()) {
        p.kind = ProbeSpec::Kind::TcpSocket;
        p.port = resolvePort(tcp->get_object().if_contains("port"), container);
    } else if (auto* http = o.if_contains("httpGet"); http && http->is_object()) {
        p.kind = ProbeSpec::Kind::HttpGet;
        p.port = resolvePort(http->get_object().if_contains("port"), container);
        if (auto* path = http->get_object().if_contains("path"); path && path->is_string()) p.path = path->get_string();
    } else if (auto* ex = o.if_contains("exec"); ex && ex->is_object()) {
        p.kind = ProbeSpec::Kind::Exec;
        if (auto* cmd = ex->get_object().if_contains("command"); cmd && cmd->is_array())
            for (auto const& c : cmd->get_array())
                if (c.is_string()) p.command.emplace_back(c.get_string());
        if (p.command.empty()) error = "readinessProbe.exec.command: Required value";
        return p;
    } else {
        error = "readinessProbe: must specify a handler type";
        return p;
    }
    if (p.port <= 0 || p.port > 65535) error = "readinessProbe: port: Invalid value: must be a port number or a named container port";
    return p;
}

bool runProbe(const ProbeSpec& probe, const std::string& ip, int initPid) {
    switch (probe.kind) {
        case ProbeSpec::Kind::None: return true;
        case ProbeSpec::Kind::TcpSocket: {
            int fd = connectWithin(ip, probe.port, probe.timeoutSeconds);
            if (fd >= 0) ::close(fd);
            return fd >= 0;
        }
        case ProbeSpec::Kind::HttpGet: return probeHttp(probe, ip);
        case ProbeSpec::Kind::Exec: {
            std::vector<std::string> argv{"timeout", std::to_string(probe.timeoutSeconds), "nsenter", "-t", std::to_string(initPid), "-n", "-m", "-u", "-i", "-p", "--"};
            argv.insert(argv.end(), probe.command.begin(), probe.command.end());
            return runCommand(argv).ok();
        }
    }
    return false;
}

}  // namespace trainer::core::executor
