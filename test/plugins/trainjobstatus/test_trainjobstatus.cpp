// Ported from upstream pkg/runtime/framework/plugins/trainjobstatus/trainjobstatus_test.go
// (TestEnforcePodSpec, TestBuild), plus the cases our host model adds (the gate and the
// operator block as data, init containers, upserts over runtime values, Secret variants).
// Objects are compared as serialised JSON, so field order is checked too.
#define BOOST_TEST_MODULE plugin_trainjobstatus
#include <boost/test/unit_test.hpp>

#include "support.hpp"

using namespace tjstest;

namespace {

const char* kUrl =
    "https://kubeflow-trainer-controller-manager.kubeflow-system.svc:10443/apis/trainer.kubeflow.org/v1alpha1/"
    "namespaces/default/trainjobs/test-job/status";

// A trainer container after EnforcePodSpec, upstream's wantInfo.
std::string wantContainer(std::string_view name, std::string_view url = kUrl) {
    return std::string(R"({"name":")") + std::string(name) + R"(","env":[)" +
           R"({"name":"KUBEFLOW_TRAINER_SERVER_URL","value":")" + std::string(url) + R"("},)" +
           R"({"name":"KUBEFLOW_TRAINER_SERVER_CA_CERT","value":"/var/run/secrets/kubeflow/trainer/ca.crt"},)" +
           R"({"name":"KUBEFLOW_TRAINER_SERVER_TOKEN","value":"/var/run/secrets/kubeflow/trainer/token"}],)" +
           R"("ports":[],"volumeMounts":[{"name":"kubeflow-trainer-token","mountPath":"/var/run/secrets/kubeflow/trainer","readOnly":true}]})";
}

const char* kWantVolume =
    R"({"name":"kubeflow-trainer-token","projected":{"sources":[)"
    R"({"serviceAccountToken":{"audience":"trainer.kubeflow.org/v1alpha1/namespaces/default/trainjobs/test-job/status","expirationSeconds":3600,"path":"token"}},)"
    R"({"configMap":{"name":"test-job-tls-config","items":[{"key":"ca.crt","path":"ca.crt"}]}}]}})";

const char* kWantConfigMap =
    R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"test-job-tls-config","namespace":"default",)"
    R"("ownerReferences":[{"apiVersion":"trainer.kubeflow.org/v1alpha1","kind":"TrainJob","name":"test-job","uid":"test-uid","controller":true,"blockOwnerDeletion":true}]},)"
    R"("data":{"ca.crt":"test-ca-cert-data"}})";

const json::object& firstPodSet(const Run& r) { return r.info.at("podSets").as_array().at(0).as_object(); }

// base64("test-ca-cert-data")
const char* kCaB64 = "dGVzdC1jYS1jZXJ0LWRhdGE=";

}  // namespace

BOOST_AUTO_TEST_SUITE(enforce_pod_spec)

BOOST_AUTO_TEST_CASE(does_nothing_if_no_trainer_pods) {
    auto info = makeInfo(json::array{podSet("launcher", nullptr, 1, json::array{container("launcher")})});
    auto r = enforce(info);
    BOOST_TEST(r.errors.empty());
    BOOST_TEST(r.emitted.empty());
    BOOST_TEST(json::serialize(r.info) == json::serialize(info));
}

BOOST_AUTO_TEST_CASE(injects_runtime_configuration_into_trainer_containers) {
    auto r = enforce(makeInfo(json::array{podSet("trainer", "trainer", 2, json::array{container("node")})}));
    BOOST_TEST(r.errors.empty());
    BOOST_TEST(r.ledgerError == "");
    auto const& ps = firstPodSet(r);
    BOOST_TEST(ps.at("count").as_int64() == 2);
    BOOST_REQUIRE_EQUAL(ps.at("containers").as_array().size(), 1u);
    BOOST_TEST(json::serialize(ps.at("containers").as_array()[0]) == wantContainer("node"));
    BOOST_TEST(json::serialize(ps.at("volumes")) == std::string("[") + kWantVolume + "]");
}

BOOST_AUTO_TEST_CASE(injects_runtime_configuration_into_multiple_containers) {
    auto r = enforce(
        makeInfo(json::array{podSet("trainer", "trainer", 1, json::array{container("node"), container("sidecar")})}));
    BOOST_TEST(r.errors.empty());
    BOOST_TEST(r.ledgerError == "");
    auto const& cs = firstPodSet(r).at("containers").as_array();
    BOOST_REQUIRE_EQUAL(cs.size(), 2u);
    BOOST_TEST(json::serialize(cs[0]) == wantContainer("node"));
    BOOST_TEST(json::serialize(cs[1]) == wantContainer("sidecar"));
    BOOST_TEST(json::serialize(firstPodSet(r).at("volumes")) == std::string("[") + kWantVolume + "]");
}

// Upstream touches PodSet.Containers only: init containers and other PodSets keep their spec.
BOOST_AUTO_TEST_CASE(only_the_trainer_podset_regular_containers) {
    auto trainer = podSet("node", "trainer", 1, json::array{container("node")});
    trainer["initContainers"] = json::array{container("init")};
    auto other = podSet("dataset-initializer", "dataset-initializer", 1, json::array{container("dataset-initializer")});
    auto info = makeInfo(json::array{other, trainer});
    auto r = enforce(info);
    BOOST_TEST(r.ledgerError == "");
    auto const& ps = r.info.at("podSets").as_array();
    BOOST_TEST(json::serialize(ps[0]) == json::serialize(other));
    BOOST_TEST(json::serialize(ps[1].at("initContainers")) == json::serialize(json::array{container("init")}));
    BOOST_TEST(json::serialize(ps[1].at("containers").as_array()[0]) == wantContainer("node"));
}

// apply.UpsertEnvVars / UpsertVolumeMounts / UpsertVolumes: same key replaced in place.
BOOST_AUTO_TEST_CASE(upserts_over_runtime_values_in_place) {
    auto c = container("node");
    c["env"] = json::array{json::object{{"name", "KUBEFLOW_TRAINER_SERVER_TOKEN"}, {"value", "/old"}},
                           json::object{{"name", "KEEP"}, {"value", "1"}}};
    c["volumeMounts"] = json::array{json::object{{"name", "old"}, {"mountPath", "/var/run/secrets/kubeflow/trainer"}}};
    auto ps = podSet("node", "trainer", 1, json::array{c});
    ps["volumes"] = json::array{json::object{{"name", "kubeflow-trainer-token"}, {"emptyDir", json::object{}}},
                                json::object{{"name", "data"}, {"emptyDir", json::object{}}}};
    auto r = enforce(makeInfo(json::array{ps}));
    BOOST_TEST(r.ledgerError == "");
    auto const& env = firstPodSet(r).at("containers").as_array()[0].at("env").as_array();
    BOOST_REQUIRE_EQUAL(env.size(), 4u);
    BOOST_TEST(env[0].at("name").as_string() == "KUBEFLOW_TRAINER_SERVER_TOKEN");
    BOOST_TEST(env[0].at("value").as_string() == "/var/run/secrets/kubeflow/trainer/token");
    BOOST_TEST(env[1].at("name").as_string() == "KEEP");
    BOOST_TEST(env[2].at("name").as_string() == "KUBEFLOW_TRAINER_SERVER_URL");
    BOOST_TEST(env[3].at("name").as_string() == "KUBEFLOW_TRAINER_SERVER_CA_CERT");
    auto const& mounts = firstPodSet(r).at("containers").as_array()[0].at("volumeMounts").as_array();
    BOOST_REQUIRE_EQUAL(mounts.size(), 1u);
    BOOST_TEST(mounts[0].at("name").as_string() == "kubeflow-trainer-token");
    auto const& vols = firstPodSet(r).at("volumes").as_array();
    BOOST_REQUIRE_EQUAL(vols.size(), 2u);
    BOOST_TEST(json::serialize(vols[0]) == kWantVolume);
    BOOST_TEST(vols[1].at("name").as_string() == "data");
}

BOOST_AUTO_TEST_CASE(operator_settings_come_from_the_info) {
    auto op = operatorBlock();
    op["namespace"] = "trainer-ops";
    op["serviceName"] = "my-operator";
    op["statusServer"] = json::object{{"port", 8443}};
    auto r = enforce(makeInfo(json::array{podSet("node", "trainer", 1, json::array{container("node")})}, op));
    BOOST_TEST(json::serialize(firstPodSet(r).at("containers").as_array()[0]) ==
               wantContainer("node",
                             "https://my-operator.trainer-ops.svc:8443/apis/trainer.kubeflow.org/v1alpha1/namespaces/"
                             "default/trainjobs/test-job/status"));
}

// The gate off, or a host without the operator block: the plugin stays out.
BOOST_AUTO_TEST_CASE(gate_off_or_no_operator_block_does_nothing) {
    auto ps = json::array{podSet("node", "trainer", 1, json::array{container("node")})};
    BOOST_TEST(enforce(makeInfo(ps, operatorBlock(false))).emitted.empty());
    BOOST_TEST(enforce(makeInfo(ps, nullptr)).emitted.empty());
    auto noGate = operatorBlock();
    noGate["featureGates"] = json::object{};
    BOOST_TEST(enforce(makeInfo(ps, noGate)).emitted.empty());
    BOOST_TEST(build(makeInfo(ps, operatorBlock(false))).emitted.empty());
    BOOST_TEST(build(makeInfo(ps, nullptr)).errors.empty());
}

// upstream createEnvVars: "missing status server port", before looking at the PodSets.
BOOST_AUTO_TEST_CASE(missing_status_server_port_is_an_error) {
    auto op = operatorBlock();
    op.erase("statusServer");
    auto r = enforce(makeInfo(json::array{podSet("launcher", nullptr, 1, json::array{container("launcher")})}, op));
    BOOST_REQUIRE_EQUAL(r.errors.size(), 1u);
    BOOST_TEST(r.errors[0].message == "missing status server port");
    BOOST_TEST(r.emitted.empty());
    op = operatorBlock();
    op["serviceName"] = "";
    r = enforce(makeInfo(json::array{podSet("node", "trainer", 1, json::array{container("node")})}, op));
    BOOST_REQUIRE_EQUAL(r.errors.size(), 1u);
    BOOST_TEST(r.errors[0].message == "missing operator.serviceName for the status server URL");
    BOOST_TEST(r.errors[0].path == "operator");
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(build_objects)

BOOST_AUTO_TEST_CASE(creates_configmap_with_ca_cert_from_secret) {
    auto info = makeInfo(json::array{podSet("trainer", "trainer", 2, json::array{container("node")})});
    auto r = build(info, {webhookSecret(json::object{{"ca.crt", kCaB64}})});
    BOOST_TEST(r.errors.empty());
    BOOST_REQUIRE_EQUAL(r.emitted.size(), 1u);
    BOOST_TEST(json::serialize(r.emitted[0]) == kWantConfigMap);
}

// Upstream Build does not look at the PodSets: the ConfigMap comes with every TrainJob.
BOOST_AUTO_TEST_CASE(configmap_even_without_trainer_podset) {
    auto r = build(makeInfo(json::array{}), {webhookSecret(json::object{{"ca.crt", kCaB64}})});
    BOOST_REQUIRE_EQUAL(r.emitted.size(), 1u);
    BOOST_TEST(json::serialize(r.emitted[0]) == kWantConfigMap);
}

BOOST_AUTO_TEST_CASE(returns_error_when_webhook_secret_not_found) {
    auto info = makeInfo(json::array{podSet("trainer", "trainer", 1, json::array{container("node")})});
    for (auto const& cluster : {std::vector<json::object>{},
                                // In the TrainJob's namespace, not the operator's: not the one.
                                std::vector<json::object>{webhookSecret(json::object{{"ca.crt", kCaB64}}, "default")}}) {
        auto r = build(info, cluster);
        BOOST_TEST(r.emitted.empty());
        BOOST_REQUIRE_EQUAL(r.errors.size(), 1u);
        BOOST_TEST(r.errors[0].message ==
                   "failed to look up status server tls secret: secrets \"kubeflow-trainer-webhook-cert\" not found");
    }
}

BOOST_AUTO_TEST_CASE(returns_error_when_ca_cert_is_missing_in_secret) {
    auto info = makeInfo(json::array{podSet("trainer", "trainer", 1, json::array{container("node")})});
    for (auto const& data : {json::object{{"other-key", "b3RoZXItZGF0YQ=="}}, json::object{{"ca.crt", ""}}}) {
        auto r = build(info, {webhookSecret(data)});
        BOOST_TEST(r.emitted.empty());
        BOOST_REQUIRE_EQUAL(r.errors.size(), 1u);
        BOOST_TEST(r.errors[0].message ==
                   "failed to find status server ca.crt in tls secret kubeflow-system/kubeflow-trainer-webhook-cert");
    }
    auto noData = webhookSecret({});
    noData.erase("data");
    BOOST_TEST(build(info, {noData}).errors.size() == 1u);
}

BOOST_AUTO_TEST_CASE(malformed_base64_is_an_error_not_a_crash) {
    auto info = makeInfo(json::array{podSet("trainer", "trainer", 1, json::array{container("node")})});
    auto r = build(info, {webhookSecret(json::object{{"ca.crt", "not base64!"}})});
    BOOST_TEST(r.emitted.empty());
    BOOST_REQUIRE_EQUAL(r.errors.size(), 1u);
    BOOST_TEST(r.errors[0].message ==
               "failed to decode status server ca.crt in tls secret kubeflow-system/kubeflow-trainer-webhook-cert: "
               "data.ca.crt is not valid base64");
}

// A Secret written with stringData (as a render input may be): the API server would merge it.
BOOST_AUTO_TEST_CASE(string_data_wins_over_data) {
    auto secret = webhookSecret(json::object{{"ca.crt", "b2xk"}});
    secret["stringData"] = json::object{{"ca.crt", "test-ca-cert-data"}};
    auto r = build(makeInfo(json::array{}), {secret});
    BOOST_REQUIRE_EQUAL(r.emitted.size(), 1u);
    BOOST_TEST(json::serialize(r.emitted[0]) == kWantConfigMap);
}

BOOST_AUTO_TEST_CASE(secret_from_the_configured_namespace_and_name) {
    auto op = operatorBlock();
    op["namespace"] = "trainer-ops";
    op["webhookSecretName"] = "certs";
    auto secret = webhookSecret(json::object{{"ca.crt", kCaB64}}, "trainer-ops");
    secret["metadata"].as_object()["name"] = "certs";
    auto r = build(makeInfo(json::array{}, op), {secret});
    BOOST_TEST(r.errors.empty());
    BOOST_REQUIRE_EQUAL(r.emitted.size(), 1u);
    BOOST_TEST(json::serialize(r.emitted[0]) == kWantConfigMap);
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(helpers)

BOOST_AUTO_TEST_CASE(statusserver_utils) {
    BOOST_TEST(tjs::tokenAudience("ns", "job") == "trainer.kubeflow.org/v1alpha1/namespaces/ns/trainjobs/job/status");
    BOOST_TEST(tjs::statusUrlPath("ns", "job") == "/apis/trainer.kubeflow.org/v1alpha1/namespaces/ns/trainjobs/job/status");
    BOOST_TEST(tjs::tlsConfigMapName("job") == "job-tls-config");
}

BOOST_AUTO_TEST_CASE(base64) {
    std::string out;
    BOOST_TEST(tjs::decodeBase64(kCaB64, out));
    BOOST_TEST(out == "test-ca-cert-data");
    BOOST_TEST(tjs::decodeBase64("", out));
    BOOST_TEST(out.empty());
    BOOST_TEST(tjs::decodeBase64("YQ==", out));
    BOOST_TEST(out == "a");
    BOOST_TEST(tjs::decodeBase64("YWI=", out));
    BOOST_TEST(out == "ab");
    BOOST_TEST(tjs::decodeBase64("YWJj\nZGVm\r\n", out));
    BOOST_TEST(out == "abcdef");
    for (auto bad : {"YQ", "Y===", "YQ=a", "YQ==YQ==", "YW J", "****"}) BOOST_TEST(!tjs::decodeBase64(bad, out), bad);
}

BOOST_AUTO_TEST_SUITE_END()
