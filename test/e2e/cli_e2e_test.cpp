#define BOOST_TEST_MODULE test_e2e
#include <boost/test/unit_test.hpp>

#include <boost/json.hpp>

#include "../support/process.hpp"
#include "core/json/io.hpp"

#include <sys/resource.h>
#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>

namespace fs = std::filesystem;
namespace json = boost::json;

namespace {

using trainer::test::Result;
using trainer::test::sh;
using trainer::test::slurp;
using trainer::test::TempDir;

const std::string kBin = TRAINER_BIN;
const std::string kPlugins = TRAINER_PLUGIN_BUILD_DIR;
const std::string kSrc = TRAINER_SOURCE_DIR;

Result op(const std::string& args) { return sh(kBin + " " + args + " --plugin-dir " + kPlugins); }
Result opNoDir(const std::string& args) { return sh(kBin + " " + args); }

bool pluginBuilt(const std::string& name) { return fs::exists(fs::path(kPlugins) / (name + ".so")); }

}  // namespace

BOOST_AUTO_TEST_SUITE(cli)

// `--version`: the operator's version, the plugin ABI range it accepts, the SDK's version and
// what it was built with (sdk/README.md's compatibility matrix), each checked against the build
// (CMakeCache.txt, the SDK's package version file, the ABI header, Boost's CMake package).
BOOST_AUTO_TEST_CASE(version_names_the_abi_range_and_sdk) {
    auto find = [](const std::string& text, const std::string& pattern) {
        std::smatch m;
        BOOST_REQUIRE_MESSAGE(std::regex_search(text, m, std::regex(pattern)), pattern);
        return m[1].str();
    };
    const std::string bin = TRAINER_BINARY_DIR, src = TRAINER_SOURCE_DIR;
    const std::string version = find(slurp(bin + "/CMakeCache.txt"), "\nCMAKE_PROJECT_VERSION:STATIC=([^\n]+)");
    const std::string sdk = find(slurp(bin + "/sdk/TrainerSDKConfigVersion.cmake"), "set\\(PACKAGE_VERSION \"([^\"]+)\"\\)");
    const std::string header = slurp(src + "/sdk/include/trainer/abi.h");
    const std::string major = find(header, "#define TRN_ABI_MAJOR ([0-9]+)");
    const std::string minor = find(header, "#define TRN_ABI_MINOR ([0-9]+)");
    const std::string boost = find(slurp(bin + "/CMakeCache.txt"), "\nBoost_DIR:PATH=[^\n]*Boost-([0-9.]+)\n");
    for (auto const* form : {"--version", "version"}) {
        BOOST_TEST_CONTEXT(form) {
            auto v = opNoDir(form);
            BOOST_TEST(v.exit == 0);
            BOOST_TEST(v.err.empty());
            const std::string head = "trainer-operator " + version + "\nplugin ABI " + major + ".0-" + major + "." + minor +
                                     "\nSDK " + sdk + "\nbuilt with Boost " + boost + ", ";
            BOOST_TEST(v.out.rfind(head, 0) == 0u, v.out);
            BOOST_TEST(std::regex_search(v.out, std::regex(", (GCC|Clang) [0-9]+\\.[0-9]+[^\n]*\n$")), v.out);
        }
    }
}

BOOST_AUTO_TEST_CASE(version_help_and_suggestions) {
    auto v = opNoDir("--version");
    BOOST_TEST(v.exit == 0);
    BOOST_TEST(v.out.find("trainer-operator ") == 0u);
    for (auto const* c : {"render", "validate", "plugins"}) {
        auto h = opNoDir(std::string(c) + " --help");
        BOOST_TEST(h.exit == 0, c);
        BOOST_TEST(h.out.find("Usage:\n  trainer-operator " + std::string(c)) != std::string::npos, h.out);
    }
    auto u = opNoDir("rendr -f x");
    BOOST_TEST(u.exit == 1);
    BOOST_TEST(u.err == "error: unknown command \"rendr\" for \"trainer-operator\"; did you mean \"render\"?\n");
    auto f = opNoDir("render -f x --plugin-dri y");
    BOOST_TEST(f.exit == 1);
    BOOST_TEST(f.err == "error: unknown flag --plugin-dri for \"render\"; did you mean --plugin-dir?\n");
    BOOST_TEST(f.out.empty());
}

BOOST_AUTO_TEST_CASE(plugins_lists_loaded_and_rejected) {
    TempDir d;
    for (auto const& e : fs::directory_iterator(kPlugins)) fs::copy_file(e.path(), d.path / e.path().filename());
    d.write("broken.so", "not a library");
    // A rejected file makes `plugins` exit 1, listing it as always; --allow-rejected exits 0.
    auto r = sh(kBin + " plugins -o json --plugin-dir " + d.path.string());
    BOOST_REQUIRE_EQUAL(r.exit, 1);
    BOOST_TEST(r.err == "error: 1 rejection; --allow-rejected to exit 0 anyway\n");
    auto allowed = sh(kBin + " plugins -o json --allow-rejected --plugin-dir " + d.path.string());
    BOOST_TEST(allowed.exit == 0);
    BOOST_TEST(allowed.err.empty(), allowed.err);
    BOOST_TEST(allowed.out == r.out);
    for (auto const* form : {" plugins", " plugins --print-pins"}) {
        auto table = sh(kBin + form + " --plugin-dir " + d.path.string());
        BOOST_TEST(table.exit == 1, form);
        BOOST_TEST((table.out + table.err).find("rejected: plugin " + (d.path / "broken.so").string()) != std::string::npos,
                   table.out + table.err);
        BOOST_TEST(sh(kBin + form + " --allow-rejected --plugin-dir " + d.path.string()).exit == 0, form);
    }
    auto doc = json::parse(r.out).as_object();
    std::map<std::string, json::object> byName;
    for (auto const& p : doc.at("plugins").as_array()) byName[std::string(p.at("name").as_string())] = p.as_object();
    BOOST_REQUIRE(byName.count("plainml"));
    BOOST_REQUIRE(byName.count("jobset"));
    auto eps = [](const json::object& p) {
        std::vector<std::string> v;
        for (auto const& e : p.at("extensionPoints").as_array()) v.emplace_back(e.as_string());
        return v;
    };
    BOOST_TEST(eps(byName["plainml"]) == std::vector<std::string>{"EnforceMLPolicy"}, boost::test_tools::per_element());
    BOOST_TEST(eps(byName["jobset"]) ==
                   (std::vector<std::string>{"CustomValidation", "WatchExtension", "PreComponentBuilder", "ComponentBuilder",
                                             "TrainJobStatus"}),
               boost::test_tools::per_element());
    for (auto const& [name, p] : byName) {
        BOOST_TEST(p.at("sha256").as_string().size() == 64u);
        BOOST_TEST(p.at("abi").as_string() == "1.0");
        BOOST_TEST(std::string(p.at("path").as_string()).find(d.path.string()) == 0u);
    }
    BOOST_TEST(byName["plainml"].at("claims").as_array() == json::array{"mlPolicy"});
    auto const& rej = doc.at("rejected").as_array();
    BOOST_REQUIRE_EQUAL(rej.size(), 1u);
    BOOST_TEST(rej[0].at("reason").as_string() ==
               "plugin " + (d.path / "broken.so").string() + " was rejected: it is not an ELF shared object.");
    // The table form, and the default directory relative to the binary.
    auto t = opNoDir("plugins");
    BOOST_TEST(t.exit == 0);
    BOOST_TEST(t.out.find("jobset") != std::string::npos, t.out);
}

BOOST_AUTO_TEST_CASE(render_examples) {
    auto r = op("render -f " + kSrc + "/examples -o json");
    BOOST_REQUIRE_MESSAGE(r.exit == 0, r.err);
    auto items = json::parse(r.out).at("items").as_array();
    std::set<std::string> jobsets;
    std::vector<std::string> order;
    for (auto const& o : items) {
        auto const& md = o.at("metadata").as_object();
        order.push_back(std::string(o.at("apiVersion").as_string()) + "|" + std::string(o.at("kind").as_string()) + "|" +
                        std::string(md.contains("namespace") ? md.at("namespace").as_string() : "") + "|" +
                        std::string(md.at("name").as_string()));
        if (o.at("kind") == "JobSet") jobsets.insert(std::string(md.at("name").as_string()));
    }
    BOOST_TEST(std::is_sorted(order.begin(), order.end()));
    BOOST_TEST(jobsets.count("plain-example") == 1u);
    BOOST_TEST_REQUIRE(pluginBuilt("torch"), "the torch plugin is not built (test_e2e depends on every plugin target)");
    BOOST_TEST(jobsets.count("multi-node-example") == 1u);
    auto y = op("render -f " + kSrc + "/examples -o yaml");
    BOOST_TEST(y.exit == 0);
    BOOST_TEST(y.out.find("kind: List") != std::string::npos);
    // render writes the List item by item as each TrainJob is built (core/cli/render.cpp): its
    // bytes are the pretty printer's text of the whole List, items and all.
    BOOST_TEST(r.out == trainer::core::toJson(json::parse(r.out), true) + "\n");
    auto none = op("render -f " + kSrc + "/examples/10-runtime-torch-distributed.yaml -o json");
    BOOST_REQUIRE_MESSAGE(none.exit == 0, none.err);
    BOOST_TEST(none.out == "{\n  \"apiVersion\": \"v1\",\n  \"kind\": \"List\",\n  \"items\": []\n}\n");
    BOOST_TEST(none.out == trainer::core::toJson(json::parse(none.out), true) + "\n");
}

// Bad input: exit 1, nothing on stdout, one "error: " line per problem, never a crash.
struct BadCase {
    std::string name;
    std::string input;
    std::string expect;  // substring of stderr
};
const std::vector<BadCase> kBadCases = {
    {"malformed-yaml", "apiVersion: v1\nkind: [unclosed\n", "error: "},
    {"not-a-mapping", "- a\n- b\n", "error: "},
    {"missing-kind", "apiVersion: trainer.kubeflow.org/v1alpha1\nmetadata: {name: x}\n", "kind"},
    {"missing-runtime-ref",
     "apiVersion: trainer.kubeflow.org/v1alpha1\nkind: TrainJob\nmetadata: {name: x, namespace: default}\nspec: {}\n",
     "spec.runtimeRef"},
    {"unknown-runtime",
     "apiVersion: trainer.kubeflow.org/v1alpha1\nkind: TrainJob\nmetadata: {name: x, namespace: default}\n"
     "spec: {runtimeRef: {name: nope}}\n",
     "specified clusterTrainingRuntime must be created before the TrainJob is created"},
    {"bad-name",
     "apiVersion: trainer.kubeflow.org/v1alpha1\nkind: TrainJob\nmetadata: {name: Bad_Name, namespace: default}\n"
     "spec: {runtimeRef: {name: x}}\n",
     "metadata.name must match RFC 1035 DNS label format"},
    {"wrong-type",
     "apiVersion: trainer.kubeflow.org/v1alpha1\nkind: TrainJob\nmetadata: {name: x, namespace: default}\n"
     "spec: {runtimeRef: {name: x}, trainer: {numNodes: many}}\n",
     "spec.trainer.numNodes"},
};

// A runtime (policies given) and a TrainJob using it, for the plugin-level bad-input cases.
std::string runtimeAndJob(const std::string& policies, const std::string& trainer = "{}") {
    return "apiVersion: trainer.kubeflow.org/v1alpha1\nkind: ClusterTrainingRuntime\nmetadata: {name: rt}\nspec:\n" +
           policies +
           "  template:\n    spec:\n      replicatedJobs:\n        - name: node\n          template:\n"
           "            metadata: {labels: {trainer.kubeflow.org/trainjob-ancestor-step: trainer}}\n"
           "            spec: {template: {spec: {containers: [{name: node, image: x}]}}}\n---\n"
           "apiVersion: trainer.kubeflow.org/v1alpha1\nkind: TrainJob\nmetadata: {name: j, namespace: default}\n"
           "spec: {runtimeRef: {name: rt}, trainer: " +
           trainer + "}\n";
}

// Issues 3 and 4: policy-level bad input through the real plugins.
const std::vector<BadCase> kPolicyBadCases = {
    {"reserved-torch-env", runtimeAndJob("  mlPolicy: {numNodes: 1, torch: {}}\n", "{env: [{name: PET_NNODES, value: '3'}]}"),
     "spec.trainer.env: must not have reserved envs, invalid envs configured: [PET_NNODES]"},
    {"reserved-mpi-env",
     runtimeAndJob("  mlPolicy: {numNodes: 1, mpi: {}}\n", "{env: [{name: OMPI_MCA_plm_rsh_args, value: x}]}"),
     "must not have reserved envs, invalid envs configured: [OMPI_MCA_plm_rsh_args]"},
    // The host refuses every active plugin's env: claims (core/plugin/reserved_env.hpp) in
    // upstream's words: sorted and once for torch and MPI, per entry for XGBoost (envRefusal:).
    {"reserved-torch-env-sorted",
     runtimeAndJob("  mlPolicy: {numNodes: 1, torch: {}}\n",
                   "{env: [{name: PET_NODE_RANK, value: '1'}, {name: OK, value: x}, {name: PET_MASTER_ADDR, value: x}]}"),
     "spec.trainer.env: must not have reserved envs, invalid envs configured: [PET_MASTER_ADDR PET_NODE_RANK]"},
    {"reserved-mpi-env-sorted",
     runtimeAndJob("  mlPolicy: {numNodes: 1, mpi: {}}\n",
                   "{env: [{name: OMPI_MCA_plm_rsh_args, value: x}, {name: FOO, value: x}, "
                   "{name: OMPI_MCA_orte_default_hostfile, value: x}]}"),
     "spec.trainer.env: must not have reserved envs, invalid envs configured: [OMPI_MCA_orte_default_hostfile "
     "OMPI_MCA_plm_rsh_args]"},
    {"reserved-xgboost-env",
     runtimeAndJob("  mlPolicy: {numNodes: 1, xgboost: {}}\n",
                   "{env: [{name: OK, value: x}, {name: DMLC_TASK_ID, value: '0'}]}"),
     "spec.trainer.env[1]: DMLC_TASK_ID is reserved for the XGBoost runtime"},
    {"reserved-jax-env", runtimeAndJob("  mlPolicy: {numNodes: 1, jax: {}}\n", "{env: [{name: JAX_PROCESS_ID, value: '0'}]}"),
     "spec.trainer.env: must not have reserved envs, invalid envs configured: [JAX_PROCESS_ID]"},
    {"negative-num-nodes", runtimeAndJob("  mlPolicy: {numNodes: 1, torch: {}}\n", "{numNodes: -1}"),
     "spec.trainer.numNodes"},
    {"zero-num-proc", runtimeAndJob("  mlPolicy: {numNodes: 1, torch: {}}\n", "{numProcPerNode: 0}"),
     "numProcPerNode must be greater than or equal to 1"},
    {"unknown-mpi-implementation", runtimeAndJob("  mlPolicy: {numNodes: 1, mpi: {mpiImplementation: Intel}}\n"),
     "spec.mlPolicy.mpi.mpiImplementation"},
    {"two-ml-policies", runtimeAndJob("  mlPolicy: {numNodes: 1, torch: {}, jax: {}}\n"),
     "Only one of the policy can be configured"},
    {"unclaimed-ml-policy", runtimeAndJob("  mlPolicy: {numNodes: 1, mlx: {}}\n"),
     "configures mlPolicy.mlx, but no loaded plugin claims it (loaded plugins: "},
    {"two-pod-group-backends",
     runtimeAndJob("  mlPolicy: {numNodes: 1, torch: {}}\n  podGroupPolicy: {coscheduling: {}, volcano: {}}\n"),
     "more than one pod-group policy: podGroupPolicy.coscheduling (plugin coscheduling) and podGroupPolicy.volcano (plugin volcano)"},
    {"negative-schedule-timeout",
     runtimeAndJob("  mlPolicy: {numNodes: 1, torch: {}}\n  podGroupPolicy: {coscheduling: {scheduleTimeoutSeconds: -5}}\n"),
     "spec.podGroupPolicy.coscheduling.scheduleTimeoutSeconds: Invalid value: -5: ClusterTrainingRuntime \"rt\" must set a timeout greater than or equal to 0 seconds"},
    {"unclaimed-pod-group-backend",
     runtimeAndJob("  mlPolicy: {numNodes: 1, torch: {}}\n  podGroupPolicy: {kueue: {}}\n"),
     "configures podGroupPolicy.kueue, but no loaded plugin claims it"},
};

BOOST_AUTO_TEST_CASE(policy_bad_input_is_a_clear_error) {
    for (auto const& c : kPolicyBadCases) {
        BOOST_TEST_CONTEXT(c.name) {
            TempDir d;
            auto f = d.write(c.name + ".yaml", c.input);
            for (auto const* verb : {"render", "validate"}) {
                auto r = op(std::string(verb) + " -f " + f.string());
                BOOST_TEST(r.exit == 1, verb << ": exit " << r.exit << " " << r.err);
                BOOST_TEST(r.out.empty());
                BOOST_TEST(r.err.find(c.expect) != std::string::npos, r.err);
            }
        }
    }
}

// Another policy's env names are free: only active plugins' claims are refused.
BOOST_AUTO_TEST_CASE(inactive_plugins_env_claims_are_free) {
    TempDir d;
    auto f = d.write("free.yaml", runtimeAndJob("  mlPolicy: {numNodes: 1, torch: {}}\n",
                                               "{env: [{name: DMLC_TASK_ID, value: '0'}, {name: JAX_PROCESS_ID, value: '0'}]}"));
    auto r = op("validate -f " + f.string());
    BOOST_TEST(r.exit == 0, r.err);
}

BOOST_AUTO_TEST_CASE(bad_input_is_a_clear_error) {
    for (auto const& c : kBadCases) {
        BOOST_TEST_CONTEXT(c.name) {
            TempDir d;
            auto f = d.write(c.name + ".yaml", c.input);
            for (auto const* verb : {"render", "validate"}) {
                auto r = op(std::string(verb) + " -f " + f.string());
                BOOST_TEST(r.exit == 1, verb << ": exit " << r.exit << " " << r.err);
                BOOST_TEST(r.out.empty());
                BOOST_TEST(r.err.rfind("error: ", 0) == 0u, r.err);
                BOOST_TEST(r.err.find(c.expect) != std::string::npos, r.err);
            }
        }
    }
    auto missing = op("render -f /nonexistent/file.yaml");
    BOOST_TEST(missing.exit == 1);
    BOOST_TEST(missing.err.find("/nonexistent/file.yaml") != std::string::npos, missing.err);
    auto fmt = op("render -f " + kSrc + "/examples -o xml");
    BOOST_TEST(fmt.exit == 1);
    BOOST_TEST(fmt.err == "error: --output: unsupported format \"xml\" (json, yaml, info)\n");
}

// ABI rule 10: the Info document the host builds is described by sdk/schema/info-v1.schema.json.
BOOST_AUTO_TEST_CASE(info_documents_match_the_published_schema) {
    auto r = op("render -f " + kSrc + "/examples -o info");
    BOOST_REQUIRE_MESSAGE(r.exit == 0, r.err);
    auto docs = json::parse(r.out).as_array();
    BOOST_TEST(docs.size() == 5u);
    TempDir d;
    auto file = d.write("info.json", r.out);
    // Debian's python3-jsonschema (scripts/setup.sh installs it), a real validator.
    auto v = sh("/usr/bin/python3 -c 'import json, sys, jsonschema\n"
                "schema = json.load(open(sys.argv[1]))\n"
                "jsonschema.Draft202012Validator.check_schema(schema)\n"
                "for doc in json.load(open(sys.argv[2])):\n"
                "    jsonschema.validate(doc, schema, cls=jsonschema.Draft202012Validator)\n"
                "print(\"valid\")' " +
                kSrc + "/sdk/schema/info-v1.schema.json " + file.string());
    BOOST_TEST(v.exit == 0, v.err);
    BOOST_TEST(v.out == "valid\n");
    // The schema can fail: a document without podSets is refused (by the validator, not by a
    // missing module: its error says which).
    auto bad = d.write("bad.json", R"([{"infoVersion": 1}])");
    auto v2 = sh("/usr/bin/python3 -c 'import json, sys, jsonschema\n"
                 "jsonschema.validate(json.load(open(sys.argv[2]))[0], json.load(open(sys.argv[1])))' " +
                 kSrc + "/sdk/schema/info-v1.schema.json " + bad.string());
    BOOST_TEST(v2.exit != 0);
    BOOST_TEST(v2.err.find("jsonschema.exceptions.ValidationError") != std::string::npos, v2.err);
}

// ABI rules 2 and 3 on what ships: one exported symbol, no host symbols referenced.
BOOST_AUTO_TEST_CASE(shipped_plugins_export_only_the_entry_point) {
    int checked = 0;
    for (auto const& e : fs::directory_iterator(kPlugins)) {
        if (e.path().extension() != ".so") continue;
        ++checked;
        auto defined = sh("nm -D --defined-only " + e.path().string() + " | awk '{print $3}' | sort -u");
        BOOST_TEST(defined.exit == 0);
        BOOST_TEST(defined.out == "trn_plugin_entry\n", e.path().filename() << ": " << defined.out);
        auto undefined = sh("nm -D -C --undefined-only " + e.path().string());
        BOOST_TEST(undefined.out.find("trainer::core") == std::string::npos, e.path().filename());
    }
    BOOST_TEST(checked >= 2);
}

BOOST_AUTO_TEST_SUITE_END()

// ---- The trainjobstatus plugin (feature gate TrainJobStatus) through the real binary. ----

BOOST_AUTO_TEST_SUITE(trainjobstatus_render)

namespace {

const char* kTrainerAncestor = "trainer.kubeflow.org/trainjob-ancestor-step";
const char* kCaPem = "-----BEGIN CERTIFICATE-----\nMIIBtest\n-----END CERTIFICATE-----\n";
// The webhook certificate Secret the operator keeps in its namespace; ca.crt is base64(kCaPem).
std::string webhookSecretYaml() {
    return "apiVersion: v1\nkind: Secret\nmetadata: {name: kubeflow-trainer-webhook-cert, namespace: kubeflow-system}\n"
           "data:\n  ca.crt: LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCk1JSUJ0ZXN0Ci0tLS0tRU5EIENFUlRJRklDQVRFLS0tLS0K\n";
}

std::string statusUrl(const std::string& job) {
    return "https://kubeflow-trainer-controller-manager.kubeflow-system.svc:10443/apis/trainer.kubeflow.org/v1alpha1/"
           "namespaces/default/trainjobs/" + job + "/status";
}

const json::object* findByName(const json::value& list, std::string_view name) {
    if (!list.is_array()) return nullptr;
    for (auto const& e : list.as_array())
        if (e.is_object())
            if (auto* n = e.as_object().if_contains("name"); n && n->is_string() && n->as_string() == name)
                return &e.as_object();
    return nullptr;
}

// The JobSet's pod templates: {is-trainer, pod spec} per replicated job.
std::vector<std::pair<bool, const json::object*>> podSpecs(const json::object& jobSet) {
    std::vector<std::pair<bool, const json::object*>> out;
    for (auto const& rj : jobSet.at("spec").at("replicatedJobs").as_array()) {
        auto const& tmpl = rj.at("template").as_object();
        bool trainer = false;
        if (auto* md = tmpl.if_contains("metadata"); md && md->as_object().contains("labels"))
            if (auto* a = md->at("labels").as_object().if_contains(kTrainerAncestor)) trainer = *a == "trainer";
        out.emplace_back(trainer, &tmpl.at("spec").at("template").at("spec").as_object());
    }
    return out;
}

}  // namespace

// Gate off (the default): shipping trainjobstatus.so changes no byte of the output.
BOOST_AUTO_TEST_CASE(render_trainjobstatus_gate_off_is_byte_identical) {
    BOOST_TEST_REQUIRE(pluginBuilt("trainjobstatus"));
    auto listed = op("plugins -o json");
    BOOST_TEST(listed.out.find("\"trainjobstatus\"") != std::string::npos, listed.out);
    TempDir without;
    for (auto const& e : fs::directory_iterator(kPlugins))
        if (e.path().extension() == ".so" && e.path().filename() != "trainjobstatus.so")
            fs::copy_file(e.path(), without.path / e.path().filename());
    TempDir d;
    // The MPI example's SSH Secret exists already, so mpi emits no fresh (random) key.
    auto secret = d.write("secret.yaml", webhookSecretYaml() +
                                             "---\napiVersion: v1\nkind: Secret\n"
                                             "metadata: {name: deepspeed-example-mpi-ssh-auth, namespace: default}\n");
    for (auto const* format : {"json", "yaml"}) {
        BOOST_TEST_CONTEXT(format) {
            std::string args = "render -f " + kSrc + "/examples -f " + secret.string() + " -o " + format;
            auto with = op(args);
            auto base = sh(kBin + " " + args + " --plugin-dir " + without.path.string());
            BOOST_REQUIRE_MESSAGE(with.exit == 0, with.err);
            BOOST_REQUIRE_MESSAGE(base.exit == 0, base.err);
            BOOST_TEST(with.out == base.out);
            for (auto const* absent : {"KUBEFLOW_TRAINER_SERVER", "kubeflow-trainer-token", "-tls-config"})
                BOOST_TEST(with.out.find(absent) == std::string::npos, absent);
        }
    }
}

// Gate on through `render --config FILE`: every TrainJob
// gets `<job>-tls-config` with the Secret's ca.crt, and every container of its trainer
// replicated job the env, the mount and the projected volume; without the Secret the render
// fails with upstream's message.
BOOST_AUTO_TEST_CASE(render_trainjobstatus_gate_on) {
    BOOST_TEST_REQUIRE(pluginBuilt("trainjobstatus"));
    TempDir d;
    auto cfg = d.write("config.yaml",
                       "apiVersion: config.trainer.kubeflow.org/v1alpha1\nkind: Configuration\n"
                       "featureGates:\n  TrainJobStatus: true\n");
    auto secret = d.write("secret.yaml", webhookSecretYaml());
    auto r = op("render --config " + cfg.string() + " -f " + kSrc + "/examples -f " + secret.string() + " -o json");
    BOOST_REQUIRE_MESSAGE(r.exit == 0, r.err);
    std::map<std::string, json::object> configMaps, jobSets;
    const json::value list = json::parse(r.out);
    for (auto const& o : list.at("items").as_array()) {
        std::string name(o.at("metadata").at("name").as_string());
        if (o.at("kind") == "ConfigMap") configMaps[name] = o.as_object();
        if (o.at("kind") == "JobSet") jobSets[name] = o.as_object();
    }
    BOOST_REQUIRE(jobSets.count("plain-example"));
    for (auto const& [job, js] : jobSets) {
        BOOST_TEST_CONTEXT(job) {
            BOOST_REQUIRE(configMaps.count(job + "-tls-config"));
            auto const& cm = configMaps[job + "-tls-config"];
            BOOST_TEST(cm.at("data").at("ca.crt").as_string() == kCaPem);
            BOOST_TEST(cm.at("metadata").at("ownerReferences").as_array()[0].at("name").as_string() == job);
            int trainers = 0;
            for (auto [trainer, spec] : podSpecs(js)) {
                for (auto const& c : spec->at("containers").as_array()) {
                    const json::value* env = c.as_object().if_contains("env");
                    auto* url = env ? findByName(*env, "KUBEFLOW_TRAINER_SERVER_URL") : nullptr;
                    BOOST_TEST((url != nullptr) == trainer);
                    if (url) BOOST_TEST(url->at("value").as_string() == statusUrl(job));
                }
                auto* vol = spec->contains("volumes") ? findByName(spec->at("volumes"), "kubeflow-trainer-token") : nullptr;
                BOOST_TEST((vol != nullptr) == trainer);
                if (vol)
                    BOOST_TEST(vol->at("projected").at("sources").as_array()[0].at("serviceAccountToken").at("audience").as_string() ==
                               "trainer.kubeflow.org/v1alpha1/namespaces/default/trainjobs/" + job + "/status");
                trainers += trainer;
            }
            BOOST_TEST(trainers == 1);
        }
    }
    auto missing = op("render --config " + cfg.string() + " -f " + kSrc + "/examples -o json");
    BOOST_TEST(missing.exit == 1);
    BOOST_TEST(missing.out.empty());
    BOOST_TEST(missing.err.find("failed to look up status server tls secret: secrets \"kubeflow-trainer-webhook-cert\" not found") !=
                   std::string::npos,
               missing.err);
}

// Upstream's shipped controller Configuration (test/fixtures/upstream/config/) through validate
// and render unchanged: accepted, and what it builds is what no --config builds (its values are
// upstream's defaults; the TrainJobStatus gate stays off).
BOOST_AUTO_TEST_CASE(upstreams_configuration_through_validate_and_render) {
    const std::string cfg = std::string(TRAINER_SHARED_DIR) + "/config/controller_manager_config.yaml";
    auto validated = op("validate --config " + cfg + " -f " + kSrc + "/examples");
    BOOST_TEST(validated.exit == 0, validated.err);
    auto with = op("render --config " + cfg + " -f " + kSrc + "/examples -o json");
    auto without = op("render -f " + kSrc + "/examples -o json");
    BOOST_REQUIRE_MESSAGE(with.exit == 0, with.err);
    BOOST_REQUIRE_MESSAGE(without.exit == 0, without.err);
    // The MPI SSH key pair is fresh in every render: compared without its two lines.
    auto keyless = [](const std::string& text) {
        std::istringstream in(text);
        std::string out;
        for (std::string line; std::getline(in, line);)
            if (line.find("\"ssh-privatekey\"") == std::string::npos && line.find("\"ssh-publickey\"") == std::string::npos)
                out += line + "\n";
        return out;
    };
    BOOST_TEST(!with.out.empty());
    BOOST_TEST(keyless(with.out) == keyless(without.out));
    auto bad = op("render --config " + cfg + " --feature-gates NoSuchGate=true -f " + kSrc + "/examples");
    BOOST_TEST(bad.exit == 1);
    BOOST_TEST(bad.err.find("NoSuchGate") != std::string::npos, bad.err);
}

// `certs` into a directory holding planted symlinks (at the old temporary name and at the key's
// name): the private key never goes through a link, tls.key becomes a regular 0600 file; a
// directory it cannot write to is a clear error, exit 1.
BOOST_AUTO_TEST_CASE(certs_never_writes_through_planted_links) {
    TempDir t;
    const fs::path dir = t.path / "out";
    fs::create_directories(dir);
    const fs::path victim = t.path / "victim";
    std::ofstream(victim) << "untouched";
    fs::create_symlink(victim, dir / ".tls.key.tmp");
    fs::create_symlink(victim, dir / "tls.key");
    auto r = opNoDir("certs --out-dir " + dir.string());
    BOOST_TEST_REQUIRE(r.exit == 0, r.err);
    BOOST_TEST(slurp(victim) == "untouched");
    BOOST_TEST(!fs::is_symlink(dir / "tls.key"));
    BOOST_TEST(slurp(dir / "tls.key").find("PRIVATE KEY") != std::string::npos);
    BOOST_TEST(static_cast<int>(fs::status(dir / "tls.key").permissions() & fs::perms::all) == 0600);
    for (auto const& e : fs::directory_iterator(dir)) {
        auto name = e.path().filename().string();
        BOOST_TEST(!(name.ends_with(".tmp") && !e.is_symlink()), "left over: " << name);
    }
    // /proc refuses new files even to root.
    auto refused = opNoDir("certs --out-dir /proc/self");
    BOOST_TEST(refused.exit == 1);
    BOOST_TEST(refused.err.starts_with("error: create /proc/self/.tls.key."), refused.err);
}

BOOST_AUTO_TEST_SUITE_END()

// ---- input limits (issue 12, item 4): every entry point refuses, exit 1, clear error ----

BOOST_AUTO_TEST_SUITE(input_limits)

namespace {

std::string laughs() {
    std::string y = "a: &a [\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\"]\n";
    for (char c = 'b'; c <= 'i'; ++c) {
        y += std::string(1, c) + ": &" + c + " [";
        for (int i = 0; i < 9; ++i) y += std::string(i ? ",*" : "*") + static_cast<char>(c - 1);
        y += "]\n";
    }
    return y;
}

// Peak resident set (KiB) of `cmd` and its children alone: measured in a forked child.
long peakRssKiB(const std::string& cmd) {
    int fds[2];
    BOOST_REQUIRE(::pipe(fds) == 0);
    pid_t pid = ::fork();
    if (pid == 0) {
        int rc = std::system(cmd.c_str());
        (void)rc;
        struct rusage ru {};
        ::getrusage(RUSAGE_CHILDREN, &ru);
        long v = ru.ru_maxrss;
        ssize_t w = ::write(fds[1], &v, sizeof v);
        ::_exit(w == sizeof v ? 0 : 1);
    }
    ::close(fds[1]);
    long v = -1;
    BOOST_REQUIRE(::read(fds[0], &v, sizeof v) == static_cast<ssize_t>(sizeof v));
    ::close(fds[0]);
    ::waitpid(pid, nullptr, 0);
    return v;
}

const std::string kJob =
    "apiVersion: trainer.kubeflow.org/v1alpha1\nkind: TrainJob\nmetadata: {name: x}\n"
    "spec: {runtimeRef: {name: torch-distributed}}\n";

}  // namespace

BOOST_AUTO_TEST_CASE(self_referencing_alias_is_refused_by_every_command) {
    TempDir d;
    auto f = d.write("loop.yaml", "a: &a [*a]").string();
    for (std::string cmd : {"validate -f " + f, "render -f " + f, "apply --store " + d.file("s.db") + " -f " + f}) {
        auto r = op(cmd);
        BOOST_TEST(r.exit == 1, cmd << ": exit " << r.exit << " " << r.err);
        BOOST_TEST(r.err.find("alias cycle") != std::string::npos, r.err);
    }
    auto run = op("run --store " + d.file("r.db") + " --config " + f);
    BOOST_TEST(run.exit == 1, run.err);
    BOOST_TEST(run.err.find("alias cycle") != std::string::npos, run.err);
}

BOOST_AUTO_TEST_CASE(billion_laughs_is_refused_within_the_expansion_bound) {
    TempDir d;
    auto f = d.write("laughs.yaml", laughs()).string();
    auto r = op("validate -f " + f);
    BOOST_TEST(r.exit == 1);
    BOOST_TEST(r.err.find("expands to more than 1048576 nodes") != std::string::npos, r.err);
    long kib = peakRssKiB(kBin + " validate -f " + f + " --plugin-dir " + kPlugins + " 2>/dev/null");
    BOOST_TEST(kib > 0);
    BOOST_TEST(kib < 1024 * 1024, "peak RSS " << kib << " KiB");  // unbounded: > 4 GB
}

BOOST_AUTO_TEST_CASE(deep_json_duplicate_keys_unknown_kind_and_duplicate_objects) {
    TempDir d;
    auto deep = d.write("deep.json", std::string(600, '[') + std::string(600, ']')).string();
    auto r = op("validate -f " + deep);
    BOOST_TEST(r.exit == 1);
    BOOST_TEST(r.err.find("nesting deeper than 256") != std::string::npos, r.err);
    BOOST_TEST(r.err.find("malformed YAML") == std::string::npos, r.err);

    auto dup = d.write("dup.json", R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a","name":"b"}})").string();
    r = op("render -f " + dup);
    BOOST_TEST(r.exit == 1);
    BOOST_TEST(r.err.find("metadata: duplicate key \"name\"") != std::string::npos, r.err);

    auto unk = d.write("unk.yaml", kJob + "---\napiVersion: v1\nkind: ConfgMap\nmetadata: {name: c}\n").string();
    r = op("validate -f " + unk);
    BOOST_TEST(r.exit == 1);
    BOOST_TEST(r.err.find("unk.yaml (document 2): kind: unknown apiVersion/kind \"v1\" \"ConfgMap\"") != std::string::npos,
               r.err);

    auto job = d.write("job.yaml", kJob).string();
    for (std::string cmd : {"render -f " + job + " -f " + job, "apply --store " + d.file("s.db") + " -f " + job + " -f " + job}) {
        r = op(cmd);
        BOOST_TEST(r.exit == 1, cmd);
        BOOST_TEST(r.out.empty());
        BOOST_TEST(r.err.find("duplicate object TrainJob default/x") != std::string::npos, r.err);
    }
}

BOOST_AUTO_TEST_CASE(a_huge_name_is_echoed_truncated) {
    TempDir d;
    std::string name(10 << 20, 'a');
    auto f = d.write("big.yaml", "apiVersion: trainer.kubeflow.org/v1alpha1\nkind: TrainJob\nmetadata: {name: " + name +
                                     "}\nspec: {runtimeRef: {name: torch-distributed}}\n").string();
    auto r = op("validate -f " + f);
    BOOST_TEST(r.exit == 1);
    BOOST_TEST(r.err.find("... (10485760 bytes)") != std::string::npos);
    BOOST_TEST(r.err.size() < 64 * 1024u, "stderr has " << r.err.size() << " bytes");
}

BOOST_AUTO_TEST_SUITE_END()
