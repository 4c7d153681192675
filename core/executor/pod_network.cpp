#include "core/executor/pod_network.hpp"

#include "core/executor/command_runner.hpp"

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

std::string ipStep(const std::vector<std::string>& argv, std::string& error) {
    std::vector<std::string> full{"ip"};
    full.insert(full.end(), argv.begin(), argv.end());
    auto r = runCommand(full);
    if (r.ok()) return "";
    std::string cmd;
    for (auto const& a : full) cmd += (cmd.empty() ? "" : " ") + a;
    error = cmd + ": " + (r.output.empty() ? "exit " + std::to_string(r.exitCode) : r.output);
    return error;
}

// One `ip -batch -` process for several steps (in namespace `ns` when given), where a process
// each took ~1 ms apiece: iproute2 stops at the first failing line and names it.
std::string ipBatch(const std::vector<std::vector<std::string>>& steps, const std::string& ns, std::string& error) {
    std::vector<std::string> argv{"ip"};
    if (!ns.empty()) argv.insert(argv.end(), {"-n", ns});
    argv.insert(argv.end(), {"-batch", "-"});
    std::string input, shown;
    for (auto const& step : steps) {
        std::string line;
        for (auto const& a : step) line += (line.empty() ? "" : " ") + a;
        input += line + "\n";
        shown += (shown.empty() ? "" : "; ") + line;
    }
    auto r = runCommand(argv, input);
    if (r.ok()) return "";
    std::string cmd;
    for (auto const& a : argv) cmd += (cmd.empty() ? "" : " ") + a;
    error = cmd + " (" + shown + "): " + (r.output.empty() ? "exit " + std::to_string(r.exitCode) : r.output);
    return error;
}

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
        std::string err;
        if (!ipStep({"link", "add", net->bridge(), "type", "bridge"}, err).empty() ||
            !ipStep({"addr", "add", net->hostIp() + "/16", "dev", net->bridge()}, err).empty() ||
            !ipStep({"link", "set", net->bridge(), "up"}, err).empty()) {
            error = "create the pod network bridge: " + err;
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

void PodNetwork::removeLeftovers() const {
    const std::string prefix = bridge() + "-";
    std::error_code ec;
    for (auto const& e : fs::directory_iterator("/run/netns", ec)) {
        auto name = e.path().filename().string();
        if (name.rfind(prefix, 0) == 0) runCommand({"ip", "netns", "del", name});
    }
    runCommand({"ip", "link", "del", bridge()});
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
    const std::string ns = bridge() + "-" + std::to_string(index), veth = bridge() + "v" + std::to_string(index);
    std::string err;
    // Two processes: the host's side (the namespace, the veth pair, the bridge port), then the
    // pod's side inside its namespace (batch mode returns to the host's namespace after netns add).
    const std::vector<std::vector<std::string>> host = {
        {"netns", "add", ns},
        {"link", "add", veth, "type", "veth", "peer", "name", "eth0", "netns", ns},
        {"link", "set", veth, "master", bridge(), "up"},
    };
    const std::vector<std::vector<std::string>> pod = {
        {"addr", "add", addressOf(index) + "/16", "dev", "eth0"},
        {"link", "set", "eth0", "up"},
        {"link", "set", "lo", "up"},
        {"route", "add", "default", "via", hostIp()},
    };
    if (ipBatch(host, "", err).empty() && ipBatch(pod, ns, err).empty())
        return PodEndpoint{"/run/netns/" + ns, addressOf(index), index};
    error = "set up the pod's network: " + err;
    detach({"/run/netns/" + ns, addressOf(index), index});
    return std::nullopt;
}

void PodNetwork::detach(const PodEndpoint& endpoint) {
    runCommand({"ip", "netns", "del", fs::path(endpoint.netns).filename().string()});
    std::lock_guard lock(mu_);
    used_.erase(endpoint.index);
}

}  // namespace trainer::core::executor
