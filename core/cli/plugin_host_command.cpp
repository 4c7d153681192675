// `trainer-operator plugin-host`: the child a process-isolated plugin runs in
// (core/plugin/isolation_child.hpp). Started by the operator with the socket and the plugin
// file already open; not meant to be run by hand.
#include "core/cli/cli.hpp"
#include "core/plugin/isolation_child.hpp"

#include <charconv>

namespace trainer::core::cli {

namespace {

template <class N>
bool number(const Args& args, const std::string& flag, N& out, Io& io) {
    const std::string v = args.get(flag);
    auto [p, ec] = std::from_chars(v.data(), v.data() + v.size(), out);
    if (ec == std::errc() && p == v.data() + v.size()) return true;
    io.err << "error: --" << flag << ": \"" << v << "\" is not a number\n";
    return false;
}

}  // namespace

int cmdPluginHost(const Args& args, Io& io) {
    isolation::ChildArgs a;
    if (!number(args, "socket-fd", a.socketFd, io) || !number(args, "file-fd", a.fileFd, io) ||
        !number(args, "memory-limit", a.memoryBytes, io) || !number(args, "parent-pid", a.parentPid, io))
        return 1;
    a.path = args.get("path");
    return isolation::runPluginHost(a);
}

}  // namespace trainer::core::cli
