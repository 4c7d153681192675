// Test helpers for the trainjobstatus plugin: Info documents shaped like upstream's test
// cases (trainjobstatus_test.go), with the operator block as data (namespaces, ports, gates the
// host would not send are cases here), and the plugin's hooks called on the fake host with the
// edits applied by the operator's own ledger (TrainerSDK::testing).
#pragma once

#include "tls_config.hpp"
#include "trainjobstatus.hpp"

#include <trainer/testing/real_host.hpp>

#include <boost/json.hpp>

#include <string>
#include <vector>

namespace tjstest {

namespace json = boost::json;
namespace sdk = trainer::sdk;
namespace tjs = trainer::plugins::trainjobstatus;

// upstream's test configuration: CertManagement + StatusServer{Port: 10443}, gate on.
inline json::object operatorBlock(bool gateOn = true) {
    return json::object{{"namespace", "kubeflow-system"},
                        {"serviceName", "kubeflow-trainer-controller-manager"},
                        {"webhookSecretName", "kubeflow-trainer-webhook-cert"},
                        {"statusServer", json::object{{"port", 10443}}},
                        {"featureGates", json::object{{"TrainJobStatus", gateOn}}}};
}

inline json::object container(std::string_view name) {
    return json::object{{"name", name}, {"env", json::array{}}, {"ports", json::array{}}, {"volumeMounts", json::array{}}};
}

inline json::object podSet(std::string_view name, json::value ancestor, int64_t count, json::array containers) {
    return json::object{{"name", name},           {"ancestor", std::move(ancestor)},
                        {"count", count},         {"containers", std::move(containers)},
                        {"initContainers", json::array{}}, {"volumes", json::array{}},
                        {"endpoints", json::array{}}};
}

// An Info for TrainJob default/test-job (uid test-uid) with these PodSets and operator block
// (none when `op` is null).
inline json::object makeInfo(json::array podSets, json::value op = operatorBlock()) {
    json::object info{
        {"infoVersion", 1},
        {"trainJob", json::object{{"apiVersion", "trainer.kubeflow.org/v1alpha1"},
                                  {"kind", "TrainJob"},
                                  {"metadata", json::object{{"name", "test-job"}, {"namespace", "default"}, {"uid", "test-uid"}}},
                                  {"spec", json::object{{"trainer", json::object{{"numNodes", 1}}}}}}},
        {"runtime", json::object{{"kind", "ClusterTrainingRuntime"}, {"metadata", json::object{{"name", "rt"}}}}},
        {"labels", json::object{}},
        {"annotations", json::object{}},
        {"runtimePolicy", json::object{}},
        {"scheduler", json::object{{"podLabels", json::object{}}, {"podAnnotations", json::object{}}}},
        {"jobSetSpec", json::object{{"replicatedJobs", json::array{}}}},
        {"podSets", std::move(podSets)}};
    if (!op.is_null()) info["operator"] = std::move(op);
    return info;
}

struct Run {
    json::object info;                          // after the edits
    std::vector<json::value> emitted;           // edits or objects
    std::vector<sdk::testing::Diagnostic> errors;
    std::string ledgerError;                    // the host refusing an edit
};

// EnforcePodSpec, then the edits applied as the host applies them.
inline Run enforce(json::object infoDoc) {
    sdk::testing::Host host;
    auto ctx = host.context("trainjobstatus");
    tjs::TrainJobStatusPlugin plugin(json::object{}, ctx);
    sdk::Edits edits(ctx);
    plugin.enforcePodSpec(sdk::Info(infoDoc), edits, ctx);
    auto applied = sdk::testing::applyEdits(infoDoc, host.emitted, "trainjobstatus");
    Run r{applied.info, host.emitted, host.errors(), {}};
    for (auto const& e : applied.errors()) r.ledgerError += e.message;
    return r;
}

// ComponentBuilder with `cluster` as what lookup() finds.
inline Run build(json::object infoDoc, std::vector<json::object> cluster = {}) {
    sdk::testing::Host host;
    host.cluster = std::move(cluster);
    auto ctx = host.context("trainjobstatus");
    tjs::TrainJobStatusPlugin plugin(json::object{}, ctx);
    sdk::Objects objects(ctx);
    plugin.build(sdk::Info(infoDoc), objects, ctx);
    return Run{infoDoc, host.emitted, host.errors(), {}};
}

// The webhook certificate Secret in the operator namespace with `data` (base64 values).
inline json::object webhookSecret(json::object data, std::string_view ns = "kubeflow-system") {
    return json::object{{"apiVersion", "v1"},
                        {"kind", "Secret"},
                        {"metadata", json::object{{"name", "kubeflow-trainer-webhook-cert"}, {"namespace", ns}}},
                        {"data", std::move(data)}};
}

}  // namespace tjstest
