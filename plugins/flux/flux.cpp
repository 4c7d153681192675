#include "flux.hpp"

#include "curve.hpp"

#include <openssl/crypto.h>

namespace trainer::plugins::flux {
namespace {

// True (and one error per reserved container, as upstream) when the `node` PodSet already has
// a flux-installer init container.
bool refuseReservedInstaller(const sdk::Info& info, sdk::Context& ctx) {
    const json::object* ps = info.podSet(kNode);
    const json::array* inits = ps ? sdk::getArray(*ps, "initContainers") : nullptr;
    bool found = false;
    if (inits)
        for (auto const& c : *inits)
            if (c.is_object() && sdk::getString(c.as_object(), "name").value_or("") == kInstallerContainer) {
                ctx.error(kReservedPath, kReservedMessage);
                found = true;
            }
    return found;
}

// PlainML's part (upstream plainml.go runs beside flux): count = numNodes, trainer env upserted.
void applyPlainML(const sdk::Info& info, sdk::Edits& edits) {
    auto nodes = sdk::applyTrainerNumNodes(info, edits);
    const json::object* trainer = info.trainer();
    if (!nodes || !trainer || !sdk::Info::container(*nodes->podSet, kNode)) return;
    if (const json::array* env = sdk::getArray(*trainer, "env"))
        for (auto const& e : *env)
            if (e.is_object() && sdk::getString(e.as_object(), "name")) edits.upsertEnv(nodes->name, kNode, e.as_object());
}

}  // namespace

std::optional<FluxPolicy> readPolicy(const sdk::Info& info) {
    const json::object* flux = sdk::mlPolicyConfig(info, "flux");
    if (!flux) return std::nullopt;
    FluxPolicy p;
    if (auto v = sdk::getInt(*flux, "numProcPerNode")) p.numProcPerNode = *v;
    return p;
}

int64_t nodeCount(const sdk::Info& info) {
    if (const json::object* trainer = info.trainer())
        if (auto n = sdk::getInt(*trainer, "numNodes")) return *n;
    if (const json::object* ps = info.podSetByAncestor("trainer")) return sdk::getInt(*ps, "count").value_or(1);
    return 1;
}

int64_t tasksPerNode(const sdk::Info& info, const FluxPolicy& policy) {
    if (const json::object* trainer = info.trainer())
        if (auto n = sdk::getInt(*trainer, "numProcPerNode")) return *n;
    return policy.numProcPerNode;
}

FluxPlugin::FluxPlugin(const json::object& config, sdk::Context& ctx) {
    for (auto const& kv : config)
        ctx.warning(std::string(kv.key()), "the flux plugin takes no configuration; key ignored");
}

sdk::PluginMeta FluxPlugin::meta() {
    return {.name = "flux",
            .version = "0.1.0",
            .description = "Flux ML policy: flux-installer init container, Flux entrypoint around the trainer "
                           "command, broker scripts ConfigMap and CURVE certificate Secret.",
            .claims = {"mlPolicy.flux", "volume:flux-install", "volume:spack-install", "volume:flux-curve"},
            .watches = {{"v1", "ConfigMap", TRN_WATCH_OWNED}, {"v1", "Secret", TRN_WATCH_OWNED}}};
}

void FluxPlugin::validate(const sdk::Info& info, sdk::Context& ctx) {
    if (readPolicy(info)) refuseReservedInstaller(info, ctx);
}

void FluxPlugin::enforceMLPolicy(const sdk::Info& info, sdk::Edits& edits, sdk::Context& ctx) {
    if (!readPolicy(info) || refuseReservedInstaller(info, ctx)) return;
    applyPlainML(info, edits);

    // The trainer runs the entrypoint, which hands the original command to `flux run`. Without
    // spec.trainer (upstream panics) this creates it, so the runtime's command is wrapped.
    edits.set("/trainJob/spec/trainer/command", wrappedCommand(info));
    if (const json::object* trainer = info.trainer(); trainer && trainer->contains("args"))
        edits.remove("/trainJob/spec/trainer/args");

    const json::object* ps = info.podSet(kNode);
    if (!ps) return;
    const std::string job(info.name());
    for (auto const& v : viewVolumes(job)) edits.upsertVolume(kNode, v.as_object());
    edits.upsertVolume(kNode, curveVolume(job));
    edits.set(sdk::Edits::containerPath(kNode, kInstallerContainer, true), installerContainer(job, brokerSettings(info)));
    if (!sdk::Info::container(*ps, kNode)) return;
    for (auto const& m : nodeVolumeMounts(job)) edits.upsertVolumeMount(kNode, kNode, m.as_object());
}

void FluxPlugin::build(const sdk::Info& info, sdk::Objects& objects, sdk::Context& ctx) {
    auto policy = readPolicy(info);
    if (!policy) return;
    std::string error;
    auto secret = curveSecret(info, ctx.lookup("v1", "Secret", info.ns(), curveSecretName(info.name())), error);
    if (!secret) {
        ctx.error("", error);
        return;
    }
    objects.add(entrypointConfigMap(info, *policy));
    objects.add(*secret);
    json::string& cert = (*secret)["data"].as_object()[kCurveCertKey].as_string();
    OPENSSL_cleanse(cert.data(), cert.size());
}

}  // namespace trainer::plugins::flux
