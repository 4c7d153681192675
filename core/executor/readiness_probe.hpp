// A container's readinessProbe as the kubelet runs it: tcpSocket (connect to the pod IP),
// httpGet (a GET answered 200..399) and exec (the command inside the container's namespaces,
// exit 0), with initialDelaySeconds, periodSeconds, timeoutSeconds, successThreshold and
// failureThreshold. No probe: ready once running.
#pragma once

#include <boost/json.hpp>

#include <string>
#include <vector>

namespace trainer::core::executor {

struct ProbeSpec {
    enum class Kind { None, TcpSocket, HttpGet, Exec };
    Kind kind = Kind::None;
    int port = 0;
    std::string path = "/";
    std::vector<std::string> command;
    int initialDelaySeconds = 0, periodSeconds = 10, timeoutSeconds = 1, successThreshold = 1, failureThreshold = 3;
};

// The container's readinessProbe; a named port is looked up in its ports. `error` names the field
// path of what is wrong (the probe then counts as failing).
ProbeSpec readinessProbeOf(const boost::json::object& container, std::string& error);

// One probe run against a pod at `ip` whose container init has host pid `initPid`.
bool runProbe(const ProbeSpec& probe, const std::string& ip, int initPid);

}  // namespace trainer::core::executor
