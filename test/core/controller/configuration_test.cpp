#include <boost/test/unit_test.hpp>

#include "core/controller/configuration.hpp"
#include "core/json/io.hpp"

#include <filesystem>
#include <fstream>

using namespace trainer::core;
using namespace trainer::core::controller;

namespace {
Diagnostics parse(const std::string& yaml, Configuration& cfg) {
    std::vector<json::value> docs;
    std::string err;
    BOOST_REQUIRE_MESSAGE(parseYaml(yaml, docs, err), err);
    BOOST_REQUIRE(docs.size() == 1u);
    return parseConfiguration(docs.front(), cfg);
}
std::vector<std::string> paths(const Diagnostics& d) {
    std::vector<std::string> out;
    for (auto const& e : d.errors) out.push_back(e.path);
    return out;
}
const std::string kHead = "apiVersion: config.trainer.kubeflow.org/v1alpha1\nkind: Configuration\n";
}  // namespace

BOOST_AUTO_TEST_SUITE(configuration)

BOOST_AUTO_TEST_CASE(defaults_match_upstream) {
    Configuration cfg;
    auto d = parse(kHead, cfg);
    BOOST_TEST(d.ok());
    BOOST_TEST(cfg.webhookPort == 9443);
    BOOST_TEST(cfg.metricsBindAddress == ":8443");
    BOOST_TEST(cfg.metricsSecureServing);
    BOOST_TEST(cfg.healthProbeBindAddress == ":8081");
    BOOST_TEST(cfg.readinessEndpointName == "readyz");
    BOOST_TEST(cfg.livenessEndpointName == "healthz");
    BOOST_TEST(cfg.certManagementEnable);
    BOOST_TEST(cfg.webhookServiceName == "kubeflow-trainer-controller-manager");
    BOOST_TEST(cfg.webhookSecretName == "kubeflow-trainer-webhook-cert");
    BOOST_TEST(cfg.qps == 50);
    BOOST_TEST(cfg.burst == 100);
    BOOST_TEST(cfg.statusServerPort == 10443);
    BOOST_TEST(cfg.statusServerQps == 5);
    BOOST_TEST(cfg.statusServerBurst == 10);
    BOOST_TEST(!cfg.metricsAuthEnabled);
    BOOST_TEST(cfg.featureGates.at("TrainJobStatus") == false);  // alpha, off as upstream
    BOOST_TEST(!featureEnabled(cfg, "TrainJobStatus"));
    BOOST_TEST(cfg.tls.minVersion == 0x0303);
}

BOOST_AUTO_TEST_CASE(upstreams_shipped_configuration_is_accepted_unchanged) {
    Configuration cfg;
    auto d = loadConfiguration(std::string(TRAINER_SHARED_DIR) + "/config/controller_manager_config.yaml", cfg);
    BOOST_TEST(d.ok(), (d.ok() ? "" : d.errors.front().path + ": " + d.errors.front().message));
    BOOST_TEST(cfg.groupKindConcurrency.at("TrainingRuntime.trainer.kubeflow.org") == 1);
    BOOST_TEST(cfg.statusServerPort == 10443);
    BOOST_TEST(cfg.leaderElectionResourceNamespace == "kubeflow-system");  // "" keeps the default
}

BOOST_AUTO_TEST_CASE(every_upstream_field_decodes) {
    Configuration cfg;
    auto d = parse(kHead + R"(
metrics: {auth: {enabled: true}}
statusServer: {port: 10444, qps: 7.5, burst: 3}
featureGates: {TrainJobStatus: true}
tls:
  minVersion: "1.3"
  cipherSuites: [TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256, TLS_AES_128_GCM_SHA256]
  nextProtos: [http/1.1]
)", cfg);
    BOOST_TEST(d.ok(), (d.ok() ? "" : d.errors.front().path + ": " + d.errors.front().message));
    BOOST_TEST(cfg.metricsAuthEnabled);
    BOOST_TEST(cfg.statusServerPort == 10444);
    BOOST_TEST(cfg.statusServerQps == 7.5);
    BOOST_TEST(cfg.statusServerBurst == 3);
    BOOST_TEST(featureEnabled(cfg, "TrainJobStatus"));
    BOOST_TEST(cfg.tls.minVersion == 0x0304);
    BOOST_TEST(cfg.tls.cipherList == "ECDHE-RSA-AES128-GCM-SHA256");  // the TLS 1.3 suite is not configurable
    BOOST_TEST(cfg.tls.nextProtos == std::vector<std::string>{"http/1.1"}, boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(full_document_decodes) {
    Configuration cfg;
    auto d = parse(kHead + R"(
webhook: {port: 9444, host: 127.0.0.1, certDir: /tmp/certs}
metrics: {bindAddress: "127.0.0.1:9090", secureServing: false}
health: {healthProbeBindAddress: ":9081", readinessEndpointName: ready, livenessEndpointName: live}
controller: {groupKindConcurrency: {TrainJob.trainer.kubeflow.org: 4}}
leaderElection: {leaderElect: true, resourceName: trainer-lock, leaseDuration: 15s, renewDeadline: 10s, retryPeriod: 2s}
certManagement: {enable: false}
clientConnection: {qps: 20.5, burst: 30}
featureGates: {TrainJobStatus: true}
plugins:
  directory: /opt/plugins
  enabled: [jobset, torch]
  disabled: [volcano]
  config: {torch: {x: 1}}
  priorities: {torch: 7}
)", cfg);
    BOOST_TEST(d.ok());
    BOOST_TEST(cfg.webhookPort == 9444);
    BOOST_TEST(cfg.webhookHost == "127.0.0.1");
    BOOST_TEST(cfg.webhookCertDir == "/tmp/certs");
    BOOST_TEST(cfg.metricsBindAddress == "127.0.0.1:9090");
    BOOST_TEST(!cfg.metricsSecureServing);
    BOOST_TEST(cfg.readinessEndpointName == "ready");
    BOOST_TEST(cfg.groupKindConcurrency.at("TrainJob.trainer.kubeflow.org") == 4);
    BOOST_TEST(cfg.leaderElect);
    BOOST_TEST(!cfg.certManagementEnable);
    BOOST_TEST(cfg.qps == 20.5);
    BOOST_TEST(cfg.featureGates.at("TrainJobStatus"));
    BOOST_TEST(cfg.pluginDirectory == "/opt/plugins");
    BOOST_TEST(cfg.plugins.enabled.size() == 2u);
    BOOST_TEST(cfg.plugins.disabled.at(0) == "volcano");
    BOOST_TEST(cfg.plugins.configs.at("torch") == R"({"x":1})");
    BOOST_TEST(cfg.plugins.priorities.at("torch") == 7);
}

BOOST_AUTO_TEST_CASE(strict_decoding_reports_every_unknown_field_with_its_path) {
    Configuration cfg;
    auto d = parse(kHead + R"(
webhook: {port: 9443, prot: 1}
metrics: {bindAdress: ":8443"}
unknownTop: true
plugins: {dir: x}
)", cfg);
    auto p = paths(d);
    std::vector<std::string> want{"webhook.prot", "metrics.bindAdress", "unknownTop", "plugins.dir"};
    std::sort(p.begin(), p.end());
    std::sort(want.begin(), want.end());
    BOOST_TEST(p == want, boost::test_tools::per_element());
    BOOST_TEST(d.errors.at(0).message.find("unknown field") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(validation_errors_are_reported_together) {
    struct Case {
        std::string body;
        std::vector<std::string> paths;
    };
    const Case cases[] = {
        {"webhook: {port: 0}\n", {"webhook.port"}},
        {"webhook: {port: 70000}\nclientConnection: {qps: -1, burst: -2}\n",
         {"webhook.port", "clientConnection.qps", "clientConnection.burst"}},
        {"controller: {groupKindConcurrency: {TrainJob.trainer.kubeflow.org: 0}}\n",
         {"controller.groupKindConcurrency[TrainJob.trainer.kubeflow.org]"}},
        {"metrics: {bindAddress: \"nonsense\"}\n", {"metrics.bindAddress"}},
        {"webhook: {port: \"x\"}\n", {"webhook.port"}},
        {"leaderElection: {leaseDuration: forever}\n", {"leaderElection.leaseDuration"}},
        {"plugins: {enabled: [a], disabled: [a]}\n", {"plugins.disabled"}},
        {"featureGates: {TrainJobStatus: true, NoSuchGate: false}\n", {"featureGates[NoSuchGate]"}},
        {"statusServer: {port: 0, qps: -1, burst: -1}\n", {"statusServer.port", "statusServer.qps", "statusServer.burst"}},
        {"tls: {minVersion: \"1.4\", cipherSuites: [TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256, NOT_A_SUITE]}\n",
         {"tls.minVersion", "tls.cipherSuites[1]"}},
        {"metrics: {secureServing: false, auth: {enabled: true}}\n", {"metrics.auth.enabled"}},
        {"progressServer: {port: 1}\n", {"progressServer"}},
    };
    for (auto const& c : cases) {
        Configuration cfg;
        auto d = parse(kHead + c.body, cfg);
        BOOST_TEST(paths(d) == c.paths, boost::test_tools::per_element());
    }
}

BOOST_AUTO_TEST_CASE(wrong_kind_or_version_and_unreadable_files) {
    Configuration cfg;
    auto d = parse("apiVersion: config.trainer.kubeflow.org/v1beta1\nkind: Config\n", cfg);
    BOOST_TEST(paths(d) == (std::vector<std::string>{"apiVersion", "kind"}), boost::test_tools::per_element());
    Configuration c2;
    auto r = loadConfiguration("/nonexistent/config.yaml", c2);
    BOOST_TEST(!r.ok());
    auto tmp = std::filesystem::temp_directory_path() / ("cfg-" + std::to_string(::getpid()) + ".yaml");
    std::ofstream(tmp) << "a: [unclosed\n";
    auto r2 = loadConfiguration(tmp.string(), c2);
    BOOST_TEST(!r2.ok());
    std::filesystem::remove(tmp);
}

BOOST_AUTO_TEST_SUITE_END()
