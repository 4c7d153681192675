#include "core/cli/command_config.hpp"

#include "core/controller/feature_gates.hpp"

namespace trainer::core::cli {

FlagSpec configFlag() {
    return {"config", 0, true, false,
            "a config.trainer.kubeflow.org/v1alpha1 Configuration file (upstream's, plus our plugins section)", ""};
}

FlagSpec featureGatesFlag() {
    return {"feature-gates", 0, true, false,
            "comma-separated NAME=true|false pairs overriding the Configuration's featureGates (e.g. TrainJobStatus=true)",
            ""};
}

bool loadCommandConfiguration(const Args& args, Io& io, controller::Configuration& cfg) {
    Diagnostics d;
    if (args.has("config")) d = controller::loadConfiguration(args.get("config"), cfg);
    if (d.ok() && args.has("feature-gates")) {
        auto overrides = controller::parseFeatureGatesFlag(args.get("feature-gates"), d);
        controller::overrideFeatureGates(cfg.featureGates, overrides, d, "--feature-gates");
    }
    for (auto const& e : d.errors)
        io.err << "error: invalid configuration: " << (e.path.empty() ? "" : e.path + ": ") << e.message << "\n";
    return d.ok();
}

OperatorSettings operatorSettingsOf(const controller::Configuration& cfg, const std::string& operatorNamespace) {
    OperatorSettings s;
    s.operatorNamespace = operatorNamespace;
    s.serviceName = cfg.webhookServiceName;
    s.webhookSecretName = cfg.webhookSecretName;
    s.statusServerPort = cfg.statusServerPort;
    s.featureGates = cfg.featureGates;
    return s;
}

std::string pluginDirOf(const Args& args, const controller::Configuration& cfg) {
    return args.has("plugin-dir") || cfg.pluginDirectory.empty() ? pluginDir(args) : cfg.pluginDirectory;
}

}  // namespace trainer::core::cli
