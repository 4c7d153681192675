// A pod's volumes on the host and the bind mounts of one container, as the kubelet prepares them
// (pkg/kubelet/volumemanager, pkg/volume/*, pkg/kubelet/kubelet_pods.go makeMounts).
#pragma once

#include "core/api/object_set.hpp"
#include "core/executor/env_resolver.hpp"
#include "core/executor/pod_runtime_facts.hpp"
#include "core/executor/start_problem.hpp"
#include "core/executor/token_manager.hpp"

#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace trainer::core::executor {

// One bind mount: `source` an absolute host path (directory or file) mounted at `target`.
struct Mount {
    std::string source;
    std::string target;
    bool readOnly = false;
    bool operator==(const Mount&) const = default;
};

// The pod's volumes: name -> absolute host path, or the first volume that could not be set up.
struct PodVolumes {
    std::map<std::string, std::string> hostPaths;
    // Volumes the kubelet always mounts read-only: configMap, secret, downwardAPI, projected.
    std::set<std::string> readOnly;
    std::optional<StartProblem> problem;
};

// Sets up the pod's spec.volumes under `podDir`/volumes/<name>/ (made absolute):
// - configMap, secret (data base64-decoded), downwardAPI, projected: files written with
//   writeAtomically (atomic_writer.hpp) on every call, so updates of the objects show; see
//   volume_payloads.hpp for items, modes (defaultMode 0644) and `optional`;
// - emptyDir: a directory (mode 0777) kept across calls; medium "" or "Memory" (a plain
//   directory here);
// - hostPath: the path itself, checked against `type` as pkg/volume/hostpath checkType does
//   (DirectoryOrCreate, Directory, FileOrCreate, File, Socket, CharDevice, BlockDevice, "").
// Any other volume type, a malformed entry or a failed setup gives a problem with reason
// FailedMount and message `MountVolume.SetUp failed for volume "<name>" : <cause>`, the cause
// naming the field (`spec.volumes[2]: ...`) when the spec is at fault; volumes after it are not
// set up. `facts` feeds downwardAPI resourceFieldRef (node allocatable); `tokens` mints the
// projected serviceAccountToken sources (none: such a source is a problem).
PodVolumes materializeVolumes(const json::object& pod, const ClusterReader& cluster, const std::filesystem::path& podDir,
                              const PodRuntimeFacts& facts = {}, TokenManager* tokens = nullptr);

// The container's mounts, or why it cannot start (reason CreateContainerConfigError).
struct ContainerMounts {
    std::vector<Mount> mounts;
    std::optional<StartProblem> problem;
};

// The mounts of the container's volumeMounts {name, mountPath, subPath, subPathExpr, readOnly}
// in order. mountPath must be absolute. subPath (or subPathExpr, $(VAR)-expanded against `env`;
// an undefined or empty variable is `missing value for A, B`) selects a file or directory inside
// the volume: relative, without "..", created as a directory when missing, and resolved through
// symlinks to a path that must stay inside the volume. A mount of a volume absent from `volumes`
// is `cannot find volume "v" to mount into container "c"`. Field errors name
// `<containerPath>.volumeMounts[i]` (containerPath as in resolveCommand).
ContainerMounts containerMounts(const json::object& container, const PodVolumes& volumes,
                                const std::vector<EnvVar>& env = {}, std::string_view containerPath = {});

}  // namespace trainer::core::executor
