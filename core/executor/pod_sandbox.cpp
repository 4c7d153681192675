#include "core/executor/pod_sandbox.hpp"

#include <filesystem>

namespace trainer::core::executor {

namespace fs = std::filesystem;

namespace {

std::string stringAt(const json::object& o, std::string_view a, std::string_view b) {
    auto* x = o.if_contains(a);
    auto* y = x && x->is_object() ? x->get_object().if_contains(b) : nullptr;
    return y && y->is_string() ? std::string(y->get_string()) : std::string();
}

}  // namespace

std::string podHostname(const json::object& pod) {
    std::string h = stringAt(pod, "spec", "hostname");
    if (h.empty()) h = stringAt(pod, "metadata", "name");
    if (h.size() > 63) h.resize(63);
    while (!h.empty() && (h.back() == '-' || h.back() == '.')) h.pop_back();
    return h;
}

bool createSandbox(const KubeletContext& ctx, const json::object& pod, PodSandbox& sb, std::string& error) {
    sb.ns = stringAt(pod, "metadata", "namespace");
    sb.name = stringAt(pod, "metadata", "name");
    sb.uid = stringAt(pod, "metadata", "uid");
    sb.hostname = podHostname(pod);
    sb.subdomain = stringAt(pod, "spec", "subdomain");
    sb.runDir = ctx.stateDir / "run" / sb.uid;
    sb.hostsPath = (sb.runDir / "hosts").string();
    sb.workDir = (sb.runDir / "work").string();
    std::error_code ec;
    fs::create_directories(sb.runDir / "work", ec);
    if (!ec) fs::create_directories(sb.runDir / "tmp", ec);
    if (!ec) fs::permissions(sb.runDir / "tmp", fs::perms::all | fs::perms::sticky_bit, ec);
    if (!ec) fs::permissions(sb.runDir, fs::perms::owner_all, ec);
    if (ec) {
        error = "create " + sb.runDir.string() + ": " + ec.message();
        return false;
    }
    if (!sb.endpoint) {
        sb.endpoint = ctx.network.attach(error);
        if (!sb.endpoint) return false;
    }
    ctx.dns.add(sb.uid, {sb.ns, sb.hostname, sb.subdomain, sb.endpoint->ip, sb.hostsPath});
    return true;
}

std::optional<StartProblem> refreshVolumes(const KubeletContext& ctx, const json::object& pod, PodSandbox& sb) {
    sb.volumes = materializeVolumes(pod, ctx.store, sb.runDir, {}, ctx.tokens);
    return sb.volumes.problem;
}

void destroySandbox(const KubeletContext& ctx, PodSandbox& sb) {
    ctx.dns.remove(sb.uid);
    if (ctx.tokens) ctx.tokens->forget(sb.uid);
    if (sb.endpoint) ctx.network.detach(*sb.endpoint);
    sb.endpoint.reset();
    std::error_code ec;
    if (!sb.runDir.empty()) fs::remove_all(sb.runDir, ec);
}

}  // namespace trainer::core::executor
