// The SDK's real host for plugin unit tests (sdk/include/trainer/testing/real_host.hpp), through
// its public API only: the operator's Info builder, edit ledger, registry and pipeline.
#define BOOST_TEST_MODULE sdk_testing_real_host_test
#include <boost/test/unit_test.hpp>

#include <trainer/testing/real_host.hpp>

#include <sys/stat.h>

#include <cstdio>
#include <filesystem>
#include <memory>

using namespace trainer::sdk;
using testing::Hook;
using testing::RealHost;

namespace {

// An ML policy "alpha": ALPHA_NODES and GREETING on the trainer; refuses more than 100 nodes.
// Its env: claim makes the host refuse a user's ALPHA_NODES (core/plugin/reserved_env.cpp).
struct Alpha : Plugin, CustomValidation, EnforceMLPolicy {
    std::string greeting;
    Alpha(const json::object& config, Context& ctx) : greeting(getString(config, "greeting").value_or("hi")) {
        if (config.contains("fail")) ctx.error("fail", "alpha refuses this configuration");
    }
    static PluginMeta meta() { return {"alpha", "1.0.0", "test ML policy", 10, true, {"mlPolicy.alpha", "env:ALPHA_NODES"}, {}}; }
    void validate(const Info& info, Context& ctx) override {
        auto* trainer = info.trainer();
        if (auto n = trainer ? getInt(*trainer, "numNodes") : std::nullopt; n && *n > 100)
            ctx.error("spec.trainer.numNodes", "alpha runs at most 100 nodes");
    }
    void enforceMLPolicy(const Info& info, Edits& edits, Context& ctx) override {
        auto t = applyTrainerNumNodes(info, edits);
        if (!t) return ctx.error("spec.template.spec.replicatedJobs", "needs a trainer job");
        edits.upsertEnv(t->name, "node", "ALPHA_NODES", std::to_string(t->count));
        edits.upsertEnv(t->name, "node", "GREETING", greeting);
        ctx.info("alpha sized " + t->name);
    }
};

// Claims the same policy as Alpha.
struct Thief : Plugin, EnforceMLPolicy {
    Thief(const json::object&, Context&) {}
    static PluginMeta meta() { return {"thief", "1.0.0", "steals", 10, true, {"mlPolicy.alpha"}, {}}; }
    void enforceMLPolicy(const Info&, Edits&, Context&) override {}
};

// An ML policy hook without a policy claim.
struct Unclaimed : Plugin, EnforceMLPolicy {
    Unclaimed(const json::object&, Context&) {}
    static PluginMeta meta() { return {"unclaimed", "1.0.0", "no claim", 10, true, {}, {}}; }
    void enforceMLPolicy(const Info&, Edits&, Context&) override {}
};

// Runs on every TrainJob (no policy claim): sets the trainer count to 7 and writes ALPHA_NODES.
struct Rival : Plugin, EnforcePodSpec {
    bool stealEnv;
    Rival(const json::object& config, Context&) : stealEnv(getBool(config, "stealEnv").value_or(false)) {}
    static PluginMeta meta() { return {"rival", "1.0.0", "disagrees", 20, true, {}, {}}; }
    void enforcePodSpec(const Info&, Edits& edits, Context&) override {
        if (stealEnv) edits.upsertEnv("node", "node", "ALPHA_NODES", "99");
        else edits.setCount("node", 7);
    }
};

// Builds a ConfigMap from a Secret it looks up, and reports the TrainJob's status.
struct Builder : Plugin, ComponentBuilder, TrainJobStatus {
    Builder(const json::object&, Context&) {}
    static PluginMeta meta() { return {"builder", "1.0.0", "builds", 30, true, {"kind:v1/ConfigMap"}, {}}; }
    void build(const Info& info, Objects& objects, Context& ctx) override {
        auto secret = ctx.lookup("v1", "Secret", info.ns(), "shared");
        auto* ps = info.podSet("node");
        objects.add(json::object{
            {"apiVersion", "v1"},
            {"kind", "ConfigMap"},
            {"metadata", json::object{{"name", std::string(info.name()) + "-nodes"}, {"namespace", info.ns()},
                                      {"ownerReferences", json::array{controllerRef(info)}}}},
            {"data", json::object{{"count", std::to_string(ps ? getInt(*ps, "count").value_or(-1) : -1)},
                                  {"secret", secret ? "found" : "absent"}}}});
    }
    std::optional<json::object> status(const json::object& trainJob, Context&) override {
        auto* md = getObject(trainJob, "metadata");
        return json::object{{"observed", md ? getString(*md, "name").value_or("") : ""}};
    }
};

json::object theRuntime(json::object mlPolicy = {{"numNodes", 2}, {"alpha", json::object{}}}) {
    auto rt = json::parse(R"({"apiVersion":"trainer.kubeflow.org/v1alpha1","kind":"TrainingRuntime",
      "metadata":{"name":"rt","namespace":"default"},
      "spec":{"template":{"spec":{"replicatedJobs":[{"name":"node",
        "template":{"metadata":{"labels":{"trainer.kubeflow.org/trainjob-ancestor-step":"trainer"}},
          "spec":{"template":{"spec":{"containers":[{"name":"node","image":"img",
            "resources":{"requests":{"cpu":"2"}}}]}}}}}]}}}})")
                  .as_object();
    rt["spec"].as_object()["mlPolicy"] = std::move(mlPolicy);
    return rt;
}

json::object trainJob(json::object trainer = {}) {
    auto tj = json::parse(R"({"apiVersion":"trainer.kubeflow.org/v1alpha1","kind":"TrainJob",
      "metadata":{"name":"job","namespace":"default","uid":"uid-1"},
      "spec":{"runtimeRef":{"name":"rt","kind":"TrainingRuntime"}}})")
                  .as_object();
    if (!trainer.empty()) tj["spec"].as_object()["trainer"] = std::move(trainer);
    return tj;
}

const json::object& nodeContainer(const json::object& info) {
    auto* c = testing::podSetContainer(info, "node", "node");
    BOOST_REQUIRE(c);
    return *c;
}

std::string env(const json::object& info, std::string_view name) {
    auto* e = findByKey(getArray(nodeContainer(info), "env"), "name", name);
    return e ? std::string(getString(*e, "value").value_or("<valueFrom>")) : "<unset>";
}

int64_t count(const json::object& info) {
    auto* ps = findByKey(getArray(info, "podSets"), "name", "node");
    return ps ? getInt(*ps, "count").value_or(-1) : -1;
}

bool hasRejection(const RealHost& h, std::string_view code, std::string_view text) {
    for (auto const& r : h.rejected())
        if (r.code == code && r.reason.find(text) != std::string::npos) return true;
    return false;
}

}  // namespace

BOOST_AUTO_TEST_CASE(build_info_is_the_operators) {
    auto out = testing::buildInfo(trainJob({{"numNodes", 3}, {"resourcesPerNode", json::object{{"requests", json::object{{"cpu", "4"}}}}}}),
                                  theRuntime());
    BOOST_TEST_REQUIRE(out.ok(), out.describe());
    BOOST_TEST(getInt(out.info, "infoVersion").value_or(0) == 1);
    // The CRD defaults of the TrainJob are applied, as the API server stores it.
    BOOST_TEST(getString(*getPath(out.info, {"trainJob", "spec", "runtimeRef"}), "apiGroup").value_or("") == "trainer.kubeflow.org");
    // PodSet count from the runtime's numNodes (the TrainJob's numNodes is the plugins' to apply),
    // resourcesPerNode merged into the trainer container, singlePodRequests computed from it.
    BOOST_TEST(count(out.info) == 2);
    BOOST_TEST(json::serialize(nodeContainer(out.info).at("resources")) == R"({"requests":{"cpu":"4"}})");
    BOOST_TEST(json::serialize(Info(out.info).podSet("node")->at("singlePodRequests")) == R"({"cpu":"4"})");
    BOOST_TEST(!out.info.contains("operator"));
}

BOOST_AUTO_TEST_CASE(build_info_errors_name_the_field_and_input) {
    auto rt = theRuntime();
    rt["spec"].as_object().erase("template");
    auto out = testing::buildInfo(trainJob({{"resourcesPerNode", json::object{{"requests", json::object{{"cpu", "lots"}}}}}}), rt);
    BOOST_TEST(!out.ok());
    bool runtimeError = false, trainJobError = false;
    for (auto const& e : out.errors()) {
        runtimeError |= e.path == "spec.template" && e.origin == "TrainingRuntime default/rt";
        trainJobError |= e.path.rfind("spec.trainer.resourcesPerNode", 0) == 0 && e.origin.empty();
    }
    BOOST_TEST(runtimeError, out.describe());
    BOOST_TEST(trainJobError, out.describe());
}

BOOST_AUTO_TEST_CASE(fake_host_edits_through_the_real_ledger) {
    auto info = testing::buildInfo(trainJob({{"numNodes", 4}}), theRuntime()).info;
    testing::Host host;
    auto ctx = host.context("alpha");
    Alpha alpha(json::object{}, ctx);
    Edits edits(ctx);
    alpha.enforceMLPolicy(Info(info), edits, ctx);
    auto out = testing::applyEdits(info, host.emitted, "alpha");
    BOOST_TEST_REQUIRE(out.ok(), out.describe());
    BOOST_TEST(count(out.info) == 4);
    BOOST_TEST(env(out.info, "ALPHA_NODES") == "4");
    BOOST_TEST(env(info, "ALPHA_NODES") == "<unset>");  // the input is not changed

    // The host's refusals, worded as the operator words them.
    auto bad = testing::applyEdits(info, {json::object{{"op", "set"}, {"path", "/operator/x"}, {"value", 1}},
                                          json::object{{"op", "set"}, {"path", "/podSets/node/count"}, {"value", 9}}});
    BOOST_REQUIRE_EQUAL(bad.errors().size(), 1u);
    BOOST_TEST(bad.errors()[0].message == "plugin test may not edit /operator/x");
    BOOST_TEST(count(bad.info) == 2);  // stopped at the refused edit
    auto missing = testing::applyEdits(info, {json::object{{"op", "set"}, {"path", "/podSets/launcher/count"}, {"value", 1}}});
    BOOST_TEST(missing.errors().at(0).message ==
               "plugin test edited /podSets/launcher/count, but podSets has no element with name \"launcher\"");
}

BOOST_AUTO_TEST_CASE(ledger_reports_conflicts_and_claims) {
    auto info = testing::buildInfo(trainJob(), theRuntime()).info;
    testing::Ledger ledger;
    ledger.claim("env:ALPHA_NODES", "alpha");
    auto set = [](std::string path, json::value v) { return json::object{{"op", "set"}, {"path", path}, {"value", v}}; };
    auto a = ledger.apply(info, "alpha", {set("/podSets/node/count", 3)});
    BOOST_TEST_REQUIRE(a.ok(), a.describe());
    auto same = ledger.apply(a.info, "other", {set("/podSets/node/count", 3)});
    BOOST_TEST(same.ok(), same.describe());  // the same value is accepted
    auto b = ledger.apply(a.info, "other", {set("/podSets/node/count", 5)});
    BOOST_TEST(b.errors().at(0).message ==
               "plugins alpha and other both write /podSets/node/count with different values (alpha: 3, other: 5)");
    auto c = ledger.apply(a.info, "other",
                          {set("/podSets/node/containers/node/env/ALPHA_NODES", json::object{{"name", "ALPHA_NODES"}, {"value", "1"}})});
    BOOST_TEST(c.errors().at(0).message ==
               "plugin other wrote /podSets/node/containers/node/env/ALPHA_NODES, but \"env:ALPHA_NODES\" is claimed by plugin alpha");
}

BOOST_AUTO_TEST_CASE(registry_checks_plugin_classes) {
    RealHost host;
    BOOST_TEST(host.add<Alpha>());
    BOOST_TEST(!host.add<Thief>());
    BOOST_TEST(hasRejection(host, "conflicting_claim",
                            "plugin in-process:thief was rejected: its claim \"mlPolicy.alpha\" is already held by plugin alpha (in-process:alpha)"));
    BOOST_TEST(!host.add<Unclaimed>());
    BOOST_TEST(hasRejection(host, "unclaimed_policy_hook", "implements EnforceMLPolicy but claims no ML policy"));
    BOOST_TEST(!host.add<Alpha>());
    BOOST_TEST(hasRejection(host, "duplicate_name", "a plugin named alpha is already loaded from in-process:alpha"));
    BOOST_TEST((host.plugins() == std::vector<std::string>{"alpha"}));

    RealHost refusing;
    BOOST_TEST(!refusing.add<Alpha>(json::object{{"fail", true}}));
    BOOST_TEST(hasRejection(refusing, "create_failed", "its create function failed: alpha refuses this configuration"));
    BOOST_TEST(!refusing.addEntry(nullptr, "nothing"));
    BOOST_TEST(hasRejection(refusing, "no_entry_point", "plugin nothing was rejected: it has no entry point."));
}

BOOST_AUTO_TEST_CASE(run_one_hook_applies_its_edits) {
    RealHost host;
    BOOST_REQUIRE(host.add<Alpha>(json::object{{"greeting", "hello"}}));
    BOOST_REQUIRE(host.add<Rival>());
    auto info = testing::buildInfo(trainJob({{"numNodes", 3}}), theRuntime()).info;
    auto out = host.run(Hook::EnforceMLPolicy, info);
    BOOST_TEST_REQUIRE(out.ok(), out.describe());
    BOOST_TEST(count(out.info) == 3);  // Rival's EnforcePodSpec did not run
    BOOST_TEST(env(out.info, "GREETING") == "hello");
    BOOST_TEST((out.logs == std::vector<std::string>{"alpha: alpha sized node"}));
    BOOST_TEST(getPath(out.info, {"operator", "featureGates"}));  // the host's operator member

    // A runtime configuring a policy no loaded plugin claims is refused, as the operator refuses it.
    auto other = testing::buildInfo(trainJob(), theRuntime({{"torch", json::object{}}})).info;
    auto refused = host.run(Hook::EnforceMLPolicy, other);
    BOOST_REQUIRE_EQUAL(refused.errors().size(), 1u);
    BOOST_TEST(refused.errors()[0].path == "spec.mlPolicy");
    BOOST_TEST(refused.errors()[0].message ==
               "TrainingRuntime \"rt\" configures mlPolicy.torch, but no loaded plugin claims it (loaded plugins: alpha, rival)");

    // CustomValidation gets the admission member; the host adds its refusal of claimed env names.
    auto v = host.run(Hook::CustomValidation, testing::buildInfo(trainJob({{"numNodes", 101}}), theRuntime()).info);
    BOOST_REQUIRE_EQUAL(v.errors().size(), 1u);
    BOOST_TEST(v.errors()[0].path == "spec.trainer.numNodes");
    BOOST_TEST(v.errors()[0].message == "alpha runs at most 100 nodes");
    BOOST_TEST(getString(*getObject(v.info, "admission"), "operation").value_or("") == "CREATE");
    auto claimed = host.run(Hook::CustomValidation,
                            testing::buildInfo(trainJob({{"env", json::array{json::object{{"name", "ALPHA_NODES"}}}}}), theRuntime()).info);
    BOOST_REQUIRE_EQUAL(claimed.errors().size(), 1u);
    BOOST_TEST(claimed.errors()[0].path == "spec.trainer.env");
    BOOST_TEST(claimed.errors()[0].message == "must not have reserved envs, invalid envs configured: [ALPHA_NODES]");
}

BOOST_AUTO_TEST_CASE(build_phases_report_conflicts_between_plugins) {
    RealHost host;
    BOOST_REQUIRE(host.add<Alpha>());
    BOOST_REQUIRE(host.add<Rival>());
    BOOST_REQUIRE(host.add<Builder>());
    auto info = testing::buildInfo(trainJob({{"numNodes", 3}}), theRuntime()).info;
    auto out = host.build(info);
    BOOST_REQUIRE_EQUAL(out.errors().size(), 1u);
    BOOST_TEST(out.errors()[0].message ==
               "plugins alpha and rival both write /podSets/node/count with different values (alpha: 3, rival: 7)");
    BOOST_TEST(out.objects.empty());

    RealHost thief;
    BOOST_REQUIRE(thief.add<Alpha>());
    BOOST_REQUIRE(thief.add<Rival>(json::object{{"stealEnv", true}}));
    auto stolen = thief.build(info);
    BOOST_TEST(stolen.errors().at(0).message ==
               "plugin rival wrote /podSets/node/containers/node/env/ALPHA_NODES, but \"env:ALPHA_NODES\" is claimed by plugin alpha");
}

BOOST_AUTO_TEST_CASE(build_train_job_from_the_cluster) {
    RealHost host;
    BOOST_REQUIRE(host.add<Alpha>());
    BOOST_REQUIRE(host.add<Builder>());
    host.addObject(theRuntime());
    host.addObject(json::object{{"apiVersion", "v1"}, {"kind", "Secret"},
                                {"metadata", json::object{{"name", "shared"}, {"namespace", "default"}}}});
    auto out = host.buildTrainJob(trainJob({{"numNodes", 5}}));
    BOOST_TEST_REQUIRE(out.ok(), out.describe());
    BOOST_REQUIRE(out.runtimeSnapshot);
    BOOST_TEST(getString(*getObject(*out.runtimeSnapshot, "metadata"), "name").value_or("") == "job-runtime-snapshot");
    auto* cm = out.object("ConfigMap", "job-nodes");
    BOOST_REQUIRE(cm);
    BOOST_TEST(json::serialize(cm->at("data")) == R"({"count":"5","secret":"found"})");
    BOOST_TEST(env(out.info, "ALPHA_NODES") == "5");

    // A TrainJob on a runtime the cluster lacks: the operator's not-found text.
    auto missing = host.buildTrainJob(json::parse(R"({"apiVersion":"trainer.kubeflow.org/v1alpha1","kind":"TrainJob",
      "metadata":{"name":"job","namespace":"default"},"spec":{"runtimeRef":{"name":"gone","kind":"TrainingRuntime"}}})").as_object());
    BOOST_TEST_REQUIRE(!missing.ok());
    BOOST_TEST(missing.errors()[0].path == "spec.runtimeRef");

    // Every read failing: the lookup fails the hook, nothing is built.
    host.failClusterReads("store down");
    auto down = host.build(out.info);
    BOOST_TEST(!down.ok());
    BOOST_TEST(down.objects.empty());
    BOOST_TEST(down.describe().find("cluster read of Secret default/shared failed: store down") != std::string::npos,
               down.describe());
}

BOOST_AUTO_TEST_CASE(admission_and_status) {
    RealHost host;
    BOOST_REQUIRE(host.add<Alpha>());
    BOOST_REQUIRE(host.add<Builder>());
    host.addObject(theRuntime());
    BOOST_TEST(host.admit(trainJob()).ok());
    auto reserved = host.admit(trainJob({{"env", json::array{json::object{{"name", "X"}}, json::object{{"name", "ALPHA_NODES"}}}}}));
    BOOST_REQUIRE_EQUAL(reserved.errors().size(), 1u);
    BOOST_TEST(reserved.errors()[0].path == "spec.trainer.env");
    // The CRD schema runs first: an undeclared field is refused before any plugin runs.
    auto typo = trainJob();
    typo["spec"].as_object()["trainr"] = json::object{};
    auto schema = host.admit(typo);
    BOOST_TEST(!schema.ok());
    BOOST_TEST(schema.describe().find("spec.trainr") != std::string::npos, schema.describe());

    auto st = host.status(trainJob());
    BOOST_TEST_REQUIRE(st.ok(), st.describe());
    BOOST_REQUIRE(st.status);
    BOOST_TEST(json::serialize(*st.status) == R"({"observed":"job"})");
    BOOST_TEST(host.setFeatureGate("TrainJobStatus", true));
    BOOST_TEST(!host.setFeatureGate("NoSuchGate", true));
}

BOOST_AUTO_TEST_CASE(plugin_files_load_as_the_operator_loads_them) {
    RealHost host;
    BOOST_TEST_REQUIRE(host.addFile(PLAINML_SO), (host.rejected().empty() ? "" : host.rejected()[0].reason));
    BOOST_TEST((host.plugins() == std::vector<std::string>{"plainml"}));
    auto out = host.buildTrainJob(trainJob({{"numNodes", 3}}));  // no runtime in the cluster
    BOOST_TEST(!out.ok());
    host.addObject(theRuntime({{"numNodes", 1}}));
    out = host.buildTrainJob(trainJob({{"numNodes", 3}}));
    BOOST_TEST_REQUIRE(out.ok(), out.describe());
    BOOST_TEST(count(out.info) == 3);

    // A file others may write is refused, as the operator refuses it.
    namespace fs = std::filesystem;
    const fs::path dir = fs::temp_directory_path() / ("sdk-testing-" + std::to_string(::getpid()));
    fs::create_directories(dir);
    fs::copy_file(PLAINML_SO, dir / "plainml.so", fs::copy_options::overwrite_existing);
    ::chmod((dir / "plainml.so").c_str(), 0666);
    RealHost other;
    BOOST_TEST(!other.addFile((dir / "plainml.so").string()));
    BOOST_TEST(hasRejection(other, "insecure_mode", "writable by group"));
    fs::remove_all(dir);
}

// The library exports its API and nothing else (the host's code inside stays hidden).
BOOST_AUTO_TEST_CASE(library_exports_only_the_api) {
    std::unique_ptr<FILE, int (*)(FILE*)> nm(::popen("nm -D --defined-only -C " TESTING_LIBRARY, "r"), &::pclose);
    BOOST_REQUIRE(nm);
    std::string line;
    int api = 0;
    std::vector<std::string> others;
    for (char buf[4096]; std::fgets(buf, sizeof buf, nm.get());) {
        line = buf;
        if (line.find(" trainer::sdk::testing::") != std::string::npos) ++api;
        else others.push_back(line);
    }
    BOOST_TEST(api > 10);
    BOOST_TEST(others.empty(), (others.empty() ? "" : others[0]));
}
