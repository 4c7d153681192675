#include "core/executor/volumes.hpp"

#include "core/api/dns_names.hpp"
#include "core/executor/volume_payloads.hpp"

#include <sys/stat.h>

#include <fcntl.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstring>

namespace trainer::core::executor {

namespace fs = std::filesystem;

namespace {

struct VolumeContext {
    PayloadContext payloads;
    fs::path volumesDir;
};

// k8s.io/apimachinery/pkg/util/validation IsDNS1123Label.
bool isDnsLabel(std::string_view s) { return s.size() <= 63 && isDns1123LabelChars(s); }

// "Directory", "File", "Socket", "CharDevice", "BlockDevice" (pkg/volume/util/hostutil GetFileType).
std::string fileType(const struct stat& st) {
    if (S_ISDIR(st.st_mode)) return "Directory";
    if (S_ISREG(st.st_mode)) return "File";
    if (S_ISSOCK(st.st_mode)) return "Socket";
    if (S_ISCHR(st.st_mode)) return "CharDevice";
    if (S_ISBLK(st.st_mode)) return "BlockDevice";
    return "";
}

// pkg/volume/hostpath/host_path.go checkType; "" when the path is acceptable.
std::string checkHostPathType(const std::string& path, const std::string& type) {
    static const std::map<std::string, std::string> described = {
        {"Directory", "directory"}, {"File", "file"}, {"Socket", "socket file"},
        {"CharDevice", "character device"}, {"BlockDevice", "block device"}};
    struct stat st {};
    bool exists = ::stat(path.c_str(), &st) == 0;
    if (type == "DirectoryOrCreate" && !exists) {
        std::error_code ec;
        fs::create_directories(path, ec);
        return ec ? "mkdir " + path + ": " + ec.message() : "";
    }
    if (type == "FileOrCreate" && !exists) {
        int fd = ::open(path.c_str(), O_CREAT | O_WRONLY | O_CLOEXEC, 0644);
        if (fd < 0) return "open " + path + ": " + std::strerror(errno);
        ::close(fd);
        return "";
    }
    std::string want = type == "DirectoryOrCreate" ? "Directory" : type == "FileOrCreate" ? "File" : type;
    auto it = described.find(want);
    if (it == described.end()) return type + " is an invalid volume type";
    if (!exists) return "hostPath " + path + " doesn't exist";
    std::string actual = fileType(st);
    if (actual.empty())
        return "hostPath type check failed, " + path + " is not a " + it->second + ", unable to determine its type";
    if (actual != want) return "hostPath type check failed: " + path + " is not a " + it->second + ", it's a " + actual;
    return "";
}

std::string setUpHostPath(const FieldReader& source, std::string& hostPath) {
    auto path = source.string("path");
    auto type = source.string("type");
    if (!source.ok()) return "";
    if (!path || path->empty()) return source.fail(requiredValue(source.path("path"))), "";
    if (path->front() != '/')
        return source.fail(invalidValue(source.path("path"), json::value(*path), "must be an absolute path")), "";
    hostPath = fs::path(*path).lexically_normal().string();
    if (hostPath.size() > 1 && hostPath.back() == '/') hostPath.pop_back();
    return type && !type->empty() ? checkHostPathType(hostPath, *type) : "";
}

std::string setUpEmptyDir(const FieldReader& source, const fs::path& dir) {
    auto medium = source.string("medium");
    if (!source.ok()) return "";
    if (medium && !medium->empty() && *medium != "Memory")
        return source.fail(invalidValue(source.path("medium"), json::value(*medium),
                                        "the local executor supports \"\" and \"Memory\" (a plain directory)")),
               "";
    std::error_code ec;
    fs::create_directories(dir, ec);
    if (!ec) fs::permissions(dir, fs::perms::all, ec);
    return ec ? "cannot create " + dir.string() + ": " + ec.message() : "";
}

}  // namespace

namespace {

// The member of a spec.volumes entry that names its type ("configMap", "hostPath", ...).
std::optional<std::string> volumeSourceKey(const FieldReader& v) {
    std::vector<std::string> keys;
    for (auto const& kv : v.raw())
        if (kv.key() != "name" && !kv.value().is_null()) keys.emplace_back(kv.key());
    if (keys.empty()) return v.fail(requiredValue(v.path(), "must specify a volume type")), std::nullopt;
    if (keys.size() > 1) return v.fail(invalidValue(v.path(), v.raw(), "may not specify more than 1 volume type")), std::nullopt;
    return keys.front();
}

std::string unsupportedVolume(const FieldReader& v, const std::string& key) {
    return v.path() + ": Unsupported value: \"" + key +
           "\": supported volume types: \"configMap\", \"downwardAPI\", \"emptyDir\", \"hostPath\", \"projected\", "
           "\"secret\"";
}

using PayloadSetup = void (*)(const FieldReader&, PayloadContext&, Payload&);

// Sets up one volume and records it in `out`; returns the cause of a failure at run time (a
// spec error fails `v` instead).
std::string setUpVolume(const FieldReader& v, const std::string& name, VolumeContext& ctx, PodVolumes& out) {
    static const std::map<std::string, PayloadSetup> payloadTypes = {{"configMap", addConfigMapVolume},
                                                                     {"secret", addSecretVolume},
                                                                     {"downwardAPI", addDownwardApiVolume},
                                                                     {"projected", addProjectedVolume}};
    auto key = volumeSourceKey(v);
    if (!key) return "";
    FieldReader source = v.child(*key);
    fs::path dir = ctx.volumesDir / name;
    std::string error, hostPath = dir.string();
    if (auto it = payloadTypes.find(*key); it != payloadTypes.end()) {
        Payload payload;
        it->second(source, ctx.payloads, payload);
        if (v.ok()) error = writeAtomically(dir, payload);
        if (v.ok() && error.empty()) out.readOnly.insert(name);
    } else if (*key == "emptyDir") {
        error = setUpEmptyDir(source, dir);
    } else if (*key == "hostPath") {
        error = setUpHostPath(source, hostPath);
    } else {
        v.fail(unsupportedVolume(v, *key));
    }
    if (v.ok() && error.empty()) out.hostPaths[name] = hostPath;
    return error;
}

// The volume's name, checked; nullopt (and `v` failed) when unusable.
std::optional<std::string> volumeName(const FieldReader& v, std::set<std::string>& seen) {
    auto name = v.string("name");
    if (!v.ok()) return std::nullopt;
    if (!name) return v.fail(requiredValue(v.path("name"))), std::nullopt;
    if (!isDnsLabel(*name))
        return v.fail(invalidValue(v.path("name"), json::value(*name),
                                   "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or "
                                   "'-', and must start and end with an alphanumeric character")),
               std::nullopt;
    if (!seen.insert(*name).second) return v.fail(v.path("name") + ": Duplicate value: \"" + *name + "\""), std::nullopt;
    return name;
}

}  // namespace

PodVolumes materializeVolumes(const json::object& pod, const ClusterReader& cluster, const fs::path& podDir,
                              const PodRuntimeFacts& facts, TokenManager* tokens) {
    static const json::object empty;
    PodVolumes out;
    std::string error;
    const json::value* spec = pod.if_contains("spec");
    FieldReader specReader(spec && spec->is_object() ? spec->as_object() : empty, "spec", error);
    auto volumes = specReader.elements("volumes");
    SourceCache sources(cluster, podNamespace(pod));
    std::error_code ec;
    VolumeContext ctx{{pod, facts, sources, tokens}, fs::absolute(podDir, ec).lexically_normal() / "volumes"};
    std::set<std::string> seen;
    for (auto const& v : volumes) {
        auto name = volumeName(v, seen);
        if (!name) break;
        std::string cause = setUpVolume(v, *name, ctx, out);
        if (cause.empty()) cause = error;
        if (!cause.empty()) {
            out.problem = StartProblem{std::string(kFailedMount),
                                       "MountVolume.SetUp failed for volume \"" + *name + "\" : " + cause};
            return out;
        }
    }
    if (!error.empty()) out.problem = StartProblem{std::string(kFailedMount), error};
    return out;
}

}  // namespace trainer::core::executor
