#include "plainml.hpp"

#include <array>
#include <string_view>

namespace trainer::plugins::plainml {

namespace {
constexpr std::string_view kAncestorTrainer = "trainer";
constexpr std::string_view kNodeContainer = "node";
// Framework policies that replace this one (upstream plainml steps aside for them).
constexpr std::array<std::string_view, 3> kFrameworkPolicies = {"torch", "mpi", "jax"};
}  // namespace

PlainML::PlainML(const json::object&, sdk::Context&) {}

sdk::PluginMeta PlainML::meta() {
    return {.name = "plainml",
            .version = "0.1.0",
            .description = "Default ML policy: trainer node count and trainer env.",
            .claims = {"mlPolicy"}};
}

void PlainML::enforceMLPolicy(const sdk::Info& info, sdk::Edits& edits, sdk::Context&) {
    // The host only calls us for the default policy; stay inert if a framework policy is set anyway.
    if (const auto* ml = info.mlPolicy())
        for (auto key : kFrameworkPolicies)
            if (ml->contains(key)) return;

    const json::object* trainer = info.trainer();
    if (!trainer) return;
    const json::object* trainerPS = info.podSetByAncestor(kAncestorTrainer);
    if (!trainerPS) return;
    auto psName = sdk::getString(*trainerPS, "name").value_or("");

    // No max(…,1) here: numNodes 0 propagates, as in upstream's EnforceMLPolicy
    // (https://github.com/kubeflow/trainer/blob/8c0f5059bd51ec3ba6d6a6a7b2e1471de7bc13b3/pkg/runtime/framework/plugins/plainml/plainml.go).
    if (auto n = sdk::getInt(*trainer, "numNodes")) edits.setCount(psName, *n);

    if (!sdk::Info::container(*trainerPS, kNodeContainer)) return;
    if (const auto* env = sdk::getArray(*trainer, "env"))
        for (auto const& e : *env)
            if (e.is_object() && sdk::getString(e.as_object(), "name"))
                edits.upsertEnv(psName, kNodeContainer, e.as_object());
}

}  // namespace trainer::plugins::plainml
