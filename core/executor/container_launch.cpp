#include "core/executor/container_launch.hpp"

#include "core/executor/env_resolver.hpp"
#include "core/executor/pod_logs.hpp"
#include "core/executor/pod_status.hpp"

#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <unistd.h>

namespace trainer::core::executor {

namespace fs = std::filesystem;

namespace {

std::string str(const json::object& o, std::string_view key) {
    auto* v = o.if_contains(key);
    return v && v->is_string() ? std::string(v->get_string()) : std::string();
}

// The runtime's defaults (PATH, HOME, HOSTNAME) under the container's own env, kubelet order kept.
std::vector<std::string> environment(const std::vector<EnvVar>& env, const std::string& hostname) {
    std::vector<std::string> out;
    std::set<std::string> named;
    for (auto const& e : env) named.insert(e.name);
    if (!named.count("PATH")) out.push_back("PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin");
    if (!named.count("HOSTNAME")) out.push_back("HOSTNAME=" + hostname);
    if (!named.count("HOME")) out.push_back("HOME=/root");
    for (auto const& e : env) out.push_back(e.name + "=" + e.value);
    return out;
}

// The spec holds the env (Secrets included): owner-only, created fresh.
bool writePrivate(const fs::path& path, const std::string& text) {
    ::unlink(path.c_str());
    int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0) return false;
    bool ok = ::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
    return ::close(fd) == 0 && ok;
}

}  // namespace

LaunchOutcome launchContainer(const KubeletContext& ctx, const json::object& pod, const json::object& container,
                              const PodSandbox& sb, int restartCount) {
    LaunchOutcome out;
    PodRuntimeFacts facts{sb.endpoint ? sb.endpoint->ip : "", ctx.network.hostIp(), ctx.nodeName, {}, 0, 0};
    auto env = resolveEnv(pod, container, ctx.store, facts);
    if (env.problem) return {std::nullopt, env.problem, true, "", ""};
    auto mounts = containerMounts(container, sb.volumes);
    if (mounts.problem) return {std::nullopt, mounts.problem, true, "", ""};
    auto cmd = resolveCommand(container, env.env);
    if (cmd.problem) return {std::nullopt, cmd.problem, false, "", ""};
    const std::string name = str(container, "name");
    std::string limitError;
    out.cgroup = ctx.limits.prepare(sb.uid + "-" + name, container, limitError);
    if (!limitError.empty()) return {std::nullopt, StartProblem{"StartError", limitError}, false, "", ""};

    ContainerSpec spec;
    spec.argv = cmd.argv;
    spec.env = environment(env.env, sb.hostname);
    spec.workingDir = str(container, "workingDir");
    spec.scratchDir = sb.workDir;
    spec.hostname = sb.hostname;
    spec.netns = sb.endpoint ? sb.endpoint->netns : "";
    spec.hostsFile = sb.hostsPath;
    // A private /tmp per pod, as an image's own /tmp would be (unless a volume is mounted there).
    spec.mounts.push_back({(sb.runDir / "tmp").string(), "/tmp", false});
    for (auto const& m : mounts.mounts) {
        if (m.target == "/tmp") spec.mounts.erase(spec.mounts.begin());
        spec.mounts.push_back({m.source, m.target, m.readOnly});
    }
    auto log = containerLogPath(ctx.stateDir, sb.ns, sb.name, sb.uid, name, restartCount);
    std::error_code ec;
    fs::create_directories(log.parent_path(), ec);
    spec.logFile = log.string();
    const std::string stem = (sb.runDir / (name + "-" + std::to_string(restartCount))).string();
    spec.resultFile = out.resultFile = stem + ".result";
    spec.cgroup = out.cgroup;
    fs::remove(spec.resultFile, ec);
    if (!writePrivate(stem + ".json", encodeSpec(spec)))
        return {std::nullopt, StartProblem{"StartError", "write container spec " + stem + ".json"}, false, out.cgroup, ""};
    auto launched = launchContainerInit(ctx.executable, stem + ".json");
    if (!launched.process) return {std::nullopt, StartProblem{"StartError", launched.error}, false, out.cgroup, ""};
    out.process = std::move(launched.process);
    return out;
}

TerminatedState terminationOf(int exitCode, const std::string& resultFile) {
    TerminatedState t;
    t.exitCode = exitCode;
    t.reason = exitCode == 0 ? "Completed" : "Error";
    std::ifstream in(resultFile);
    if (in) {
        std::stringstream ss;
        ss << in.rdbuf();
        if (auto f = decodeFailure(ss.str())) {
            t.reason = f->reason;
            t.message = f->message;
            t.exitCode = f->exitCode;
        }
    }
    return t;
}

}  // namespace trainer::core::executor
