#include "mpi.hpp"

#include "ssh_key.hpp"

#include <trainer/resources.hpp>

#include <openssl/crypto.h>

#include <algorithm>

namespace trainer::plugins::mpi {
namespace {

std::string secretName(std::string_view job) { return std::string(job) + std::string(kSshAuthSecretSuffix); }
std::string configMapName(std::string_view job) { return std::string(job) + std::string(kHostfileConfigMapSuffix); }

json::object keyToPath(std::string_view key, std::string_view path, int64_t mode) {
    return json::object{{"key", key}, {"path", path}, {"mode", mode}};
}

json::object objectMeta(const sdk::Info& info, std::string_view name) {
    return json::object{{"name", name},
                        {"namespace", info.ns()},
                        {"ownerReferences", json::array{sdk::controllerRef(info)}}};
}

bool isLauncherWithNodeContainer(const json::object& podSet) {
    return sdk::getString(podSet, "name").value_or("") == kLauncher && sdk::Info::container(podSet, kNode);
}

}  // namespace

std::optional<MpiPolicy> readPolicy(const sdk::Info& info) {
    const json::object* mpi = sdk::mlPolicyConfig(info, "mpi");
    if (!mpi) return std::nullopt;
    MpiPolicy p;
    if (auto v = sdk::getInt(*mpi, "numProcPerNode")) p.numProcPerNode = *v;
    if (auto v = sdk::getString(*mpi, "mpiImplementation")) p.implementation = *v;
    if (auto v = sdk::getString(*mpi, "sshAuthMountPath")) p.sshAuthMountPath = *v;
    if (auto v = sdk::getBool(*mpi, "runLauncherAsNode")) p.runLauncherAsNode = *v;
    return p;
}

int64_t slotsPerNode(const sdk::Info& info, const MpiPolicy& policy) {
    const json::object* trainer = info.trainer();
    if (trainer)
        if (auto n = sdk::getInt(*trainer, "numProcPerNode")) return *n;
    if (policy.numProcPerNode != 1) return policy.numProcPerNode;
    if (int64_t gpu = sdk::gpuCount(sdk::effectiveResources(info)); gpu > 1) return gpu;
    return policy.numProcPerNode;
}

json::object sshAuthVolume(std::string_view job) {
    return json::object{
        {"name", kSshAuthVolume},
        {"secret", json::object{{"secretName", secretName(job)},
                                {"defaultMode", kModeSecretDefault},
                                {"items", json::array{keyToPath(kSshPrivateKey, "id_rsa", kModePrivateKey),
                                                      keyToPath(kSshPublicKey, "id_rsa.pub", kModePublicKey),
                                                      keyToPath(kSshPublicKey, "authorized_keys", kModePublicKey)}}}}};
}

json::object hostfileVolume(std::string_view job) {
    return json::object{
        {"name", kHostfileVolume},
        {"configMap", json::object{{"name", configMapName(job)},
                                   {"items", json::array{keyToPath(kHostfileName, kHostfileName, kModeHostfile)}}}}};
}

std::string hostfile(const sdk::Info& info, const MpiPolicy& policy) {
    std::string out;
    if (policy.implementation != kOpenMPI) return out;
    const std::string slots = std::to_string(slotsPerNode(info, policy));
    for (auto const& p : info.podSets()) {
        if (!p.is_object()) continue;
        auto name = sdk::getString(p.as_object(), "name").value_or("");
        if (name != kNode && !(policy.runLauncherAsNode && name == kLauncher)) continue;
        const json::array* endpoints = sdk::getArray(p.as_object(), "endpoints");
        if (!endpoints) continue;
        for (auto const& e : *endpoints)
            if (e.is_string()) out.append(e.as_string()).append(" slots=").append(slots).append("\n");
    }
    return out;
}

json::object hostfileConfigMap(const sdk::Info& info, const MpiPolicy& policy) {
    return json::object{{"apiVersion", "v1"},
                        {"kind", "ConfigMap"},
                        {"metadata", objectMeta(info, configMapName(info.name()))},
                        {"data", json::object{{kHostfileName, hostfile(info, policy)}}}};
}

std::optional<json::object> sshAuthSecret(const sdk::Info& info, std::string& error) {
    auto keys = generateSshKeyPair(error);
    if (!keys) return std::nullopt;
    std::string privateB64 = base64Encode(keys->privateKeyPem);
    json::object secret{{"apiVersion", "v1"},
                        {"kind", "Secret"},
                        {"metadata", objectMeta(info, secretName(info.name()))},
                        {"type", kSecretTypeSshAuth},
                        {"immutable", true},
                        {"data", json::object{{kSshPrivateKey, privateB64},
                                              {kSshPublicKey, base64Encode(keys->authorizedKey)}}}};
    wipe(privateB64);
    return secret;
}

MpiPlugin::MpiPlugin(const json::object& config, sdk::Context& ctx) {
    for (auto const& kv : config)
        ctx.warning(std::string(kv.key()), "the mpi plugin takes no configuration; key ignored");
}

sdk::PluginMeta MpiPlugin::meta() {
    return {.name = "mpi",
            .version = "0.1.0",
            .description = "MPI ML policy: SSH auth, hostfile and OpenMPI env for the launcher and nodes.",
            .claims = {"mlPolicy.mpi", "env:OMPI_MCA_orte_default_hostfile", "env:OMPI_MCA_plm_rsh_args",
                       "env:OMPI_MCA_orte_keep_fqdn_hostnames", "env:OMPI_MCA_orte_set_default_slots",
                       "volume:mpi-ssh-auth", "volume:mpi-hostfile"},
            .watches = {{"v1", "ConfigMap", TRN_WATCH_OWNED}, {"v1", "Secret", TRN_WATCH_OWNED}}};
}

void MpiPlugin::validate(const sdk::Info& info, sdk::Context& ctx) {
    auto policy = readPolicy(info);
    const json::object* trainer = info.trainer();
    if (!policy || !trainer) return;
    if (sdk::getInt(*trainer, "numNodes").value_or(1) >= 2 && policy->runLauncherAsNode &&
        (!info.podSet(kLauncher) || !info.podSet(kNode)))
        ctx.error("spec.trainer.numNodes",
                  "must have 1 when MPI trainingRuntime with enabled runLauncherAsNode does not have either "
                  "launcher and node");
    // The four OMPI_MCA_* names a TrainJob must not set are refused by the host from the env:
    // claims, with upstream's message (sdk/docs/info.md "What the host refuses").
}

void MpiPlugin::enforceMLPolicy(const sdk::Info& info, sdk::Edits& edits, sdk::Context& ctx) {
    auto policy = readPolicy(info);
    if (!policy) return;
    // Refuse before emitting anything: the launcher's env depends on the implementation.
    bool needsEnv = std::any_of(info.podSets().begin(), info.podSets().end(), [](const json::value& p) {
        return p.is_object() && isLauncherWithNodeContainer(p.as_object());
    });
    if (needsEnv && policy->implementation != kOpenMPI) {
        ctx.error("", "MPI implementation for " + policy->implementation + " doesn't supported");
        return;
    }

    if (const json::object* trainer = info.trainer())
        if (auto n = sdk::getInt(*trainer, "numNodes"); n && info.podSet(kNode))
            edits.setCount(kNode, policy->runLauncherAsNode ? std::max<int64_t>(*n - 1, 1) : *n);

    const std::string slots = std::to_string(slotsPerNode(info, *policy));
    const std::string job(info.name());
    for (auto const& p : info.podSets()) {
        if (!p.is_object()) continue;
        const json::object& ps = p.as_object();
        std::string name(sdk::getString(ps, "name").value_or(""));
        if (name != kNode && name != kLauncher) continue;
        const bool launcher = name == kLauncher;
        edits.upsertVolume(name, sshAuthVolume(job));
        if (launcher) edits.upsertVolume(name, hostfileVolume(job));
        if (!sdk::Info::container(ps, kNode)) continue;
        edits.upsertVolumeMount(name, kNode,
                                json::object{{"name", kSshAuthVolume}, {"mountPath", policy->sshAuthMountPath}});
        if (!launcher) continue;
        edits.upsertVolumeMount(name, kNode, json::object{{"name", kHostfileVolume}, {"mountPath", kHostfileDir}});
        const std::string hostfilePath = std::string(kHostfileDir) + "/" + std::string(kHostfileName);
        edits.upsertEnv(name, kNode, kEnvHostfile, hostfilePath);
        edits.upsertEnv(name, kNode, kEnvKeepFqdn, "true");
        edits.upsertEnv(name, kNode, kEnvDefaultSlots, slots);
        edits.upsertEnv(name, kNode, kEnvRshArgs, kRshArgsValue);
    }
}

void MpiPlugin::build(const sdk::Info& info, sdk::Objects& objects, sdk::Context& ctx) {
    auto policy = readPolicy(info);
    if (!policy) return;
    // The Secret is immutable: generated once, never replaced.
    if (!ctx.lookup("v1", "Secret", info.ns(), secretName(info.name()))) {
        std::string error;
        auto secret = sshAuthSecret(info, error);
        if (!secret) {
            ctx.error("", "failed to build SSH Auth secret: " + error);
            return;
        }
        objects.add(*secret);
        json::string& key = (*secret)["data"].as_object()[kSshPrivateKey].as_string();
        OPENSSL_cleanse(key.data(), key.size());
    }
    objects.add(hostfileConfigMap(info, *policy));
}

}  // namespace trainer::plugins::mpi
