// Upstream's four Flux examples (test/fixtures/upstream/flux) through the real binary and the
// built plugin directory: they validate, and `render` builds what upstream's code builds
// (golden/*.json, derived from upstream's Go by golden/derive.py), with a real X25519 key pair
// that a second render against the stored Secret does not replace.
#define BOOST_TEST_MODULE flux_render_test
#include <boost/test/unit_test.hpp>

#include "../../support/process.hpp"
#include "flux_test_kit.hpp"

#include <boost/json.hpp>

#include <set>

namespace json = boost::json;
using trainer::test::Result;
using trainer::test::sh;
using trainer::test::slurp;
using trainer::test::TempDir;

namespace {

const std::string kBin = TRAINER_BIN;
const std::string kPlugins = TRAINER_PLUGIN_BUILD_DIR;
const std::string kFixtures = std::string(TRAINER_SHARED_DIR) + "/flux/";
const std::string kGolden = std::string(FLUX_GOLDEN_DIR) + "/";
const std::string kRuntime = kFixtures + "flux-runtime.yaml";
const std::vector<std::string> kJobs{"lammps-train-job", "lammps-train-gpus", "flux-interactive"};

Result op(const std::string& args) { return sh(kBin + " " + args + " --plugin-dir " + kPlugins); }

// The objects `render` prints for these files, without the runtime snapshot ConfigMap (core's).
std::vector<json::object> render(const std::vector<std::string>& files) {
    std::string args = "render -o json";
    for (auto const& f : files) args += " -f " + f;
    Result r = op(args);
    BOOST_TEST_REQUIRE(r.exit == 0, r.err);
    std::vector<json::object> out;
    const json::value list = json::parse(r.out);  // kept: the loop reads into it
    for (auto const& v : list.at("items").as_array()) {
        std::string name(v.at("metadata").at("name").as_string());
        if (v.at("kind") == "ConfigMap" && name.ends_with("-runtime-snapshot")) continue;
        out.push_back(v.as_object());
    }
    return out;
}

const json::object& find(const std::vector<json::object>& objs, std::string_view kind) {
    for (auto const& o : objs)
        if (o.at("kind").as_string() == kind && !o.at("metadata").at("name").as_string().ends_with("-snapshot")) return o;
    throw std::runtime_error("no " + std::string(kind) + " rendered");
}

std::string certOf(const json::object& secret) {
    return fluxtest::base64Decode(secret.at("data").at("curve.cert").as_string());
}

// Empty lists dropped (our JobSet builder writes `env: []`/`ports: []` where upstream writes
// none; the same pod), owner uids and the random certificate replaced by the golden's placeholders.
json::value normalise(const json::value& v) {
    if (v.is_array()) {
        json::array a;
        for (auto const& e : v.as_array()) a.push_back(normalise(e));
        return a;
    }
    if (!v.is_object()) return v;
    json::object o;
    for (auto const& kv : v.as_object()) {
        if (kv.value().is_array() && kv.value().as_array().empty()) continue;
        if (kv.key() == "uid") o[kv.key()] = "<uid>";
        else if (kv.key() == "curve.cert") o[kv.key()] = "<curve.cert>";
        else o[kv.key()] = normalise(kv.value());
    }
    return o;
}

std::string writeYaml(TempDir& d, const std::string& name, const std::string& text) { return d.write(name, text).string(); }

}  // namespace

BOOST_AUTO_TEST_SUITE(flux_render)

BOOST_AUTO_TEST_CASE(upstream_examples_validate) {
    for (auto const& job : kJobs) {
        Result r = op("validate -f " + kRuntime + " -f " + kFixtures + job + ".yaml");
        BOOST_TEST(r.exit == 0, job << ": " << r.err);
        BOOST_TEST(r.err.empty(), job << ": " << r.err);
    }
}

BOOST_AUTO_TEST_CASE(upstream_examples_render_as_upstream_builds_them) {
    for (auto const& job : kJobs) {
        BOOST_TEST_CONTEXT(job) {
            auto objs = render({kRuntime, kFixtures + job + ".yaml"});
            std::set<std::string> owners;
            for (auto const& o : objs)
                for (auto const& ref : o.at("metadata").at("ownerReferences").as_array())
                    owners.insert(std::string(ref.at("uid").as_string()));
            BOOST_TEST(owners.size() == 1u);  // one TrainJob owns everything
            BOOST_TEST(!owners.begin()->empty());
            BOOST_TEST(fluxtest::checkKeyPair(certOf(find(objs, "Secret"))) == "");

            json::array golden = json::parse(slurp(kGolden + job + ".json")).as_array();
            BOOST_TEST_REQUIRE(objs.size() == golden.size());
            for (auto const& want : golden) {
                const auto& got = find(objs, want.at("kind").as_string());
                BOOST_TEST(normalise(got) == normalise(want), "got " << got << "\nwant " << want);
            }
        }
    }
}

BOOST_AUTO_TEST_CASE(key_fields_of_lammps_train_job) {
    auto objs = render({kRuntime, kFixtures + "lammps-train-job.yaml"});
    const auto& pod = find(objs, "JobSet").at("spec").at("replicatedJobs").at(0).at("template").at("spec").at(
        "template").at("spec");
    const auto& node = pod.at("containers").at(0);
    BOOST_TEST(node.at("command") == json::parse(R"(["/bin/bash", "/etc/flux-config/entrypoint.sh",
        "lmp -v x 4 -v y 4 -v z 4 -in in.reaxc.hns -nocite"])"));
    BOOST_TEST(!node.as_object().contains("args"));
    const auto& inits = pod.at("initContainers").as_array();
    BOOST_TEST_REQUIRE(inits.size() == 1u);
    BOOST_TEST(inits[0].at("name") == "flux-installer");
    BOOST_TEST(inits[0].at("image") == "ghcr.io/converged-computing/flux-view-ubuntu:tag-jammy");
    BOOST_TEST(inits[0].at("command") == json::parse(R"(["/bin/bash", "/etc/flux-config/init.sh"])"));
    std::vector<std::string> volumes;
    for (auto const& v : pod.at("volumes").as_array()) volumes.emplace_back(v.at("name").as_string());
    BOOST_TEST((volumes == std::vector<std::string>{"spack-install", "flux-install", "lammps-flux-flux-entrypoint",
                                                    "shared-memory", "flux-curve"}));
    const auto& cm = find(objs, "ConfigMap");
    BOOST_TEST(cm.at("metadata").at("name") == "lammps-flux-flux-entrypoint");
    const auto& data = cm.at("data").as_object();
    BOOST_TEST(data.size() == 2u);
    std::string entry(data.at("entrypoint.sh").as_string()), init(data.at("init.sh").as_string());
    BOOST_TEST(entry.find("flags=\"-N 2 -n 8  \"") != std::string::npos);
    BOOST_TEST(entry.find("--cores=0-3 > /tmp/R") != std::string::npos);
    BOOST_TEST(init.find("default_connect = \"tcp://%h.lammps-flux.default.svc.cluster.local:%p\"") !=
               std::string::npos);
    BOOST_TEST(init.find("hosts=\"lammps-flux-node-0-[0-1]\"") != std::string::npos);
    const auto& secret = find(objs, "Secret");
    BOOST_TEST(secret.at("metadata").at("name") == "lammps-flux-flux-curve");
    BOOST_TEST(secret.at("data").as_object().size() == 1u);
    BOOST_TEST(fluxtest::certFields(certOf(secret))["name"] == "lammps-flux");
}

BOOST_AUTO_TEST_CASE(render_against_the_stored_secret_keeps_the_key) {
    const std::string job = kFixtures + "lammps-train-job.yaml";
    auto first = render({kRuntime, job});
    const json::object secret = find(first, "Secret");
    TempDir d;
    const std::string stored = d.write("secret.json", json::serialize(secret)).string();
    for (int i = 0; i < 2; ++i) {
        auto again = render({kRuntime, job, stored});
        BOOST_TEST(find(again, "Secret") == secret);
        BOOST_TEST(find(again, "ConfigMap") == find(first, "ConfigMap"));
    }
    // Without it, a new key pair: the key is stored state, not derived from the TrainJob.
    auto fresh = render({kRuntime, job});
    BOOST_TEST(certOf(find(fresh, "Secret")) != certOf(secret));
    BOOST_TEST(fluxtest::checkKeyPair(certOf(find(fresh, "Secret"))) == "");
}

BOOST_AUTO_TEST_CASE(trainjob_without_trainer_renders) {
    TempDir d;
    auto tj = writeYaml(d, "bare.yaml", R"(apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata:
  name: bare
spec:
  runtimeRef:
    name: flux-distributed
)");
    auto objs = render({kRuntime, tj});
    const auto& node = find(objs, "JobSet").at("spec").at("replicatedJobs").at(0).at("template").at("spec").at(
        "template").at("spec").at("containers").at(0);
    BOOST_TEST(node.at("command") == json::parse(R"(["/bin/bash", "/etc/flux-config/entrypoint.sh", ""])"));
    std::string init(find(objs, "ConfigMap").at("data").at("init.sh").as_string());
    BOOST_TEST(init.find("hosts=\"bare-node-0-[0]\"") != std::string::npos);
}

BOOST_AUTO_TEST_SUITE_END()
