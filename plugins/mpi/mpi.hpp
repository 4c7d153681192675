// The MPI ML policy (upstream
// https://github.com/kubeflow/trainer/blob/8c0f5059bd51ec3ba6d6a6a7b2e1471de7bc13b3/pkg/runtime/framework/plugins/mpi/mpi.go):
// node counts, slots, SSH/hostfile volumes and OpenMPI env on the launcher, and the SSH Secret and
// hostfile ConfigMap objects. Stateless: every value is recomputed from the Info.
#pragma once

#include <trainer/plugin.hpp>
#include <trainer/policy.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace trainer::plugins::mpi {

namespace json = boost::json;

// Names that reach the output (upstream
// https://github.com/kubeflow/trainer/blob/8c0f5059bd51ec3ba6d6a6a7b2e1471de7bc13b3/pkg/constants/constants.go).
inline constexpr std::string_view kNode = "node";
inline constexpr std::string_view kLauncher = "launcher";
inline constexpr std::string_view kOpenMPI = "OpenMPI";
inline constexpr std::string_view kSshAuthVolume = "mpi-ssh-auth";
inline constexpr std::string_view kHostfileVolume = "mpi-hostfile";
inline constexpr std::string_view kSshAuthSecretSuffix = "-mpi-ssh-auth";
inline constexpr std::string_view kHostfileConfigMapSuffix = "-mpi-hostfile";
inline constexpr std::string_view kHostfileDir = "/etc/mpi";
inline constexpr std::string_view kHostfileName = "hostfile";
inline constexpr std::string_view kSshPrivateKey = "ssh-privatekey";
inline constexpr std::string_view kSshPublicKey = "ssh-publickey";
inline constexpr std::string_view kSecretTypeSshAuth = "kubernetes.io/ssh-auth";
inline constexpr std::string_view kEnvHostfile = "OMPI_MCA_orte_default_hostfile";
inline constexpr std::string_view kEnvRshArgs = "OMPI_MCA_plm_rsh_args";
inline constexpr std::string_view kEnvKeepFqdn = "OMPI_MCA_orte_keep_fqdn_hostnames";
inline constexpr std::string_view kEnvDefaultSlots = "OMPI_MCA_orte_set_default_slots";
inline constexpr std::string_view kRshArgsValue = "-o ConnectionAttempts=10";
// File modes, as the decimal integers Kubernetes JSON carries.
inline constexpr int64_t kModeSecretDefault = 0400;
inline constexpr int64_t kModePrivateKey = 0640;
inline constexpr int64_t kModePublicKey = 0644;
inline constexpr int64_t kModeHostfile = 0444;

// runtimePolicy.mlPolicy.mpi with the CRD defaults filled in where absent.
struct MpiPolicy {
    int64_t numProcPerNode = 1;
    std::string implementation{kOpenMPI};
    std::string sshAuthMountPath = "/root/.ssh";
    bool runLauncherAsNode = false;
};

// The mpi policy of the Info's runtime, or nullopt when the runtime has none.
std::optional<MpiPolicy> readPolicy(const sdk::Info& info);

// Slots per node (mpi.go EnforceMLPolicy): trainer.numProcPerNode, else the runtime value, which a
// GPU count > 1 (sdk::gpuCount of sdk::effectiveResources) replaces when it is 1.
int64_t slotsPerNode(const sdk::Info& info, const MpiPolicy& policy);

// The `mpi-ssh-auth` Secret volume and the launcher's `mpi-hostfile` ConfigMap volume.
json::object sshAuthVolume(std::string_view job);
json::object hostfileVolume(std::string_view job);

// The hostfile: "<endpoint> slots=<n>\n" for the node PodSets' endpoints (and the launcher's
// when runLauncherAsNode), in PodSet order; empty for other implementations.
std::string hostfile(const sdk::Info& info, const MpiPolicy& policy);

// The `<job>-mpi-hostfile` ConfigMap.
json::object hostfileConfigMap(const sdk::Info& info, const MpiPolicy& policy);

// The `<job>-mpi-ssh-auth` Secret with a fresh key; nullopt and `error` set on failure.
std::optional<json::object> sshAuthSecret(const sdk::Info& info, std::string& error);

// The plugin: CustomValidation, EnforceMLPolicy, ComponentBuilder, WatchExtension.
class MpiPlugin : public sdk::Plugin,
                  public sdk::CustomValidation,
                  public sdk::EnforceMLPolicy,
                  public sdk::ComponentBuilder {
public:
    MpiPlugin(const json::object& config, sdk::Context& ctx);
    static sdk::PluginMeta meta();

    void validate(const sdk::Info& info, sdk::Context& ctx) override;
    void enforceMLPolicy(const sdk::Info& info, sdk::Edits& edits, sdk::Context& ctx) override;
    void build(const sdk::Info& info, sdk::Objects& objects, sdk::Context& ctx) override;
};

}  // namespace trainer::plugins::mpi
