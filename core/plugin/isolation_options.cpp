// Isolation mode and limits per plugin (isolation_options.hpp).
#include "core/plugin/isolation_options.hpp"

namespace trainer::core {

std::string_view toString(Isolation i) { return i == Isolation::InProcess ? "inProcess" : "process"; }

std::optional<Isolation> parseIsolation(std::string_view text) {
    if (text == "inProcess") return Isolation::InProcess;
    if (text == "process") return Isolation::Process;
    return std::nullopt;
}

Isolation IsolationOptions::modeFor(const std::string& name, bool shipped) const {
    if (auto it = perPlugin.find(name); it != perPlugin.end() && it->second.isolation) return *it->second.isolation;
    if (mode) return *mode;
    return shipped ? Isolation::InProcess : Isolation::Process;
}

bool IsolationOptions::processPossibleForShipped() const {
    if (mode == Isolation::Process) return true;
    for (auto const& [name, o] : perPlugin)
        if (o.isolation == Isolation::Process) return true;
    return false;
}

CallLimits IsolationOptions::limitsFor(const std::string& name) const {
    CallLimits l = limits;
    auto it = perPlugin.find(name);
    if (it == perPlugin.end()) return l;
    if (it->second.callTimeout) l.callTimeout = *it->second.callTimeout;
    if (it->second.memoryBytes) l.memoryBytes = *it->second.memoryBytes;
    if (it->second.outputBytes) l.outputBytes = *it->second.outputBytes;
    return l;
}

}  // namespace trainer::core
