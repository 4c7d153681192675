#define BOOST_TEST_MODULE plugin_mpi
#include <boost/test/unit_test.hpp>

#include "core/golden/matcher.hpp"
#include "mpi.hpp"

#include "../../../plugins/jobset/jobset.hpp"
#include "../../support/plugin_test.hpp"

#include <optional>
#include <string>
#include <vector>

namespace mpi = trainer::plugins::mpi;
namespace sdk = trainer::sdk;
namespace testing = trainer::sdk::testing;
namespace json = boost::json;

namespace {

// The golden-test matcher (core/golden/matcher.hpp): one line per way `actual` misses `expected`.
std::string mismatches(const json::value& expected, const json::value& actual, const std::string& at) {
    std::string out;
    for (auto const& m : trainer::core::golden::matchSubset(expected, actual, at)) out += m.path + ": " + m.message + "\n";
    return out;
}

const std::string kCase08 = std::string(TRAINER_GOLDEN_DIR) + "/upstream/08-mpi-openmpi-launcher-not-node.json";
json::value parse(std::string_view s) { return json::parse(s); }

struct Run {
    std::vector<json::value> emitted;
    std::vector<sdk::testing::Diagnostic> errors;
    std::vector<std::string> logs;
};

enum class Hook { Validate, Enforce, Build };

// One hook of the plugin class called directly on the fake host: what the plugin does by itself
// (where the operator would not call it, too) and the raw documents it emits.
Run run(Hook hook, const json::object& infoDoc, const std::vector<json::object>& cluster = {}) {
    sdk::testing::Host host;
    host.cluster = cluster;
    auto ctx = host.context("mpi");
    mpi::MpiPlugin plugin(json::object{}, ctx);
    sdk::Info info(infoDoc);
    if (hook == Hook::Validate) {
        plugin.validate(info, ctx);
    } else if (hook == Hook::Enforce) {
        sdk::Edits edits(ctx);
        plugin.enforceMLPolicy(info, edits, ctx);
    } else {
        sdk::Objects objects(ctx);
        plugin.build(info, objects, ctx);
    }
    return Run{host.emitted, host.errors(), host.logs};
}

// Case 08, with optional changes to the TrainJob's trainer and the runtime's mpi.
struct Case {
    json::object trainJob;
    json::object runtime;
    json::object expectedJobSet, expectedConfigMap, expectedSecret;

    Case() {
        json::object c = trainer::test::readCase("08-mpi-openmpi-launcher-not-node.json");
        trainJob = c.at("trainJob").as_object();
        runtime = c.at("runtimes").as_array().at(0).as_object();
        for (auto const& o : c.at("expectedObjects").as_array()) {
            auto kind = o.at("kind").as_string();
            if (kind == "JobSet") expectedJobSet = o.as_object();
            if (kind == "ConfigMap") expectedConfigMap = o.as_object();
            if (kind == "Secret") expectedSecret = o.as_object();
        }
    }
    json::object& trainer() { return trainJob["spec"].as_object()["trainer"].as_object(); }
    json::object& mpiPolicy() {
        return runtime["spec"].as_object()["mlPolicy"].as_object()["mpi"].as_object();
    }
    json::object& replicatedJob(std::string_view name) {
        for (auto& rj : runtime["spec"].as_object()["template"].as_object()["spec"].as_object()["replicatedJobs"].as_array())
            if (rj.as_object().at("name").as_string() == name) return rj.as_object();
        throw std::runtime_error("no replicated job " + std::string(name));
    }
    json::object& nodeContainer(std::string_view job) {
        auto& rj = replicatedJob(job);
        return rj["template"].as_object()["spec"].as_object()["template"].as_object()["spec"].as_object()
            ["containers"].as_array()[0].as_object();
    }
    // The Info the operator builds for the case (CRD defaults applied).
    json::object info() const { return trainer::test::infoFor(trainJob, runtime); }
};

// mpi and jobset on the operator's real host, with `cluster` as what lookups find.
struct MpiHost {
    testing::RealHost host;
    explicit MpiHost(const std::vector<json::object>& cluster = {}) {
        BOOST_TEST_REQUIRE(host.add<mpi::MpiPlugin>());
        BOOST_TEST_REQUIRE(host.add<trainer::plugins::jobset::JobSet>());
        for (auto const& o : cluster) host.addObject(o);
    }
};

// One reconcile's build phases on the real host: mpi's EnforceMLPolicy, jobset's endpoints and
// parallelism, then mpi's Secret and hostfile ConfigMap beside jobset's JobSet.
testing::Outcome reconcile(const json::object& info, const std::vector<json::object>& cluster = {}) {
    return MpiHost(cluster).host.build(info);
}
testing::Outcome reconcile(const Case& c, const std::vector<json::object>& cluster = {}) {
    return reconcile(c.info(), cluster);
}

const json::object& podSet(const json::object& info, std::string_view name) {
    for (auto const& p : info.at("podSets").as_array())
        if (p.as_object().at("name").as_string() == name) return p.as_object();
    throw std::runtime_error("no podSet " + std::string(name));
}

std::vector<std::string> envNames(const json::object& info, std::string_view ps) {
    return testing::envNames(podSet(info, ps).at("containers").as_array()[0].as_object());
}

std::string envValue(const json::object& info, std::string_view ps, std::string_view name) {
    return testing::envValue(podSet(info, ps).at("containers").as_array()[0].as_object(), name);
}

// The objects mpi built (what jobset built left out), in emit order.
std::vector<json::object> mpiObjects(const testing::Outcome& r) {
    std::vector<json::object> out;
    for (auto const& o : r.objects)
        if (o.at("kind").as_string() != "JobSet") out.push_back(o);
    return out;
}

std::string hostfileOf(const testing::Outcome& r) {
    for (auto const& o : r.objects)
        if (o.at("kind").as_string() == "ConfigMap") return std::string(o.at("data").at("hostfile").as_string());
    return "<no configmap>";
}

int64_t countOf(const json::object& info, std::string_view ps) { return podSet(info, ps).at("count").as_int64(); }

}  // namespace

BOOST_AUTO_TEST_CASE(golden_case_08_pod_sets_match_expected_jobset) {
    Case c;
    auto r = reconcile(c);
    BOOST_TEST_REQUIRE(r.ok(), r.describe());
    // The JobSet jobset builds from mpi's edits matches the expected one.
    auto* jobSet = r.object("JobSet", "test-job");
    BOOST_TEST_REQUIRE(jobSet);
    json::value actual = *jobSet;
    BOOST_TEST(mismatches(c.expectedJobSet, actual, "JobSet").empty(), mismatches(c.expectedJobSet, actual, "JobSet"));
    for (auto const& rj : c.expectedJobSet.at("spec").at("replicatedJobs").as_array()) {
        const auto& name = rj.at("name").as_string();
        BOOST_TEST(countOf(r.info, name) == rj.at("template").at("spec").at("parallelism").as_int64(), name);
    }
}

BOOST_AUTO_TEST_CASE(golden_case_08_launcher_env_in_upstream_order) {
    Case c;
    auto r = reconcile(c);
    std::vector<std::string> want{"OMPI_MCA_orte_default_hostfile", "OMPI_MCA_orte_keep_fqdn_hostnames",
                                  "OMPI_MCA_orte_set_default_slots", "OMPI_MCA_plm_rsh_args"};
    BOOST_TEST(envNames(r.info, "launcher") == want, boost::test_tools::per_element());
    BOOST_TEST(envNames(r.info, "node").empty());
    BOOST_TEST(envValue(r.info, "launcher", "OMPI_MCA_orte_set_default_slots") == "8");
    // Mount order: SSH auth first, then the hostfile.
    auto const& mounts = podSet(r.info, "launcher").at("containers").as_array()[0].at("volumeMounts").as_array();
    BOOST_TEST_REQUIRE(mounts.size() == 2u);
    BOOST_TEST(mounts[0].at("name").as_string() == "mpi-ssh-auth");
    BOOST_TEST(mounts[1].at("mountPath").as_string() == "/etc/mpi");
}

BOOST_AUTO_TEST_CASE(golden_case_08_objects) {
    Case c;
    auto r = reconcile(c);
    BOOST_TEST_REQUIRE(r.ok(), r.describe());
    auto objects = mpiObjects(r);
    BOOST_TEST_REQUIRE(objects.size() == 2u);
    // Upstream order: Secret, then ConfigMap.
    BOOST_TEST(objects[0].at("kind").as_string() == "Secret");
    BOOST_TEST(objects[1].at("kind").as_string() == "ConfigMap");
    for (auto const* want : {&c.expectedConfigMap, &c.expectedSecret}) {
        auto* got = r.object(want->at("kind").as_string(), want->at("metadata").at("name").as_string());
        BOOST_TEST_REQUIRE(got);
        const std::string kind(want->at("kind").as_string());
        BOOST_TEST(mismatches(*want, *got, kind).empty(), mismatches(*want, *got, kind));
    }
    BOOST_TEST(hostfileOf(r) == "test-job-node-0-0.test-job slots=8\ntest-job-node-0-1.test-job slots=8\n");
    // Exactly the fields of a Secret apply config (no stray members).
    auto* secret = &objects[0];
    BOOST_TEST(secret->size() == 6u);
    BOOST_TEST(secret->at("data").as_object().size() == 2u);
}

BOOST_AUTO_TEST_CASE(volumes_carry_modes_as_decimal_ints) {
    auto v = mpi::sshAuthVolume("j");
    auto want = parse(R"({"name":"mpi-ssh-auth","secret":{"secretName":"j-mpi-ssh-auth","defaultMode":256,
        "items":[{"key":"ssh-privatekey","path":"id_rsa","mode":416},
                 {"key":"ssh-publickey","path":"id_rsa.pub","mode":420},
                 {"key":"ssh-publickey","path":"authorized_keys","mode":420}]}})");
    BOOST_TEST(json::value(v) == want);
    auto h = mpi::hostfileVolume("j");
    BOOST_TEST(json::value(h) ==
               parse(R"({"name":"mpi-hostfile","configMap":{"name":"j-mpi-hostfile",
                         "items":[{"key":"hostfile","path":"hostfile","mode":292}]}})"));
}

BOOST_AUTO_TEST_CASE(run_launcher_as_node_counts_and_hostfile) {
    struct Row {
        int64_t numNodes;
        int64_t wantNodeCount;
        std::string wantHostfile;
    };
    const std::vector<Row> rows{
        {3, 2,
         "test-job-launcher-0-0.test-job slots=8\ntest-job-node-0-0.test-job slots=8\n"
         "test-job-node-0-1.test-job slots=8\n"},
        // numNodes 1 still yields two pods: launcher + 1 node (upstream's max(numNodes - 1, 1) in
        // EnforceMLPolicy,
        // https://github.com/kubeflow/trainer/blob/8c0f5059bd51ec3ba6d6a6a7b2e1471de7bc13b3/pkg/runtime/framework/plugins/mpi/mpi.go).
        {1, 1, "test-job-launcher-0-0.test-job slots=8\ntest-job-node-0-0.test-job slots=8\n"},
        {2, 1, "test-job-launcher-0-0.test-job slots=8\ntest-job-node-0-0.test-job slots=8\n"},
    };
    for (auto const& row : rows) {
        Case c;
        c.mpiPolicy()["runLauncherAsNode"] = true;
        c.trainer()["numNodes"] = row.numNodes;
        auto r = reconcile(c);
        BOOST_TEST(r.ok(), r.describe());
        BOOST_TEST(countOf(r.info, "node") == row.wantNodeCount, "numNodes=" << row.numNodes);
        BOOST_TEST(countOf(r.info, "launcher") == 1);
        BOOST_TEST(hostfileOf(r) == row.wantHostfile, "numNodes=" << row.numNodes);
    }
}

BOOST_AUTO_TEST_CASE(without_run_launcher_as_node_counts) {
    for (int64_t n : {1, 2, 5}) {
        Case c;
        c.trainer()["numNodes"] = n;
        auto r = reconcile(c);
        BOOST_TEST(countOf(r.info, "node") == n);
        BOOST_TEST(countOf(r.info, "launcher") == 1);
    }
    // No trainer.numNodes: the count stays the runtime's and no count edit is emitted.
    Case c;
    c.trainer().erase("numNodes");
    auto r = reconcile(c);
    BOOST_TEST(countOf(r.info, "node") == 1);
    for (auto const& e : run(Hook::Enforce, c.info()).emitted) BOOST_TEST(e.at("path").as_string() != "/podSets/node/count");
}

BOOST_AUTO_TEST_CASE(custom_subdomain_in_hostfile) {
    Case c;
    c.runtime["spec"].as_object()["template"].as_object()["spec"].as_object()["network"] =
        json::object{{"subdomain", "mpi-net"}};
    auto r = reconcile(c);
    BOOST_TEST(hostfileOf(r) == "test-job-node-0-0.mpi-net slots=8\ntest-job-node-0-1.mpi-net slots=8\n");
}

BOOST_AUTO_TEST_CASE(slots_table) {
    struct Row {
        std::string name;
        std::optional<int64_t> trainerNproc;
        int64_t runtimeNproc;
        std::optional<std::string> runtimeResources;  // node container of the `node` job
        std::optional<std::string> trainerResources;  // TrainJob resourcesPerNode
        int64_t want;
    };
    const std::vector<Row> rows{
        {"trainjob value wins", 8, 1, R"({"limits":{"nvidia.com/gpu":"4"}})", std::nullopt, 8},
        {"trainjob value wins over runtime", 2, 6, std::nullopt, std::nullopt, 2},
        {"runtime gpu limits", std::nullopt, 1, R"({"limits":{"nvidia.com/gpu":"4"}})", std::nullopt, 4},
        {"runtime gpu requests", std::nullopt, 1, R"({"requests":{"amd.com/GPU":"2"}})", std::nullopt, 2},
        {"requests 0 falls back to limits", std::nullopt, 1,
         R"({"requests":{"nvidia.com/gpu":"0"},"limits":{"nvidia.com/gpu":"3"}})", std::nullopt, 3},
        {"gpu as JSON number", std::nullopt, 1, R"({"limits":{"nvidia.com/gpu":2}})", std::nullopt, 2},
        {"one gpu keeps 1", std::nullopt, 1, R"({"limits":{"nvidia.com/gpu":"1"}})", std::nullopt, 1},
        {"fractional gpu rounds up to 1", std::nullopt, 1, R"({"limits":{"nvidia.com/gpu":"500m"}})", std::nullopt, 1},
        {"fractional gpu rounds up to 2", std::nullopt, 1, R"({"limits":{"nvidia.com/gpu":"1500m"}})", std::nullopt, 2},
        {"exponent gpu", std::nullopt, 1, R"({"limits":{"nvidia.com/gpu":"0.4e1"}})", std::nullopt, 4},
        {"unreadable gpu counts 0", std::nullopt, 1, R"({"limits":{"nvidia.com/gpu":"lots"}})", std::nullopt, 1},
        {"first gpu resource wins", std::nullopt, 1,
         R"({"limits":{"nvidia.com/gpu":"2","amd.com/gpu":"8"}})", std::nullopt, 2},
        {"trainjob resources used wholesale", std::nullopt, 1, R"({"limits":{"nvidia.com/gpu":"4"}})",
         R"({"requests":{"cpu":"4"}})", 1},
        {"trainjob gpu", std::nullopt, 1, std::nullopt, R"({"limits":{"nvidia.com/gpu":"6"}})", 6},
        {"runtime value not 1 ignores gpu", std::nullopt, 3, R"({"limits":{"nvidia.com/gpu":"8"}})", std::nullopt, 3},
        {"cpu only", std::nullopt, 1, R"({"requests":{"cpu":"16"}})", std::nullopt, 1},
    };
    for (auto const& row : rows) {
        Case c;
        c.trainer().erase("numProcPerNode");
        if (row.trainerNproc) c.trainer()["numProcPerNode"] = *row.trainerNproc;
        c.mpiPolicy()["numProcPerNode"] = row.runtimeNproc;
        if (row.runtimeResources) c.nodeContainer("node")["resources"] = parse(*row.runtimeResources);
        if (row.trainerResources) c.trainer()["resourcesPerNode"] = parse(*row.trainerResources);
        auto info = c.info();
        auto policy = mpi::readPolicy(sdk::Info(info));
        BOOST_TEST_REQUIRE(policy.has_value());
        BOOST_TEST(mpi::slotsPerNode(sdk::Info(info), *policy) == row.want, row.name);
        // Enforce (env) and Build (hostfile) agree on the value.
        auto r = reconcile(c);
        BOOST_TEST(envValue(r.info, "launcher", "OMPI_MCA_orte_set_default_slots") == std::to_string(row.want),
                   row.name);
        BOOST_TEST(hostfileOf(r).find("slots=" + std::to_string(row.want) + "\n") != std::string::npos,
                   row.name);
    }
}

BOOST_AUTO_TEST_CASE(ssh_auth_mount_path_from_runtime) {
    Case c;
    c.mpiPolicy()["sshAuthMountPath"] = "/home/mpiuser/.ssh";
    auto r = reconcile(c);
    for (auto ps : {"launcher", "node"}) {
        auto const& mounts = podSet(r.info, ps).at("containers").as_array()[0].at("volumeMounts").as_array();
        bool found = false;
        for (auto const& m : mounts)
            if (m.at("name").as_string() == "mpi-ssh-auth")
                found = m.at("mountPath").as_string() == "/home/mpiuser/.ssh";
        BOOST_TEST(found, ps);
    }
}

BOOST_AUTO_TEST_CASE(only_containers_named_node_are_touched) {
    Case c;
    c.nodeContainer("launcher")["name"] = "mpirun";
    auto r = reconcile(c);
    BOOST_TEST(r.ok(), r.describe());
    auto const& launcher = podSet(r.info, "launcher");
    BOOST_TEST(launcher.at("containers").as_array()[0].at("env").as_array().empty());
    BOOST_TEST(launcher.at("containers").as_array()[0].at("volumeMounts").as_array().empty());
    // The PodSet still gets both volumes.
    BOOST_TEST(launcher.at("volumes").as_array().size() == 2u);
    // Initializer PodSets are never touched.
    BOOST_TEST(podSet(r.info, "dataset-initializer").at("volumes").as_array().size() == 1u);
}

BOOST_AUTO_TEST_CASE(existing_secret_is_not_re_emitted) {
    Case c;
    json::object existing{{"apiVersion", "v1"},
                          {"kind", "Secret"},
                          {"metadata", json::object{{"name", "test-job-mpi-ssh-auth"}, {"namespace", "default"}}}};
    auto r = reconcile(c, {existing});
    BOOST_TEST(r.ok(), r.describe());
    BOOST_TEST_REQUIRE(mpiObjects(r).size() == 1u);
    BOOST_TEST(mpiObjects(r)[0].at("kind").as_string() == "ConfigMap");
    // A Secret in another namespace does not count.
    existing["metadata"].as_object()["namespace"] = "other";
    auto r2 = reconcile(c, {existing});
    BOOST_TEST(mpiObjects(r2).size() == 2u);
}

BOOST_AUTO_TEST_CASE(unknown_implementation_error_names_it) {
    for (std::string impl : {"Intel", "MPICH"}) {
        Case c;
        c.mpiPolicy()["mpiImplementation"] = impl;
        auto r = run(Hook::Enforce, c.info());
        BOOST_TEST_REQUIRE(r.errors.size() == 1u);
        BOOST_TEST(r.errors[0].message == "MPI implementation for " + impl + " doesn't supported");
        BOOST_TEST(r.emitted.empty());
        // Build writes no hostfile lines for it (after jobset's endpoints, on the real host).
        auto b = MpiHost().host.run({testing::Hook::PreComponentBuilder, testing::Hook::ComponentBuilder}, c.info());
        BOOST_TEST(b.ok(), b.describe());
        BOOST_TEST(hostfileOf(b) == "");
    }
}

BOOST_AUTO_TEST_CASE(not_an_mpi_runtime_is_ignored) {
    Case c;
    c.runtime["spec"].as_object()["mlPolicy"] = json::object{{"numNodes", 1}, {"torch", json::object{}}};
    auto info = c.info();
    BOOST_TEST(run(Hook::Enforce, info).emitted.empty());
    BOOST_TEST(run(Hook::Build, info).emitted.empty());
    BOOST_TEST(run(Hook::Validate, info).errors.empty());
    c.runtime["spec"].as_object().erase("mlPolicy");
    BOOST_TEST(run(Hook::Enforce, c.info()).emitted.empty());
}

BOOST_AUTO_TEST_CASE(missing_crd_defaults_fall_back_safely) {
    Case c;
    c.trainer().erase("numProcPerNode");
    // The operator hands plugins the runtime with its CRD defaults: this Info lacks them.
    auto info = c.info();
    info["runtimePolicy"].as_object()["mlPolicy"].as_object()["mpi"] = json::object{};
    auto r = reconcile(info);
    BOOST_TEST(r.ok(), r.describe());
    BOOST_TEST(envValue(r.info, "launcher", "OMPI_MCA_orte_set_default_slots") == "1");
    BOOST_TEST(hostfileOf(r) == "test-job-node-0-0.test-job slots=1\ntest-job-node-0-1.test-job slots=1\n");
}

BOOST_AUTO_TEST_CASE(validation_messages) {
    struct Row {
        std::string name;
        std::optional<int64_t> numNodes;
        bool runLauncherAsNode;
        std::string dropJob;  // replicated job removed from the runtime, or ""
        std::vector<std::string> env;
        std::vector<std::pair<std::string, std::string>> want;  // path, message
    };
    const std::string nodesMsg =
        "must have 1 when MPI trainingRuntime with enabled runLauncherAsNode does not have either launcher and node";
    const std::vector<Row> rows{
        {"valid", 2, true, "", {}, {}},
        {"no launcher", 2, true, "launcher", {}, {{"spec.trainer.numNodes", nodesMsg}}},
        {"no node", 3, true, "node", {}, {{"spec.trainer.numNodes", nodesMsg}}},
        {"one node is fine", 1, true, "launcher", {}, {}},
        {"default numNodes is 1", std::nullopt, true, "launcher", {}, {}},
        {"runLauncherAsNode off", 4, false, "launcher", {}, {}},
        // The OMPI_MCA_* names are the host's to refuse (env: claims): the plugin says nothing.
        {"reserved env is not the plugin's", 2, true, "node", {"OMPI_MCA_plm_rsh_args"}, {{"spec.trainer.numNodes", nodesMsg}}},
    };
    for (auto const& row : rows) {
        Case c;
        c.trainer().erase("numNodes");
        if (row.numNodes) c.trainer()["numNodes"] = *row.numNodes;
        c.mpiPolicy()["runLauncherAsNode"] = row.runLauncherAsNode;
        if (!row.dropJob.empty()) {
            auto& jobs = c.runtime["spec"].as_object()["template"].as_object()["spec"].as_object()["replicatedJobs"].as_array();
            for (size_t i = 0; i < jobs.size(); ++i)
                if (jobs[i].at("name").as_string() == row.dropJob) jobs.erase(jobs.begin() + i);
        }
        if (!row.env.empty()) {
            json::array env;
            for (auto const& n : row.env) env.push_back(json::object{{"name", n}, {"value", "x"}});
            c.trainer()["env"] = env;
        }
        auto r = run(Hook::Validate, c.info());
        BOOST_TEST_REQUIRE(r.errors.size() == row.want.size(), row.name);
        for (size_t i = 0; i < row.want.size(); ++i) {
            BOOST_TEST(r.errors[i].path == row.want[i].first, row.name);
            BOOST_TEST(r.errors[i].message == row.want[i].second, row.name);
        }
    }
}

BOOST_AUTO_TEST_CASE(validation_without_trainer_passes) {
    Case c;
    c.trainJob["spec"].as_object().erase("trainer");
    c.mpiPolicy()["runLauncherAsNode"] = true;
    BOOST_TEST(run(Hook::Validate, c.info()).errors.empty());
}

BOOST_AUTO_TEST_CASE(meta_declares_claims_and_watches) {
    auto m = mpi::MpiPlugin::meta();
    BOOST_TEST(std::string(m.name) == "mpi");
    std::vector<std::string> claims(m.claims.begin(), m.claims.end());
    std::vector<std::string> want{"mlPolicy.mpi",
                                  "env:OMPI_MCA_orte_default_hostfile",
                                  "env:OMPI_MCA_plm_rsh_args",
                                  "env:OMPI_MCA_orte_keep_fqdn_hostnames",
                                  "env:OMPI_MCA_orte_set_default_slots",
                                  "volume:mpi-ssh-auth",
                                  "volume:mpi-hostfile"};
    BOOST_TEST(claims == want, boost::test_tools::per_element());
    BOOST_TEST_REQUIRE(m.watches.size() == 2u);
    BOOST_TEST(std::string(m.watches[0].kind) == "ConfigMap");
    BOOST_TEST(std::string(m.watches[1].kind) == "Secret");
    for (auto const& w : m.watches) {
        BOOST_TEST(std::string(w.apiVersion) == "v1");
        BOOST_TEST(w.mode == TRN_WATCH_OWNED);
    }
}
