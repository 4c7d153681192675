// PreComponentBuilder and ComponentBuilder of the jobset plugin (upstream PreBuildSync and Build in
// https://github.com/kubeflow/trainer/blob/8c0f5059bd51ec3ba6d6a6a7b2e1471de7bc13b3/pkg/runtime/framework/plugins/jobset/jobset.go,
// builder.go beside it; the worked example of fixtures.hpp).
#define BOOST_TEST_MODULE jobset_test
#include <boost/test/unit_test.hpp>

#include "fixtures.hpp"

#include <functional>

using namespace trainer::testkit;
namespace testing = trainer::sdk::testing;

BOOST_AUTO_TEST_SUITE(prebuild)

BOOST_AUTO_TEST_CASE(worked_example_parallelism_and_endpoints) {
    auto out = JobSetHost().preBuild(workedExampleInfo());
    BOOST_TEST_REQUIRE(out.ok(), out.describe());
    const json::object& info = out.info;
    struct Row { const char* job; int64_t count; };
    for (Row r : {Row{"dataset-initializer", 1}, Row{"model-initializer", 1}, Row{"node", 100}}) {
        std::string base = std::string("/jobSetSpec/replicatedJobs/") + r.job + "/template/spec/";
        auto rjs = info.at("jobSetSpec").at("replicatedJobs").as_array();
        const auto* rj = sdk::findByKey(&rjs, "name", r.job);
        BOOST_REQUIRE(rj);
        BOOST_TEST(rj->at("template").at("spec").at("parallelism").as_int64() == r.count, r.job);
        BOOST_TEST(rj->at("template").at("spec").at("completions").as_int64() == r.count, r.job);
    }
    const auto& node = info.at("podSets").as_array()[2].at("endpoints").as_array();
    BOOST_REQUIRE_EQUAL(node.size(), 100u);
    BOOST_TEST(node[0].as_string() == "test-job-node-0-0.test-job");
    BOOST_TEST(node[99].as_string() == "test-job-node-0-99.test-job");
    const auto& ds = info.at("podSets").as_array()[0].at("endpoints").as_array();
    BOOST_REQUIRE_EQUAL(ds.size(), 1u);
    BOOST_TEST(ds[0].as_string() == "test-job-dataset-initializer-0-0.test-job");
}

json::object endpointInfo(const char* network, int64_t nodeReplicas, int64_t nodeCount) {
    auto info = obj(R"({"infoVersion":1,
      "trainJob":{"metadata":{"name":"trainjob","namespace":"default","uid":"u"},"spec":{}},
      "jobSetSpec":{"replicatedJobs":[
        {"name":"launcher","template":{"spec":{"parallelism":1,"template":{"spec":{"containers":[{"name":"node"}]}}}}},
        {"name":"node","template":{"spec":{"parallelism":1,"template":{"spec":{"containers":[{"name":"node"}]}}}}}]},
      "podSets":[{"name":"launcher","ancestor":"trainer","count":1,"containers":[{"name":"node"}],"endpoints":[]},
                 {"name":"node","ancestor":null,"count":1,"containers":[{"name":"node"}],"endpoints":[]}]})");
    auto& spec = info["jobSetSpec"].as_object();
    if (network) spec["network"] = obj(network);
    spec["replicatedJobs"].as_array()[1].as_object()["replicas"] = nodeReplicas;
    info["podSets"].as_array()[1].as_object()["count"] = nodeCount;
    return info;
}

BOOST_AUTO_TEST_CASE(endpoints_table) {
    struct Case {
        const char* name;
        const char* network;
        int64_t replicas, count;
        std::vector<std::string> launcher, node;
    };
    const std::vector<Case> cases = {
        {"default subdomain is the TrainJob name", nullptr, 1, 2,
         {"trainjob-launcher-0-0.trainjob"}, {"trainjob-node-0-0.trainjob", "trainjob-node-0-1.trainjob"}},
        {"custom subdomain and replicas > 1", R"({"subdomain":"kubeflow.org"})", 2, 2,
         {"trainjob-launcher-0-0.kubeflow.org"},
         {"trainjob-node-0-0.kubeflow.org", "trainjob-node-0-1.kubeflow.org", "trainjob-node-1-0.kubeflow.org",
          "trainjob-node-1-1.kubeflow.org"}},
        {"network without subdomain", R"({"enableDNSHostnames":true})", 1, 1,
         {"trainjob-launcher-0-0.trainjob"}, {"trainjob-node-0-0.trainjob"}},
        {"count 0 has no endpoints", nullptr, 1, 0, {"trainjob-launcher-0-0.trainjob"}, {}},
    };
    for (auto const& c : cases) {
        BOOST_TEST_CONTEXT(c.name) {
            auto out = JobSetHost().preBuild(endpointInfo(c.network, c.replicas, c.count));
            BOOST_TEST_REQUIRE(out.ok(), out.describe());
            const json::object& info = out.info;
            auto got = [&](size_t i) {
                std::vector<std::string> v;
                for (auto const& e : info.at("podSets").as_array()[i].at("endpoints").as_array())
                    v.emplace_back(e.as_string());
                return v;
            };
            BOOST_TEST(got(0) == c.launcher, boost::test_tools::per_element());
            BOOST_TEST(got(1) == c.node, boost::test_tools::per_element());
            BOOST_TEST(info.at("jobSetSpec").at("replicatedJobs").at(1).at("template").at("spec").at("parallelism").as_int64() ==
                       c.count);
        }
    }
}

BOOST_AUTO_TEST_CASE(podset_without_replicated_job_of_that_name_gets_no_parallelism) {
    testing::Host host;
    auto info = obj(R"({"trainJob":{"metadata":{"name":"t","namespace":"d"},"spec":{}},
      "jobSetSpec":{"replicatedJobs":[{"name":"node","template":{"spec":{"parallelism":1,"completions":1}}}]},
      "podSets":[{"name":"non-existent","count":3}]})");
    auto ctx = host.context("jobset");
    JobSet plugin(json::object{}, ctx);
    sdk::Edits edits(ctx);
    plugin.preBuild(sdk::Info(info), edits, ctx);
    for (auto const& e : host.emitted)
        BOOST_TEST(std::string(e.at("path").as_string()).find("parallelism") == std::string::npos);
    // The endpoint edit still pairs positionally, with the replicated job's name.
    BOOST_REQUIRE_EQUAL(host.emitted.size(), 1u);
    BOOST_TEST(host.emitted[0].at("path").as_string() == "/podSets/non-existent/endpoints");
    BOOST_TEST(host.emitted[0].at("value").as_array().size() == 3u);
    BOOST_TEST(host.emitted[0].at("value").as_array()[2].as_string() == "t-node-0-2.t");
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(build)

BOOST_AUTO_TEST_CASE(worked_example_jobset) {
    json::object js = JobSetHost().buildOne(workedExampleInfo());
    BOOST_TEST(js.at("apiVersion").as_string() == "jobset.x-k8s.io/v1alpha2");
    BOOST_TEST(js.at("kind").as_string() == "JobSet");
    const auto& md = js.at("metadata").as_object();
    BOOST_TEST(md.at("name").as_string() == "test-job");
    BOOST_TEST(md.at("namespace").as_string() == "default");
    BOOST_TEST(!md.contains("labels"));
    BOOST_TEST(!md.contains("annotations"));
    const auto& owner = md.at("ownerReferences").as_array().at(0).as_object();
    BOOST_TEST(owner.at("apiVersion").as_string() == "trainer.kubeflow.org/v1alpha1");
    BOOST_TEST(owner.at("kind").as_string() == "TrainJob");
    BOOST_TEST(owner.at("name").as_string() == "test-job");
    BOOST_TEST(owner.at("uid").as_string() == "uid");
    BOOST_TEST(owner.at("controller").as_bool());
    BOOST_TEST(owner.at("blockOwnerDeletion").as_bool());
    BOOST_TEST(js.at("spec").at("suspend").as_bool() == false);

    BOOST_TEST(names(js.at("spec").at("replicatedJobs")) ==
                   (std::vector<std::string>{"dataset-initializer", "model-initializer", "node"}),
               boost::test_tools::per_element());
    struct Row { const char* job; int64_t n; };
    for (Row r : {Row{"dataset-initializer", 1}, Row{"model-initializer", 1}, Row{"node", 100}}) {
        const auto& rj = replicatedJob(js, r.job);
        BOOST_TEST(rj.at("replicas").as_int64() == 1, r.job);
        BOOST_TEST(rj.at("template").at("spec").at("parallelism").as_int64() == r.n, r.job);
        BOOST_TEST(rj.at("template").at("spec").at("completions").as_int64() == r.n, r.job);
        BOOST_TEST(rj.at("groupName").as_string() == "default");
    }
    BOOST_TEST(replicatedJob(js, "node").at("dependsOn").as_array().size() == 2u);

    const auto& node = containerOf(js, "node", "node");
    BOOST_TEST(node.at("image").as_string() == "test:trainjob");
    BOOST_TEST(node.at("command") == json::array({"trainjob"}));
    BOOST_TEST(node.at("args") == json::array({"trainjob"}));
    BOOST_TEST(node.at("resources") == obj(R"({"requests":{"cpu":"1"}})"));
    BOOST_TEST(names(node.at("env")) ==
                   (std::vector<std::string>{"TRAIN_JOB", "RUNTIME", "TRAIN_JOB_CUSTOM", "PET_NNODES",
                                             "PET_NPROC_PER_NODE", "PET_NODE_RANK", "PET_MASTER_ADDR",
                                             "PET_MASTER_PORT"}),
               boost::test_tools::per_element());
    auto env = [&](const char* n) { return sdk::findByKey(&node.at("env").as_array(), "name", n); };
    BOOST_TEST(env("TRAIN_JOB")->at("value").as_string() == "override");
    BOOST_TEST(env("RUNTIME")->at("value").as_string() == "test:runtime");
    BOOST_TEST(env("PET_NNODES")->at("value").as_string() == "100");
    BOOST_TEST(env("PET_MASTER_ADDR")->at("value").as_string() == "test-job-node-0-0.test-job");
    BOOST_TEST(env("PET_NODE_RANK")->at("valueFrom").at("fieldRef").at("fieldPath").as_string() ==
               "metadata.annotations['batch.kubernetes.io/job-completion-index']");
    BOOST_TEST(node.at("ports") == json::array({json::object{{"containerPort", 29500}}}));
    BOOST_TEST(names(node.at("volumeMounts"), "mountPath") ==
                   (std::vector<std::string>{"/workspace/dataset", "/workspace/model"}),
               boost::test_tools::per_element());
    BOOST_TEST(podSpecOf(replicatedJob(js, "node")).at("volumes").as_array().size() == 1u);
    // Initializer containers keep the runtime's values when the TrainJob has no initializer.
    const auto& ds = containerOf(js, "dataset-initializer", "dataset-initializer");
    BOOST_TEST(ds.at("image").as_string() == "test:runtime");
    BOOST_TEST(!ds.contains("envFrom"));
}

BOOST_AUTO_TEST_CASE(initializer_env_and_env_from) {
    json::object info = workedExampleInfo();
    auto& spec = info["trainJob"].as_object()["spec"].as_object();
    spec["initializer"] = obj(R"({
      "dataset": {"storageUri": "hf://datasets/x", "env": [{"name": "DS_EXTRA", "value": "1"}, {"name": "STORAGE_URI", "value": "from-env"}],
                  "secretRef": {"name": "ds-secret"}},
      "model": {"storageUri": "hf://models/y"}})");
    // The runtime's dataset container already has STORAGE_URI: replaced in place.
    auto& rj0 = info["jobSetSpec"].as_object()["replicatedJobs"].as_array()[0].as_object();
    rj0["replicas"] = 3;
    auto& dsc = rj0["template"].as_object()["spec"].as_object()["template"].as_object()["spec"]
                    .as_object()["containers"].as_array()[0].as_object();
    dsc["env"] = json::parse(R"([{"name":"FIRST","value":"a"},{"name":"STORAGE_URI","value":"old"}])");

    json::object js = JobSetHost().buildOne(info);
    const auto& ds = containerOf(js, "dataset-initializer", "dataset-initializer");
    BOOST_TEST(ds.at("env") == json::parse(R"([{"name":"FIRST","value":"a"},{"name":"STORAGE_URI","value":"from-env"},
                                              {"name":"DS_EXTRA","value":"1"}])"));
    BOOST_TEST(ds.at("envFrom") == json::parse(R"([{"secretRef":{"name":"ds-secret"}}])"));
    BOOST_TEST(replicatedJob(js, "dataset-initializer").at("replicas").as_int64() == 1);
    const auto& m = containerOf(js, "model-initializer", "model-initializer");
    BOOST_TEST(m.at("env") == json::parse(R"([{"name":"STORAGE_URI","value":"hf://models/y"}])"));
    BOOST_TEST(!m.contains("envFrom"));
}

BOOST_AUTO_TEST_CASE(existing_jobset_skip_rule) {
    struct Case {
        const char* name;
        bool trainJobSuspend;
        bool exists;
        bool jobSetSuspend;
        bool built;
    };
    const Case cases[] = {
        {"new JobSet is built", false, false, false, true},
        {"existing running JobSet: nothing emitted", false, true, false, false},
        {"TrainJob suspended: rebuilt with suspend true", true, true, false, true},
        {"resuming from a suspended JobSet: rebuilt with suspend false", false, true, true, true},
        {"both suspended: rebuilt", true, true, true, true},
    };
    for (auto const& c : cases) {
        BOOST_TEST_CONTEXT(c.name) {
            json::object info = workedExampleInfo();
            info["trainJob"].as_object()["spec"].as_object()["suspend"] = c.trainJobSuspend;
            std::vector<json::object> cluster;
            if (c.exists)
                cluster.push_back(obj(std::string(R"({"apiVersion":"jobset.x-k8s.io/v1alpha2","kind":"JobSet",
                    "metadata":{"name":"test-job","namespace":"default"},"spec":{"suspend":)") +
                                      (c.jobSetSuspend ? "true" : "false") + "}}"));
            auto out = JobSetHost(cluster).host.run({testing::Hook::PreComponentBuilder, testing::Hook::ComponentBuilder}, info);
            BOOST_TEST(out.ok(), out.describe());
            BOOST_REQUIRE_EQUAL(out.objects.size(), c.built ? 1u : 0u);
            if (c.built) BOOST_TEST(out.objects[0].at("spec").at("suspend").as_bool() == c.trainJobSuspend);
        }
    }
}

BOOST_AUTO_TEST_CASE(jobset_in_other_namespace_does_not_count) {
    JobSetHost h({obj(R"({"apiVersion":"jobset.x-k8s.io/v1alpha2","kind":"JobSet",
        "metadata":{"name":"test-job","namespace":"other"},"spec":{}})")});
    BOOST_TEST(h.buildOne(workedExampleInfo()).at("kind").as_string() == "JobSet");
}

BOOST_AUTO_TEST_CASE(suspend_absent_is_omitted_and_runtime_suspend_dropped) {
    json::object info = workedExampleInfo();
    info["trainJob"].as_object()["spec"].as_object().erase("suspend");
    info["jobSetSpec"].as_object()["suspend"] = true;
    json::object js = JobSetHost().buildOne(info);
    BOOST_TEST(!js.at("spec").as_object().contains("suspend"));
}

BOOST_AUTO_TEST_CASE(labels_annotations_and_scheduler_pod_metadata) {
    json::object info = workedExampleInfo();
    info["labels"] = obj(R"({"team":"a"})");
    info["annotations"] = obj(R"({"note":"b"})");
    info["scheduler"] = obj(R"({"podLabels":{"scheduling.x-k8s.io/pod-group":"test-job"},
                                 "podAnnotations":{"scheduling.k8s.io/group-name":"test-job"}})");
    auto& nodeTpl = info["jobSetSpec"].as_object()["replicatedJobs"].as_array()[2].as_object()["template"]
                        .as_object()["spec"].as_object()["template"].as_object();
    nodeTpl["metadata"] = obj(R"({"labels":{"keep":"me"}})");
    json::object js = JobSetHost().buildOne(info);
    BOOST_TEST(js.at("metadata").at("labels") == obj(R"({"team":"a"})"));
    BOOST_TEST(js.at("metadata").at("annotations") == obj(R"({"note":"b"})"));
    for (auto job : {"dataset-initializer", "model-initializer", "node"}) {
        const auto& pm = replicatedJob(js, job).at("template").at("spec").at("template").at("metadata");
        BOOST_TEST(pm.at("labels").at("scheduling.x-k8s.io/pod-group").as_string() == "test-job", job);
        BOOST_TEST(pm.at("annotations").at("scheduling.k8s.io/group-name").as_string() == "test-job", job);
    }
    BOOST_TEST(replicatedJob(js, "node").at("template").at("spec").at("template").at("metadata").at("labels")
                   .at("keep").as_string() == "me");
    // Job-template labels are untouched.
    BOOST_TEST(replicatedJob(js, "node").at("template").at("metadata").at("labels").as_object().size() == 1u);
}

BOOST_AUTO_TEST_CASE(more_podsets_than_replicated_jobs_is_an_error) {
    json::object info = workedExampleInfo();
    info["jobSetSpec"].as_object()["replicatedJobs"].as_array().pop_back();
    auto out = JobSetHost().build(info);
    BOOST_TEST(out.objects.empty());
    BOOST_REQUIRE_EQUAL(out.errors().size(), 1u);
    BOOST_TEST(out.errors()[0].message == "runtime template has 2 replicatedJobs but runtime info has 3 podSets");
}

BOOST_AUTO_TEST_CASE(podset_merge_volumes_ports_init_containers) {
    json::object info = workedExampleInfo();
    auto& ps = info["podSets"].as_array()[2].as_object();
    ps["volumes"].as_array().push_back(obj(R"({"name":"mpi-ssh-auth","secret":{"secretName":"s"}})"));
    ps["volumes"].as_array()[0] = obj(R"({"name":"initializer","emptyDir":{}})");
    auto& c = ps["containers"].as_array()[0].as_object();
    c["ports"].as_array().push_back(obj(R"({"containerPort":2222,"name":"ssh"})"));
    c["volumeMounts"].as_array().push_back(obj(R"({"name":"mpi-ssh-auth","mountPath":"/root/.ssh"})"));
    ps["initContainers"] = json::parse(R"([{"name":"init-a","image":"busybox","env":[{"name":"X","value":"1"}]}])");
    json::object js = JobSetHost().buildOne(info);
    const auto& podSpec = podSpecOf(replicatedJob(js, "node"));
    BOOST_TEST(podSpec.at("volumes") == json::parse(R"([{"name":"initializer","emptyDir":{}},
                                                        {"name":"mpi-ssh-auth","secret":{"secretName":"s"}}])"));
    const auto& node = containerOf(js, "node", "node");
    BOOST_TEST(node.at("ports").as_array().size() == 2u);
    BOOST_TEST(names(node.at("volumeMounts"), "mountPath") ==
                   (std::vector<std::string>{"/workspace/dataset", "/workspace/model", "/root/.ssh"}),
               boost::test_tools::per_element());
    BOOST_TEST(podSpec.at("initContainers") == json::parse(R"([{"name":"init-a","image":"busybox","env":[{"name":"X","value":"1"}]}])"));
    // No init containers appear where the runtime had none, and an empty PodSet env/ports list
    // adds no list either (upstream's apply configurations omit empty lists).
    BOOST_TEST(!podSpecOf(replicatedJob(js, "dataset-initializer")).contains("initContainers"));
    const auto& ds = containerOf(js, "dataset-initializer", "dataset-initializer");
    BOOST_TEST(!ds.contains("env"));
    BOOST_TEST(!ds.contains("ports"));
}

// Upstream serialises apply configurations, whose list fields are all `omitempty`: the JobSet
// never carries an empty list. Empty PodSet lists, a TrainJob's `command: []`/`args: []` (they
// still replace the runtime's, as upstream's builder assigns them) and empty lists of the
// template are all absent; empty objects (`emptyDir: {}`) stay.
BOOST_AUTO_TEST_CASE(no_empty_lists_in_the_jobset) {
    json::object info = workedExampleInfo();
    auto& trainer = info["trainJob"].as_object()["spec"].as_object()["trainer"].as_object();
    trainer["command"] = json::array{};
    trainer["args"] = json::array{};
    trainer["env"] = json::array{};
    auto& node = info["podSets"].as_array()[2].as_object()["containers"].as_array()[0].as_object();
    node["volumeMounts"] = json::array{};
    auto& rj = info["jobSetSpec"].as_object()["replicatedJobs"].as_array()[0].as_object();
    auto& podSpec = rj["template"].as_object()["spec"].as_object()["template"].as_object()["spec"].as_object();
    podSpec["tolerations"] = json::array{};
    podSpec["volumes"] = json::parse(R"([{"name":"initializer","emptyDir":{}}])");
    info["podSets"].as_array()[0].as_object()["volumes"] = podSpec["volumes"];
    json::object js = JobSetHost().buildOne(info);

    std::vector<std::string> emptyLists;
    std::function<void(const json::value&, const std::string&)> walk = [&](const json::value& v, const std::string& p) {
        if (v.is_array()) {
            if (v.as_array().empty()) emptyLists.push_back(p);
            for (size_t i = 0; i < v.as_array().size(); ++i) walk(v.as_array()[i], p + "/" + std::to_string(i));
        } else if (v.is_object()) {
            for (auto const& kv : v.as_object()) walk(kv.value(), p + "/" + std::string(kv.key()));
        }
    };
    walk(js, "");
    BOOST_TEST(emptyLists.empty(), "empty lists at: " << (emptyLists.empty() ? "" : emptyLists.front()));

    const auto& n = containerOf(js, "node", "node");
    BOOST_TEST(!n.contains("command"));  // the runtime's ["runtime"] is gone, as upstream
    BOOST_TEST(!n.contains("args"));
    BOOST_TEST(n.contains("volumeMounts"));  // the template's own mounts stay
    BOOST_TEST(podSpecOf(replicatedJob(js, "dataset-initializer")).at("volumes") ==
               json::parse(R"([{"name":"initializer","emptyDir":{}}])"));
}

// Deliberate difference: upstream's apply.UpsertPort matches ports "by containerPort or name"
// with ptr.Equal, and two absent names compare equal, so torch/jax/xgboost's unnamed 29500
// replaces the template's first unnamed port (here 8080 with its hostPort). Here a port is
// replaced only by the same containerPort or the same non-empty name.
BOOST_AUTO_TEST_CASE(unnamed_runtime_port_is_kept_beside_the_trainer_port) {
    json::object info = workedExampleInfo();
    auto& rj = info["jobSetSpec"].as_object()["replicatedJobs"].as_array()[2].as_object();
    auto& tmpl = rj["template"].as_object()["spec"].as_object()["template"].as_object()["spec"].as_object()["containers"]
                     .as_array()[0].as_object();
    tmpl["ports"] = json::parse(R"([{"containerPort":8080,"hostPort":8080,"protocol":"TCP"},{"name":"metrics","containerPort":9090}])");
    // Info as the host leaves it after torch's edit (ports keyed by containerPort).
    auto& psc = info["podSets"].as_array()[2].as_object()["containers"].as_array()[0].as_object();
    psc["ports"] = json::parse(R"([{"containerPort":8080,"hostPort":8080,"protocol":"TCP"},{"name":"metrics","containerPort":9090},
                                   {"containerPort":29500}])");
    json::object js = JobSetHost().buildOne(info);
    BOOST_TEST(containerOf(js, "node", "node").at("ports") ==
               json::parse(R"([{"containerPort":8080,"hostPort":8080,"protocol":"TCP"},{"name":"metrics","containerPort":9090},
                               {"containerPort":29500}])"));
}

// Deliberate difference: upstream copies TrainJob env through apply.EnvVar, which knows
// fieldRef, resourceFieldRef, configMapKeyRef and secretKeyRef only, so a Kubernetes 1.34
// `fileKeyRef` becomes `valueFrom: {}` and the Job's pods are refused. Here the env var is
// copied as written, into the trainer and the initializer containers.
BOOST_AUTO_TEST_CASE(file_key_ref_env_is_copied_as_written) {
    json::object info = workedExampleInfo();
    const json::value fileEnv = json::parse(
        R"({"name":"TOKEN","valueFrom":{"fileKeyRef":{"path":"vars.env","volumeName":"cfg","key":"TOKEN","optional":false}}})");
    auto& spec = info["trainJob"].as_object()["spec"].as_object();
    spec["trainer"].as_object()["env"] = json::array{fileEnv};
    spec["initializer"] = json::object{{"dataset", json::object{{"env", json::array{fileEnv}}}}};
    json::object js = JobSetHost().buildOne(info);
    auto find = [](const json::object& c) { return sdk::findByKey(&c.at("env").as_array(), "name", "TOKEN"); };
    const auto* onNode = find(containerOf(js, "node", "node"));
    BOOST_REQUIRE(onNode);
    BOOST_TEST(json::value(*onNode) == fileEnv);
    const auto* onDataset = find(containerOf(js, "dataset-initializer", "dataset-initializer"));
    BOOST_REQUIRE(onDataset);
    BOOST_TEST(json::value(*onDataset) == fileEnv);
}

BOOST_AUTO_TEST_CASE(mpi_run_launcher_as_node_gets_trainer_env) {
    testing::Host host;
    auto info = obj(R"({"infoVersion":1,
      "trainJob":{"metadata":{"name":"mpi","namespace":"default","uid":"u"},
                  "spec":{"trainer":{"image":"img:tj","env":[{"name":"E","value":"v"}]}}},
      "labels":{},"annotations":{},
      "runtimePolicy":{"mlPolicy":{"numNodes":2,"mpi":{"runLauncherAsNode":true,"numProcPerNode":1}}},
      "scheduler":{"podLabels":{},"podAnnotations":{}},
      "jobSetSpec":{"replicatedJobs":[
        {"name":"node","template":{"spec":{"template":{"spec":{"containers":[{"name":"node","image":"img:rt"}]}}}}},
        {"name":"launcher","template":{"metadata":{"labels":{"trainer.kubeflow.org/trainjob-ancestor-step":"trainer"}},
          "spec":{"template":{"spec":{"containers":[{"name":"node","image":"img:rt"}]}}}}}]},
      "podSets":[{"name":"node","ancestor":null,"count":1,"containers":[{"name":"node","env":[]}]},
                 {"name":"launcher","ancestor":"trainer","count":1,"containers":[{"name":"node","env":[]}]}]})");
    // mpi is not loaded here (the host would refuse a runtime configuring it): jobset's hooks are
    // called directly and their edits applied by the operator's ledger.
    auto ctx = host.context("jobset");
    JobSet plugin(json::object{}, ctx);
    sdk::Edits edits(ctx);
    plugin.preBuild(sdk::Info(info), edits, ctx);
    auto pre = testing::applyEdits(info, host.emitted, "jobset");
    BOOST_TEST_REQUIRE(pre.ok(), pre.describe());
    host.clear();
    sdk::Objects objects(ctx);
    plugin.build(sdk::Info(pre.info), objects, ctx);
    BOOST_TEST_REQUIRE(host.errors().empty());
    BOOST_REQUIRE_EQUAL(host.emitted.size(), 1u);
    json::object js = host.emitted[0].as_object();
    for (auto job : {"node", "launcher"})
        BOOST_TEST(containerOf(js, job, "node").at("env") == json::parse(R"([{"name":"E","value":"v"}])"), job);
    BOOST_TEST(containerOf(js, "launcher", "node").at("image").as_string() == "img:tj");
    BOOST_TEST(containerOf(js, "node", "node").at("image").as_string() == "img:rt");
    BOOST_TEST(replicatedJob(js, "launcher").at("replicas").as_int64() == 1);
    BOOST_TEST(!replicatedJob(js, "node").contains("replicas"));
}

BOOST_AUTO_TEST_CASE(no_trainer_keeps_runtime_container) {
    json::object info = workedExampleInfo();
    info["trainJob"].as_object()["spec"].as_object().erase("trainer");
    json::object js = JobSetHost().buildOne(info);
    const auto& node = containerOf(js, "node", "node");
    BOOST_TEST(node.at("command") == json::array({"runtime"}));
    BOOST_TEST(node.at("args") == json::array({"runtime"}));
}

BOOST_AUTO_TEST_SUITE_END()
