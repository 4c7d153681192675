#include "core/executor/resource_limits.hpp"

#include <trainer/quantity.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>

namespace trainer::core::executor {

namespace fs = std::filesystem;

namespace {

bool writeFile(const fs::path& p, const std::string& text) {
    std::ofstream f(p);
    f << text << std::flush;
    return static_cast<bool>(f);
}

std::string readFile(const fs::path& p) {
    std::ifstream f(p);
    std::stringstream ss;
    ss << f.rdbuf();
    return ss.str();
}

const boost::json::value* limit(const boost::json::object& container, std::string_view name) {
    auto* res = container.if_contains("resources");
    auto* lim = res && res->is_object() ? res->get_object().if_contains("limits") : nullptr;
    return lim && lim->is_object() ? lim->get_object().if_contains(name) : nullptr;
}

}  // namespace

ResourceLimits::ResourceLimits(log::Logger logger, std::string root) : logger_(std::move(logger)) {
    const std::string controllers = readFile(fs::path(root) / "cgroup.controllers");
    if (controllers.find("memory") == std::string::npos || controllers.find("cpu") == std::string::npos) {
        unavailable_ = "no cgroup v2 hierarchy with the memory and cpu controllers at " + root;
        return;
    }
    base_ = (fs::path(root) / "trainer-operator").string();
    std::error_code ec;
    fs::create_directories(base_, ec);
    if (ec || !writeFile(fs::path(root) / "cgroup.subtree_control", "+memory +cpu") ||
        !writeFile(fs::path(base_) / "cgroup.subtree_control", "+memory +cpu"))
        unavailable_ = "cannot delegate the memory and cpu controllers to " + base_;
}

std::string ResourceLimits::prepare(const std::string& id, const boost::json::object& container, std::string& error) {
    auto* mem = limit(container, "memory");
    auto* cpu = limit(container, "cpu");
    if (!mem && !cpu) return "";
    std::optional<sdk::Quantity> memQ, cpuQ;
    if (mem && !(memQ = sdk::Quantity::fromJson(*mem))) error = "resources.limits.memory: invalid quantity";
    if (cpu && !(cpuQ = sdk::Quantity::fromJson(*cpu))) error = "resources.limits.cpu: invalid quantity";
    if (!error.empty()) return "";
    if (!unavailable_.empty()) {
        if (!reported_.exchange(true))
            logger_.warn("Container resource limits are not enforced on this machine", {{"reason", unavailable_}});
        return "";
    }
    fs::path dir = fs::path(base_) / id;
    std::error_code ec;
    fs::create_directories(dir, ec);
    if (ec) {
        error = "create cgroup " + dir.string() + ": " + ec.message();
        return "";
    }
    if (memQ && !writeFile(dir / "memory.max", std::to_string(memQ->ceilToInt()))) error = "write memory.max";
    if (cpuQ) {
        int64_t quota = std::max<int64_t>(1000, cpuQ->milliValue() * 100);  // cores × 100000 µs
        if (!writeFile(dir / "cpu.max", std::to_string(quota) + " 100000")) error = "write cpu.max";
    }
    return error.empty() ? dir.string() : "";
}

void ResourceLimits::release(const std::string& dir) {
    if (dir.empty()) return;
    std::error_code ec;
    fs::remove(dir, ec);
}

}  // namespace trainer::core::executor
