// The operator's Configuration file: upstream's `config.trainer.kubeflow.org/v1alpha1`
// `Configuration` (pkg/apis/config/v1alpha1), decoded strictly (unknown fields are errors with
// their field paths), defaulted as upstream's SetDefaults_Configuration, and validated with
// every error reported together; plus our `plugins` section.
#pragma once

#include "core/api/errors.hpp"
#include "core/plugin/registry.hpp"

#include <boost/json.hpp>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace trainer::core::controller {

namespace json = boost::json;

inline constexpr std::string_view kConfigApiVersion = "config.trainer.kubeflow.org/v1alpha1";
inline constexpr std::string_view kConfigKind = "Configuration";
// groupKindConcurrency key of the TrainJob controller.
inline constexpr std::string_view kTrainJobGroupKind = "TrainJob.trainer.kubeflow.org";

struct Configuration {
    // webhook
    int64_t webhookPort = 9443;
    std::string webhookHost;
    std::string webhookCertDir;  // controller-runtime's webhook.Options.CertDir
    // metrics
    std::string metricsBindAddress = ":8443";
    bool metricsSecureServing = true;
    // health
    std::string healthProbeBindAddress = ":8081";
    std::string readinessEndpointName = "readyz";
    std::string livenessEndpointName = "healthz";
    // controller
    std::map<std::string, int64_t> groupKindConcurrency;
    // leaderElection (accepted and validated; one process owns the embedded store)
    bool leaderElect = false;
    std::string leaderElectionResourceName;
    // certManagement
    bool certManagementEnable = true;
    std::string webhookServiceName = "kubeflow-trainer-controller-manager";
    std::string webhookSecretName = "kubeflow-trainer-webhook-cert";
    // clientConnection
    double qps = 50;
    int64_t burst = 100;
    // progressServer / trainJobStatusServer
    int64_t statusServerPort = 10443;
    std::map<std::string, bool> featureGates;
    // plugins (ours)
    std::string pluginDirectory;
    PluginOptions plugins;
};

// Decodes, defaults and validates one Configuration document into `out` (which starts from
// the defaults). All problems are returned together, each with its field path.
Diagnostics parseConfiguration(const json::value& doc, Configuration& out);
// Reads a YAML or JSON file and parses it; read and syntax errors are reported too.
Diagnostics loadConfiguration(const std::string& path, Configuration& out);
// Validation alone (also used after flags override the file).
Diagnostics validateConfiguration(const Configuration& cfg);

}  // namespace trainer::core::controller
