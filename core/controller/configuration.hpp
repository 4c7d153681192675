// The operator's Configuration file: upstream's `config.trainer.kubeflow.org/v1alpha1`
// `Configuration` (pkg/apis/config/v1alpha1), decoded strictly (unknown fields are errors with
// their field paths), defaulted as upstream's SetDefaults_Configuration, and validated with
// every error reported together; plus our `plugins` section.
#pragma once

#include "core/api/errors.hpp"
#include "core/controller/feature_gates.hpp"
#include "core/plugin/registry.hpp"
#include "core/server/tls_settings.hpp"

#include <boost/json.hpp>

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
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
    bool metricsAuthEnabled = false;  // metrics.auth.enabled: only principals allowed GET /metrics scrape
    // health
    std::string healthProbeBindAddress = ":8081";
    std::string readinessEndpointName = "readyz";
    std::string livenessEndpointName = "healthz";
    // controller
    std::map<std::string, int64_t> groupKindConcurrency;
    // leaderElection: a coordination.k8s.io/v1 Lease in the store (leader_election.hpp). On by
    // default for `run`, unlike upstream's binary: it guards the store processes share.
    bool leaderElect = true;
    std::string leaderElectionResourceName = "trainer.kubeflow.org";         // upstream's LeaderElectionID
    std::string leaderElectionResourceNamespace = "kubeflow-system";         // upstream's install namespace
    std::string leaderElectionResourceLock = "leases";                       // the only lock supported
    std::chrono::nanoseconds leaseDuration = std::chrono::seconds(15);
    std::chrono::nanoseconds renewDeadline = std::chrono::seconds(10);
    std::chrono::nanoseconds retryPeriod = std::chrono::seconds(2);
    // certManagement
    bool certManagementEnable = true;
    std::string webhookServiceName = "kubeflow-trainer-controller-manager";
    std::string webhookSecretName = "kubeflow-trainer-webhook-cert";
    // clientConnection
    double qps = 50;
    int64_t burst = 100;
    // statusServer: where training processes report progress (TrainJobStatus gate)
    int64_t statusServerPort = 10443;
    double statusServerQps = 5;
    int64_t statusServerBurst = 10;
    // featureGates: the effective value of every known gate (defaults overlaid with the file's)
    std::map<std::string, bool> featureGates = defaultFeatureGates();
    // tls: applied to every server (webhooks, metrics, the embedded API, the status server)
    std::string tlsMinVersion;
    std::vector<std::string> tlsCipherSuites;
    std::vector<std::string> tlsNextProtos;
    server::TlsSettings tls;  // the three above, parsed
    // plugins (ours)
    std::string pluginDirectory;
    PluginOptions plugins;
};

// Is `gate` on? (false for a gate the operator does not know)
bool featureEnabled(const Configuration& cfg, std::string_view gate);

// A Go duration ("15s", "1m30s", "500ms", "0"), as metav1.Duration is written; nullopt when malformed.
std::optional<std::chrono::nanoseconds> parseGoDuration(std::string_view text);

// Decodes, defaults and validates one Configuration document into `out` (which starts from
// the defaults). All problems are returned together, each with its field path.
Diagnostics parseConfiguration(const json::value& doc, Configuration& out);
// Reads a YAML or JSON file and parses it; read and syntax errors are reported too.
Diagnostics loadConfiguration(const std::string& path, Configuration& out);
// Validation alone (also used after flags override the file).
Diagnostics validateConfiguration(const Configuration& cfg);

}  // namespace trainer::core::controller
