#include <boost/test/unit_test.hpp>

#include "core/executor/env_resolver.hpp"
#include "core/executor/spec_fields.hpp"
#include "core/store/memory_store.hpp"
#include "podspec_fixture.hpp"

using namespace trainer::core;
using namespace trainer::core::executor;
using namespace podspec_test;

namespace {

const PodRuntimeFacts kFacts{"10.0.0.7", "192.168.1.2", "trainer-local", {}, 8000, 16LL << 30};

// Resolves the env of container 0 of a pod with `containers` (JSON array text).
ResolvedEnv resolve(const ClusterReader& cluster, std::string_view containers, const PodRuntimeFacts& facts = kFacts) {
    json::object p = pod(std::string(R"({"containers":)") + std::string(containers) + "}");
    const json::object& c = p["spec"].as_object()["containers"].as_array()[0].as_object();
    return resolveEnv(p, c, cluster, facts);
}

std::vector<std::string> render(const std::vector<EnvVar>& env) {
    std::vector<std::string> out;
    for (auto const& v : env) out.push_back(v.name + "=" + v.value);
    return out;
}

std::string message(const ResolvedEnv& r) { return r.problem ? r.problem->message : "(no problem)"; }

ObjectSet cluster() {
    ObjectSet s;
    s.put(configMap("team", "cfg", {{"B", "b-from-cm"}, {"A", "a-from-cm"}, {"bad=key", "x"}}));
    s.put(secret("team", "creds", {{"password", "czNjcjN0"}, {"token", "dG9r"}}));  // s3cr3t, tok
    s.put(configMap("other", "cfg", {{"A", "wrong namespace"}}));
    return s;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(env_resolver)

BOOST_AUTO_TEST_CASE(env_from_then_env_in_order_with_overrides_in_place) {
    auto r = resolve(cluster(), R"([{"name":"c","envFrom":[
        {"configMapRef":{"name":"cfg"}},
        {"prefix":"S_","secretRef":{"name":"creds"}}],
      "env":[{"name":"C","value":"1"},{"name":"A","value":"env-wins"},{"name":"C","value":"2"},{"name":"EMPTY"}]}])");
    BOOST_TEST(!r.problem, message(r));
    // "bad=key" cannot be a variable name and is skipped; keys of one source are sorted.
    BOOST_TEST(render(r.env) == (std::vector<std::string>{"A=env-wins", "B=b-from-cm", "S_password=s3cr3t",
                                                          "S_token=tok", "C=2", "EMPTY="}),
               boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(values_expand_against_variables_defined_so_far) {
    auto r = resolve(cluster(), R"J([{"name":"c","envFrom":[{"configMapRef":{"name":"cfg"}}],"env":[
        {"name":"X","value":"x"},
        {"name":"Y","value":"$(X)-$(A)-$(LATER)"},
        {"name":"Z","value":"$$(X) $$$(X) $(UNDEFINED) $(X"},
        {"name":"REF","value":"$(Y)"},
        {"name":"NESTED","value":"$(X$(X))"},
        {"name":"LATER","value":"later"},
        {"name":"X","value":"$(X)$(X)"}]}])J");
    BOOST_TEST(!r.problem, message(r));
    BOOST_TEST(render(r.env) == (std::vector<std::string>{"A=a-from-cm", "B=b-from-cm", "X=xx", "Y=x-a-from-cm-$(LATER)",
                                                          "Z=$(X) $x $(UNDEFINED) $(X", "REF=x-a-from-cm-$(LATER)",
                                                          "NESTED=$(X$(X))", "LATER=later"}),
               boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(key_refs_read_config_maps_and_decode_secrets) {
    auto r = resolve(cluster(), R"J([{"name":"c","env":[
        {"name":"FROM_CM","valueFrom":{"configMapKeyRef":{"name":"cfg","key":"B"}}},
        {"name":"FROM_SECRET","valueFrom":{"secretKeyRef":{"name":"creds","key":"password"}}},
        {"name":"OPT_NO_OBJECT","valueFrom":{"configMapKeyRef":{"name":"absent","key":"k","optional":true}}},
        {"name":"OPT_NO_KEY","valueFrom":{"secretKeyRef":{"name":"creds","key":"nope","optional":true}}},
        {"name":"LITERAL","value":"$(OPT_NO_KEY)"}]}])J");
    BOOST_TEST(!r.problem, message(r));
    BOOST_TEST(render(r.env) == (std::vector<std::string>{"FROM_CM=b-from-cm", "FROM_SECRET=s3cr3t", "LITERAL=$(OPT_NO_KEY)"}),
               boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(missing_objects_and_keys_use_the_kubelet_messages) {
    const std::pair<std::string, std::string> cases[] = {
        {R"({"configMapKeyRef":{"name":"cfg","key":"nope"}})", "couldn't find key nope in ConfigMap team/cfg"},
        {R"({"secretKeyRef":{"name":"creds","key":"nope"}})", "couldn't find key nope in Secret team/creds"},
        {R"({"configMapKeyRef":{"name":"absent","key":"k"}})", "configmap \"absent\" not found"},
        {R"({"secretKeyRef":{"name":"absent","key":"k"}})", "secret \"absent\" not found"},
    };
    for (auto const& [valueFrom, want] : cases) {
        auto r = resolve(cluster(), R"([{"name":"c","env":[{"name":"V","valueFrom":)" + valueFrom + "}]}]");
        BOOST_REQUIRE(r.problem);
        BOOST_TEST(r.problem->reason == "CreateContainerConfigError");
        BOOST_TEST(r.problem->message == want);
    }
    auto missingFrom = resolve(cluster(), R"([{"name":"c","envFrom":[{"secretRef":{"name":"absent"}}]}])");
    BOOST_TEST(message(missingFrom) == "secret \"absent\" not found");
    auto optionalFrom = resolve(cluster(), R"([{"name":"c","envFrom":[{"secretRef":{"name":"absent","optional":true}}]}])");
    BOOST_TEST(!optionalFrom.problem);
    BOOST_TEST(optionalFrom.env.empty());
}

BOOST_AUTO_TEST_CASE(secrets_read_from_a_memory_store) {
    MemoryStore store;
    BOOST_REQUIRE(store.create(secret("team", "creds", {{"password", "czNjcjN0"}})).ok());
    auto r = resolve(store, R"([{"name":"c","env":[{"name":"P","valueFrom":{"secretKeyRef":{"name":"creds","key":"password"}}}]}])");
    BOOST_TEST(render(r.env) == (std::vector<std::string>{"P=s3cr3t"}), boost::test_tools::per_element());
    BOOST_REQUIRE(store.create(secret("team", "broken", {{"k", "not base64!"}})).ok());
    auto bad = resolve(store, R"([{"name":"c","env":[{"name":"P","valueFrom":{"secretKeyRef":{"name":"broken","key":"k"}}}]}])");
    BOOST_TEST(message(bad) == "Secret team/broken: data[k]: Invalid value: \"not base64!\": illegal base64 data at input byte 3");
}

BOOST_AUTO_TEST_CASE(field_refs_read_the_pod_and_the_runtime_facts) {
    PodRuntimeFacts facts = kFacts;
    facts.podIPs = {"10.0.0.7", "fd00::7"};
    auto r = resolve(ObjectSet(), R"([{"name":"c","env":[
        {"name":"INDEX","valueFrom":{"fieldRef":{"fieldPath":"metadata.annotations['batch.kubernetes.io/job-completion-index']"}}},
        {"name":"NAME","valueFrom":{"fieldRef":{"apiVersion":"v1","fieldPath":"metadata.name"}}},
        {"name":"NS","valueFrom":{"fieldRef":{"fieldPath":"metadata.namespace"}}},
        {"name":"UID","valueFrom":{"fieldRef":{"fieldPath":"metadata.uid"}}},
        {"name":"APP","valueFrom":{"fieldRef":{"fieldPath":"metadata.labels['app']"}}},
        {"name":"NONE","valueFrom":{"fieldRef":{"fieldPath":"metadata.labels['absent']"}}},
        {"name":"LABELS","valueFrom":{"fieldRef":{"fieldPath":"metadata.labels"}}},
        {"name":"NOTES","valueFrom":{"fieldRef":{"fieldPath":"metadata.annotations"}}},
        {"name":"NODE","valueFrom":{"fieldRef":{"fieldPath":"spec.nodeName"}}},
        {"name":"SA","valueFrom":{"fieldRef":{"fieldPath":"spec.serviceAccountName"}}},
        {"name":"HOST_IP","valueFrom":{"fieldRef":{"fieldPath":"status.hostIP"}}},
        {"name":"POD_IP","valueFrom":{"fieldRef":{"fieldPath":"status.podIP"}}},
        {"name":"POD_IPS","valueFrom":{"fieldRef":{"fieldPath":"status.podIPs"}}}]}])",
                     facts);
    BOOST_TEST(!r.problem, message(r));
    BOOST_TEST(render(r.env) ==
                   (std::vector<std::string>{
                       "INDEX=3", "NAME=job-0-abc", "NS=team", "UID=1234-uid", "APP=train", "NONE=",
                       "LABELS=app=\"train\"\ntier=\"gpu\"",
                       "NOTES=batch.kubernetes.io/job-completion-index=\"3\"\nnote=\"a \\\"quoted\\\"\\nline\"",
                       "NODE=trainer-local", "SA=", "HOST_IP=192.168.1.2", "POD_IP=10.0.0.7",
                       "POD_IPS=10.0.0.7,fd00::7"}),
               boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(unsupported_field_refs_are_config_errors) {
    const std::pair<std::string, std::string> cases[] = {
        {R"({"fieldPath":"spec.foo"})", "field label not supported: spec.foo"},
        {R"({"fieldPath":"spec.nodeName['x']"})", "field label does not support subscript: spec.nodeName['x']"},
        {R"({"apiVersion":"v2","fieldPath":"metadata.name"})", "unsupported pod version: v2"},
        {R"({"fieldPath":"status.phase"})", "unsupported fieldPath: status.phase"},
        {R"({"apiVersion":"v1"})", "spec.containers[0].env[0].valueFrom.fieldRef.fieldPath: Required value"},
    };
    for (auto const& [ref, want] : cases) {
        auto r = resolve(ObjectSet(), R"([{"name":"c","env":[{"name":"V","valueFrom":{"fieldRef":)" + ref + "}}]}]");
        BOOST_TEST(message(r) == want);
    }
}

BOOST_AUTO_TEST_CASE(resource_field_refs_apply_divisors_and_defaults) {
    auto r = resolve(ObjectSet(), R"([{"name":"c","resources":{"limits":{"cpu":"500m","memory":"1Gi"},"requests":{"cpu":0.25}},
      "env":[
        {"name":"CPU","valueFrom":{"resourceFieldRef":{"resource":"limits.cpu"}}},
        {"name":"MILLI","valueFrom":{"resourceFieldRef":{"resource":"limits.cpu","divisor":"1m"}}},
        {"name":"REQ_CPU","valueFrom":{"resourceFieldRef":{"resource":"requests.cpu","divisor":"1m"}}},
        {"name":"MEM_MI","valueFrom":{"resourceFieldRef":{"resource":"limits.memory","divisor":"1Mi"}}},
        {"name":"REQ_MEM","valueFrom":{"resourceFieldRef":{"resource":"requests.memory"}}},
        {"name":"SIDE_CPU","valueFrom":{"resourceFieldRef":{"containerName":"side","resource":"limits.cpu"}}},
        {"name":"SIDE_MEM","valueFrom":{"resourceFieldRef":{"containerName":"side","resource":"limits.memory","divisor":"1Gi"}}},
        {"name":"SIDE_REQ","valueFrom":{"resourceFieldRef":{"containerName":"side","resource":"requests.cpu"}}}]},
      {"name":"side"}])");
    BOOST_TEST(!r.problem, message(r));
    // Without limits the side container sees the node's allocatable (8 cpus, 16Gi).
    BOOST_TEST(render(r.env) == (std::vector<std::string>{"CPU=1", "MILLI=500", "REQ_CPU=250", "MEM_MI=1024",
                                                          "REQ_MEM=1073741824", "SIDE_CPU=8", "SIDE_MEM=16", "SIDE_REQ=0"}),
               boost::test_tools::per_element());
    const std::pair<std::string, std::string> bad[] = {
        {R"({"resource":"limits.gpu"})", "unsupported container resource : limits.gpu"},
        {R"({"containerName":"ghost","resource":"limits.cpu"})", "container ghost not found"},
        {R"({"resource":"limits.cpu","divisor":"lots"})",
         "spec.containers[0].env[0].valueFrom.resourceFieldRef.divisor: Invalid value: \"lots\": must be a valid resource quantity"},
    };
    for (auto const& [ref, want] : bad) {
        auto e = resolve(ObjectSet(), R"([{"name":"c","env":[{"name":"V","valueFrom":{"resourceFieldRef":)" + ref + "}}]}]");
        BOOST_TEST(message(e) == want);
    }
}

BOOST_AUTO_TEST_CASE(malformed_entries_name_their_field_path) {
    const std::pair<std::string, std::string> cases[] = {
        {R"("env":{"A":"1"})", R"(spec.containers[0].env: Invalid value: {"A":"1"}: must be an array)"},
        {R"("env":[{"name":"A","value":"1"},{"name":"B"},3])", "spec.containers[0].env[2]: Invalid value: 3: must be an object"},
        {R"("env":[{"name":"A","value":7}])", "spec.containers[0].env[0].value: Invalid value: 7: must be a string"},
        {R"("env":[{"value":"x"}])", "spec.containers[0].env[0].name: Required value"},
        {R"("env":[{"name":"A=B","value":"x"}])",
         "spec.containers[0].env[0].name: Invalid value: \"A=B\": a valid environment variable name must consist only of "
         "printable ASCII characters other than '='"},
        {R"("env":[{},{},{"name":"C","valueFrom":"cfg"}])",
         "spec.containers[0].env[0].name: Required value"},
        {R"("env":[{"name":"A"},{"name":"B"},{"name":"C","valueFrom":"cfg"}])",
         "spec.containers[0].env[2].valueFrom: Invalid value: \"cfg\": must be an object"},
        {R"("env":[{"name":"A","valueFrom":{}}])",
         "spec.containers[0].env[0].valueFrom: Invalid value: {}: must specify one of: `fieldRef`, `resourceFieldRef`, "
         "`configMapKeyRef` or `secretKeyRef`"},
        {R"("env":[{"name":"A","valueFrom":{"configMapKeyRef":{"name":"cfg","key":"B","optional":"yes"}}}])",
         "spec.containers[0].env[0].valueFrom.configMapKeyRef.optional: Invalid value: \"yes\": must be a boolean"},
        {R"("envFrom":[{"prefix":1,"configMapRef":{"name":"cfg"}}])",
         "spec.containers[0].envFrom[0].prefix: Invalid value: 1: must be a string"},
        {R"("envFrom":[{"prefix":"P_"}])",
         "spec.containers[0].envFrom[0]: Invalid value: {\"prefix\":\"P_\"}: must specify one of: `configMapRef` or `secretRef`"},
    };
    for (auto const& [fields, want] : cases) {
        auto r = resolve(cluster(), R"([{"name":"c",)" + fields + "}]");
        BOOST_REQUIRE(r.problem);
        BOOST_TEST(r.problem->reason == "CreateContainerConfigError");
        BOOST_TEST(r.problem->message == want);
    }
}

BOOST_AUTO_TEST_CASE(container_paths_follow_the_container_list) {
    json::object p = pod(R"({"initContainers":[{"name":"init","env":[7]}],"containers":[{"name":"main"}]})");
    const json::object& init = p["spec"].as_object()["initContainers"].as_array()[0].as_object();
    BOOST_TEST(containerFieldPath(p, init) == "spec.initContainers[0]");
    json::object copy = init;  // not inside the pod: matched by name
    BOOST_TEST(containerFieldPath(p, copy) == "spec.initContainers[0]");
    BOOST_TEST(containerFieldPath(p, obj(R"({"name":"ghost"})")) == "container \"ghost\"");
    auto r = resolveEnv(p, init, ObjectSet(), kFacts);
    BOOST_TEST(message(r) == "spec.initContainers[0].env[0]: Invalid value: 7: must be an object");
}

BOOST_AUTO_TEST_SUITE_END()
