#include "core/executor/named_netns.hpp"

#include <fcntl.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <mutex>
#include <thread>

namespace trainer::core::executor {

namespace {

std::string errnoText(int e) { return std::strerror(e); }

// /run/netns as iproute2 prepares it: a shared mount point (bound onto itself first when it is
// not a mount point), so a namespace's bind mount propagates to mount namespaces made later.
std::string prepareNetnsDir() {
    static std::mutex mu;
    static bool ready = false;
    std::lock_guard lock(mu);
    if (ready) return "";
    if (::mkdir(kNetnsDir, 0755) != 0 && errno != EEXIST) return std::string("create ") + kNetnsDir + ": " + errnoText(errno);
    for (bool bound = false;;) {
        if (::mount("", kNetnsDir, "none", MS_SHARED | MS_REC, nullptr) == 0) break;
        if (errno != EINVAL || bound) return std::string("make ") + kNetnsDir + " a shared mount: " + errnoText(errno);
        if (::mount(kNetnsDir, kNetnsDir, "none", MS_BIND | MS_REC, nullptr) != 0)
            return std::string("bind ") + kNetnsDir + " onto itself: " + errnoText(errno);
        bound = true;
    }
    ready = true;
    return "";
}

// On a thread of its own (a network namespace is a thread's): unshares one, binds it to `path`,
// opens it and a netlink socket inside it. The thread ends; what it opened stays in the new one.
std::string enterAndBind(const std::string& path, NamedNetns& out) {
    std::string error;
    std::thread([&] {
        if (::unshare(CLONE_NEWNET) != 0) {
            error = "unshare a network namespace: " + errnoText(errno);
            return;
        }
        if (::mount("/proc/thread-self/ns/net", path.c_str(), "none", MS_BIND, nullptr) != 0) {
            error = "bind the namespace to " + path + ": " + errnoText(errno);
            return;
        }
        out.fd = ::open("/proc/thread-self/ns/net", O_RDONLY | O_CLOEXEC);
        if (out.fd < 0) {
            error = "open the namespace: " + errnoText(errno);
            return;
        }
        std::string e;
        out.inside = Rtnetlink::open(e);
        if (!out.inside) error = e;
    }).join();
    return error;
}

}  // namespace

std::optional<NamedNetns> addNamedNetns(const std::string& name, std::string& error) {
    if (name.empty() || name.find('/') != std::string::npos || name == "." || name == "..") {
        error = "\"" + name + "\" is not a namespace name";
        return std::nullopt;
    }
    if (error = prepareNetnsDir(); !error.empty()) return std::nullopt;
    NamedNetns ns{std::string(kNetnsDir) + "/" + name, -1, std::nullopt};
    int fd = ::open(ns.path.c_str(), O_RDONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0);
    if (fd < 0) {
        error = "create " + ns.path + ": " + errnoText(errno);
        return std::nullopt;
    }
    ::close(fd);
    if (error = enterAndBind(ns.path, ns); !error.empty()) {
        if (ns.fd >= 0) ::close(ns.fd);
        deleteNamedNetns(name);
        return std::nullopt;
    }
    return ns;
}

std::string deleteNamedNetns(const std::string& name) {
    const std::string path = std::string(kNetnsDir) + "/" + name;
    if (::umount2(path.c_str(), MNT_DETACH) != 0 && errno != EINVAL && errno != ENOENT)
        return "unmount " + path + ": " + errnoText(errno);
    if (::unlink(path.c_str()) != 0 && errno != ENOENT) return "remove " + path + ": " + errnoText(errno);
    return "";
}

}  // namespace trainer::core::executor
