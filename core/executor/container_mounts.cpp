// containerMounts (declared in volumes.hpp): pkg/kubelet/kubelet_pods.go makeMounts without the
// /etc/hosts mount.
#include "core/executor/volumes.hpp"

#include "core/executor/spec_fields.hpp"
#include "core/executor/var_expansion.hpp"

#include <sys/stat.h>

#include <map>
#include <set>
#include <sstream>

namespace trainer::core::executor {

namespace fs = std::filesystem;

namespace {

struct MountContext {
    const PodVolumes& volumes;
    std::map<std::string, std::string, std::less<>> env;
    std::string containerName;
    std::string error;
};

// subPathExpr expanded (pkg/kubelet/container/helpers.go ExpandContainerVolumeMounts).
std::optional<std::string> expandSubPath(const std::string& expr, MountContext& ctx) {
    std::set<std::string> missing;
    std::string out = expandVars(expr, [&](std::string_view name) -> std::optional<std::string> {
        auto it = ctx.env.find(name);
        if (it == ctx.env.end() || it->second.empty()) missing.insert(std::string(name));
        return it == ctx.env.end() ? std::string() : it->second;
    });
    if (missing.empty()) return out;
    std::string list;
    for (auto const& m : missing) list += (list.empty() ? "" : ", ") + m;
    ctx.error = "missing value for " + list;
    return std::nullopt;
}

bool hasBackstep(const std::string& p) {
    std::istringstream in(p);
    for (std::string seg; std::getline(in, seg, '/');)
        if (seg == "..") return true;
    return false;
}

// The host path of `subPath` inside `root`: created as a directory (with the root's mode) when
// missing, resolved through symlinks, and required to stay inside the root.
std::optional<std::string> resolveSubPath(const fs::path& root, const std::string& subPath, const std::string& mountName,
                                          MountContext& ctx) {
    fs::path p = root / subPath;
    struct stat st {};
    std::error_code ec;
    if (::lstat(p.c_str(), &st) != 0 && ::stat(root.c_str(), &st) == 0) {
        fs::create_directories(p, ec);
        if (!ec) fs::permissions(p, fs::perms(st.st_mode & 07777), ec);
    }
    fs::path realRoot = fs::canonical(root, ec);
    fs::path real = ec ? fs::path() : fs::canonical(p, ec);
    auto rel = real.lexically_relative(realRoot);
    if (ec || rel.empty() || rel.begin()->string() == "..") {
        ctx.error = "failed to prepare subPath for volumeMount \"" + mountName + "\" of container \"" + ctx.containerName + "\"";
        return std::nullopt;
    }
    return real.string();
}

std::optional<Mount> makeMount(const FieldReader& m, MountContext& ctx) {
    auto name = m.string("name"), mountPath = m.string("mountPath");
    auto subPath = m.string("subPath"), subPathExpr = m.string("subPathExpr");
    bool readOnly = m.boolean("readOnly").value_or(false);
    if (!m.ok()) return std::nullopt;
    if (!name) return m.fail(requiredValue(m.path("name"))), std::nullopt;
    if (!mountPath || mountPath->empty()) return m.fail(requiredValue(m.path("mountPath"))), std::nullopt;
    if (mountPath->front() != '/')
        return m.fail(invalidValue(m.path("mountPath"), json::value(*mountPath), "must be an absolute path")), std::nullopt;
    auto volume = ctx.volumes.hostPaths.find(*name);
    if (volume == ctx.volumes.hostPaths.end())
        return m.fail("cannot find volume \"" + *name + "\" to mount into container \"" + ctx.containerName + "\""),
               std::nullopt;
    std::string sub = subPath.value_or("");
    if (subPathExpr && !subPathExpr->empty()) {
        auto expanded = expandSubPath(*subPathExpr, ctx);
        if (!expanded) return std::nullopt;
        sub = *expanded;
    }
    std::string source = volume->second;
    if (!sub.empty()) {
        if (sub.front() == '/') return m.fail("error SubPath `" + sub + "` must not be an absolute path"), std::nullopt;
        if (hasBackstep(sub)) return m.fail("unable to provision SubPath `" + sub + "`: must not contain '..'"), std::nullopt;
        auto resolved = resolveSubPath(volume->second, sub, *name, ctx);
        if (!resolved) return std::nullopt;
        source = *resolved;
    }
    return Mount{source, *mountPath, readOnly || ctx.volumes.readOnly.count(*name) > 0};
}

}  // namespace

ContainerMounts containerMounts(const json::object& container, const PodVolumes& volumes, const std::vector<EnvVar>& env,
                                std::string_view containerPath) {
    MountContext ctx{volumes, {}, {}, {}};
    for (auto const& v : env) ctx.env[v.name] = v.value;
    if (const json::value* n = container.if_contains("name"); n && n->is_string()) ctx.containerName = n->as_string();
    std::string path = containerPath.empty() ? "container \"" + ctx.containerName + "\"" : std::string(containerPath);
    FieldReader c(container, path, ctx.error);
    ContainerMounts out;
    for (auto const& m : c.elements("volumeMounts")) {
        auto mount = makeMount(m, ctx);
        if (!mount) break;
        out.mounts.push_back(std::move(*mount));
    }
    if (!ctx.error.empty()) out.problem = configProblem(ctx.error);
    return out;
}

}  // namespace trainer::core::executor
