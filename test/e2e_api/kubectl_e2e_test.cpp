// End-to-end: real kubectl (v1.32) against the Kubernetes API that `trainer-operator run` serves
// in embedded mode (the flags are in README.md, "Command line"). One operator
// process serves every case; the cases run in declaration order and the later ones use the
// objects the first ones applied (the examples), so each case names the objects it relies on.
#define BOOST_TEST_MODULE test_e2e_api_kubectl
#include <boost/test/unit_test.hpp>

#include <boost/json.hpp>

#include "../support/process.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

namespace fs = std::filesystem;
namespace json = boost::json;
using namespace std::chrono_literals;

namespace {

using trainer::test::Result;
using trainer::test::sh;
using trainer::test::slurp;
using trainer::test::TempDir;

const std::string kBin = TRAINER_BIN;
const std::string kPlugins = TRAINER_PLUGIN_BUILD_DIR;
const std::string kExamples = std::string(TRAINER_SOURCE_DIR) + "/examples";

// The five example TrainJobs (examples/2x-*.yaml) and the runtime each names.
const std::vector<std::pair<std::string, std::string>> kExampleJobs{
    {"multi-node-example", "torch-distributed"},   {"deepspeed-example", "deepspeed-distributed"},
    {"plain-example", "plain-with-initializers"}, {"gang-example", "torch-coscheduling"},
    {"volcano-example", "torch-volcano"},
};

// kubectl: $KUBECTL when set, else the Debian package's path. Missing kubectl fails the test.
std::string kubectlPath() {
    const char* e = std::getenv("KUBECTL");
    return e && *e ? e : "/usr/bin/kubectl";
}

// Single-quotes a word for /bin/sh.
std::string quote(const std::string& s) {
    std::string out = "'";
    for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return out + "'";
}

bool contains(const std::string& text, const std::string& needle) { return text.find(needle) != std::string::npos; }

std::string tail(const std::string& text, size_t n = 4000) { return text.size() > n ? text.substr(text.size() - n) : text; }

template <class Pred>
bool eventually(Pred p, std::chrono::milliseconds limit = 60s, std::chrono::milliseconds step = 500ms) {
    auto end = std::chrono::steady_clock::now() + limit;
    while (std::chrono::steady_clock::now() < end) {
        if (p()) return true;
        std::this_thread::sleep_for(step);
    }
    return p();
}

int exitCode(int st) { return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st); }

// A child process in its own process group; stdout and stderr go to files.
class Child {
public:
    Child(std::vector<std::string> args, const std::string& out, const std::string& err, const std::string& home = "") {
        pid_ = ::fork();
        BOOST_REQUIRE(pid_ >= 0);
        if (pid_ == 0) {
            ::setpgid(0, 0);
            if (!home.empty()) ::setenv("HOME", home.c_str(), 1);
            int o = ::open(out.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
            int e = out == err ? o : ::open(err.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
            ::dup2(o, 1);
            ::dup2(e, 2);
            std::vector<char*> argv;
            for (auto& a : args) argv.push_back(a.data());
            argv.push_back(nullptr);
            ::execvp(argv[0], argv.data());
            ::_exit(127);
        }
        ::setpgid(pid_, pid_);
    }
    ~Child() {
        if (pid_ > 0) {
            ::kill(-pid_, SIGKILL);
            ::waitpid(pid_, nullptr, 0);
        }
    }
    Child(const Child&) = delete;
    Child& operator=(const Child&) = delete;
    bool running() {
        if (pid_ <= 0) return false;
        int st = 0;
        if (::waitpid(pid_, &st, WNOHANG) != pid_) return true;
        pid_ = -1;
        exit_ = exitCode(st);
        return false;
    }
    // Sends `sig` to the process and returns its exit code (128 + signal when killed).
    int signal(int sig) {
        if (!running()) return exit_;
        ::kill(pid_, sig);
        int st = 0;
        ::waitpid(pid_, &st, 0);
        pid_ = -1;
        return exit_ = exitCode(st);
    }
    // Waits up to `limit` for the process to exit on its own: its exit code, or -1.
    int waitExit(std::chrono::milliseconds limit) {
        eventually([&] { return !running(); }, limit, 50ms);
        return running() ? -1 : exit_;
    }

private:
    pid_t pid_ = -1;
    int exit_ = -1;
};

// `trainer-operator run` in embedded mode on a fresh store, and kubectl pointed at it.
class Cluster {
public:
    static Cluster& get() {
        static std::unique_ptr<Cluster> instance;
        if (!instance) {
            instance = std::make_unique<Cluster>();
            instance->start();
        }
        BOOST_REQUIRE_MESSAGE(instance->ready_, "the operator's API server did not start (see the first failure)");
        return *instance;
    }

    // kubectl with the written kubeconfig; `args` is a shell fragment.
    Result kubectl(const std::string& args) const { return sh(kubectlPrefix() + " --request-timeout=30s " + args); }
    // The same without the request timeout (for -w and wait, which bound themselves).
    std::string kubectlPrefix() const {
        return "HOME=" + quote(dir.file("home")) + " " + quote(kubectlPath()) + " --kubeconfig " + quote(kubeconfig) +
               " --cache-dir " + quote(dir.file("kube-cache"));
    }
    // kubectl in the background; its stdout and stderr go to <name>.out and <name>.err in the temp dir.
    std::unique_ptr<Child> spawn(std::vector<std::string> args, const std::string& name) const {
        std::vector<std::string> argv{kubectlPath(), "--kubeconfig", kubeconfig, "--cache-dir", dir.file("kube-cache")};
        argv.insert(argv.end(), args.begin(), args.end());
        return std::make_unique<Child>(argv, dir.file(name + ".out"), dir.file(name + ".err"), dir.file("home"));
    }
    std::string output(const std::string& name) const { return slurp(dir.file(name + ".out")); }
    std::string errors(const std::string& name) const { return slurp(dir.file(name + ".err")); }
    std::string log() const { return tail(slurp(dir.file("run.log"))); }
    // Stops the operator with SIGTERM; its exit code.
    int stop() {
        ready_ = false;
        return op_->signal(SIGTERM);
    }

    TempDir dir;
    std::string kubeconfig = dir.file("kubeconfig");
    std::string examples = dir.file("examples");

private:
    void start() {
        BOOST_REQUIRE_MESSAGE(fs::exists(kubectlPath()),
                              "kubectl not found at " << kubectlPath()
                                                      << ": these tests need kubectl >= 1.27 (scripts/setup.sh checks "
                                                         "for it), or set "
                                                         "KUBECTL to its path)");
        BOOST_REQUIRE_MESSAGE(fs::exists(kBin), "trainer-operator not built: " << kBin);
        fs::create_directories(dir.file("home"));
        fs::create_directories(examples);
        for (auto const& e : fs::directory_iterator(kExamples)) {
            auto name = e.path().filename().string();
            if (e.path().extension() == ".yaml" && (name.starts_with("1") || name.starts_with("2")))
                fs::copy_file(e.path(), fs::path(examples) / name);
        }
        op_ = std::make_unique<Child>(
            std::vector<std::string>{kBin, "run", "--store", dir.file("store.db"), "--plugin-dir", kPlugins,
                                     "--api-bind-address", "127.0.0.1:0", "--write-kubeconfig", kubeconfig,
                                     "--health-probe-bind-address", "0", "--metrics-bind-address", "0"},
            dir.file("run.log"), dir.file("run.log"));
        BOOST_REQUIRE_MESSAGE(eventually([&] { return fs::exists(kubeconfig) || !op_->running(); }, 60s, 100ms) &&
                                  fs::exists(kubeconfig),
                              "no kubeconfig at " << kubeconfig << " within 60s; log:\n"
                                                  << log());
        Result last;
        BOOST_REQUIRE_MESSAGE(eventually([&] {
                                  last = kubectl("get --raw /readyz");
                                  return last.exit == 0 && last.out == "ok";
                              },
                                         60s, 250ms),
                              "GET /readyz never answered ok: exit " << last.exit << " out " << last.out << " err "
                                                                      << last.err << "\nlog:\n"
                                                                      << log());
        ready_ = true;
    }

    std::unique_ptr<Child> op_;
    bool ready_ = false;
};

Result kubectl(const std::string& args) { return Cluster::get().kubectl(args); }

// The first line of a table, and whether some row starts with `name`.
std::string headerOf(const std::string& table) { return table.substr(0, table.find('\n')); }
bool hasRow(const std::string& table, const std::string& name) {
    return std::regex_search(table, std::regex("(^|\n)" + name + " "));
}

std::string jsonpath(const std::string& resource, const std::string& path) {
    auto r = kubectl("get " + resource + " -o " + quote("jsonpath=" + path));
    BOOST_TEST_REQUIRE(r.exit == 0, "kubectl get " << resource << ": " << r.err);
    return r.out;
}

bool notFound(const Result& r) { return r.exit != 0 && contains(r.err, "(NotFound)"); }

// Applies the examples once (server-side); later cases rely on them being there.
void ensureExamples() {
    static bool applied = false;
    if (applied) return;
    auto r = kubectl("apply --server-side -f " + quote(Cluster::get().examples));
    BOOST_REQUIRE_MESSAGE(r.exit == 0, "apply --server-side: " << r.err << "\nlog:\n" << Cluster::get().log());
    applied = true;
}

// The objects of `kinds` (comma-separated) in the default namespace owned by `uid`.
std::vector<std::string> ownedBy(const std::string& uid, const std::string& kinds) {
    auto r = kubectl("get " + kinds + " -o json");
    BOOST_TEST_REQUIRE(r.exit == 0, r.err);
    std::vector<std::string> out;
    json::error_code ec;
    auto list = json::parse(r.out, ec);
    BOOST_TEST_REQUIRE((!ec && list.is_object() && list.as_object().contains("items")), "not a List: " << r.out);
    for (auto const& item : list.at("items").as_array()) {
        BOOST_TEST((item.is_object() && item.as_object().contains("kind")), "an item without kind: " << item);
        if (!item.is_object() || !item.as_object().contains("kind")) continue;
        auto const* md = item.as_object().if_contains("metadata");
        auto const* refs = md ? md->as_object().if_contains("ownerReferences") : nullptr;
        if (!refs) continue;
        for (auto const& ref : refs->as_array())
            if (auto const* u = ref.as_object().if_contains("uid"); u && *u == uid.c_str())
                out.push_back(json::serialize(item.as_object().at("kind")) + "/" + json::serialize(md->at("name")));
    }
    return out;
}

}  // namespace

BOOST_AUTO_TEST_CASE(kubectl_reaches_the_embedded_api_server) {
    auto& c = Cluster::get();
    BOOST_TEST(fs::exists(c.kubeconfig));
    auto mode = static_cast<int>(fs::status(c.kubeconfig).permissions() & fs::perms::all);
    BOOST_TEST(mode == 0600, "kubeconfig mode " << std::oct << mode);
    auto v = kubectl("version -o json");
    BOOST_TEST_REQUIRE(v.exit == 0, v.err);
    auto server = json::parse(v.out).at("serverVersion").as_object();
    BOOST_TEST(!server.at("gitVersion").as_string().empty());
    BOOST_TEST(std::string(server.at("gitVersion").as_string()).starts_with("v"));
    auto ctx = kubectl("config current-context");
    BOOST_TEST(ctx.out == "trainer-operator\n");
    auto livez = kubectl("get --raw /livez");
    BOOST_TEST(livez.exit == 0, livez.err);
    BOOST_TEST(livez.out == "ok");
}

BOOST_AUTO_TEST_CASE(apply_server_side_the_examples) {
    auto& c = Cluster::get();
    auto r = kubectl("apply --server-side -f " + quote(c.examples));
    BOOST_TEST_REQUIRE(r.exit == 0, r.err << "\nlog:\n" << c.log());
    for (auto const& line : {"clustertrainingruntime.trainer.kubeflow.org/torch-distributed serverside-applied",
                             "clustertrainingruntime.trainer.kubeflow.org/deepspeed-distributed serverside-applied",
                             "trainingruntime.trainer.kubeflow.org/plain-with-initializers serverside-applied",
                             "clustertrainingruntime.trainer.kubeflow.org/torch-coscheduling serverside-applied",
                             "clustertrainingruntime.trainer.kubeflow.org/torch-volcano serverside-applied",
                             "priorityclass.scheduling.k8s.io/training-high serverside-applied"})
        BOOST_TEST(contains(r.out, line), line << " missing in:\n" << r.out);
    for (auto const& [name, runtime] : kExampleJobs)
        BOOST_TEST(contains(r.out, "trainjob.trainer.kubeflow.org/" + name + " serverside-applied"), name << ":\n" << r.out);

    // The apply that created the object is recorded in managedFields under kubectl's field manager.
    auto managers = [] {
        auto r = kubectl("get trainjob multi-node-example --show-managed-fields -o " +
                         quote("jsonpath={range .metadata.managedFields[*]}{.manager}:{.operation}{\"\\n\"}{end}"));
        BOOST_TEST(r.exit == 0, r.err);
        return r.out;
    };
    auto created = managers();
    BOOST_TEST(contains(created, "kubectl:Apply\n"), created);

    // Applying the same files again is a no-op that still succeeds, with the same owner.
    auto again = kubectl("apply --server-side -f " + quote(c.examples));
    BOOST_TEST(again.exit == 0, again.err);
    BOOST_TEST(contains(again.out, "trainjob.trainer.kubeflow.org/multi-node-example serverside-applied"), again.out);
    auto reapplied = managers();
    BOOST_TEST(contains(reapplied, "kubectl:Apply\n"), reapplied);
    BOOST_TEST(!contains(reapplied, "before-first-apply"), reapplied);
}

BOOST_AUTO_TEST_CASE(get_trainjobs_prints_the_crd_columns) {
    ensureExamples();
    auto r = kubectl("get trainjobs");
    BOOST_TEST_REQUIRE(r.exit == 0, r.err);
    BOOST_TEST(std::regex_match(headerOf(r.out), std::regex("NAME +STATE +AGE *")), headerOf(r.out));
    for (auto const& [name, runtime] : kExampleJobs) BOOST_TEST(hasRow(r.out, name), name << " not in:\n" << r.out);

    auto names = kubectl("get trainjobs.trainer.kubeflow.org -o name");
    BOOST_TEST(names.exit == 0, names.err);
    BOOST_TEST(contains(names.out, "trainjob.trainer.kubeflow.org/plain-example\n"), names.out);

    auto runtimes = kubectl("get clustertrainingruntimes");
    BOOST_TEST(runtimes.exit == 0, runtimes.err);
    BOOST_TEST(headerOf(runtimes.out).starts_with("NAME"));
    BOOST_TEST(hasRow(runtimes.out, "torch-distributed"), runtimes.out);

    auto missing = kubectl("get trainjob no-such-job");
    BOOST_TEST(missing.exit == 1);
    BOOST_TEST(contains(missing.err,
                        "Error from server (NotFound): trainjobs.trainer.kubeflow.org \"no-such-job\" not found"),
               missing.err);
}

BOOST_AUTO_TEST_CASE(get_trainjob_jsonpath_prints_the_runtime_name) {
    ensureExamples();
    for (auto const& [name, runtime] : kExampleJobs)
        BOOST_TEST(jsonpath("trainjob " + name, "{.spec.runtimeRef.name}") == runtime, name);
    BOOST_TEST(jsonpath("trainjob multi-node-example", "{.spec.trainer.numNodes}") == "3");
    BOOST_TEST(jsonpath("trainjob multi-node-example", "{.metadata.namespace}") == "default");
    auto yaml = kubectl("get trainjob plain-example -o yaml");
    BOOST_TEST(yaml.exit == 0, yaml.err);
    BOOST_TEST(contains(yaml.out, "kind: TrainJob\n"), yaml.out);
    BOOST_TEST(contains(yaml.out, "apiVersion: trainer.kubeflow.org/v1alpha1\n"), yaml.out);

    // describe reads the object and its events (a list with a field selector on involvedObject).
    auto describe = kubectl("describe trainjob multi-node-example");
    BOOST_TEST(describe.exit == 0, describe.err);
    BOOST_TEST(std::regex_search(describe.out, std::regex("(^|\n)Name: +multi-node-example\n")), describe.out);
    BOOST_TEST(std::regex_search(describe.out, std::regex("\nNamespace: +default\n")), describe.out);
    BOOST_TEST(contains(describe.out, "\nEvents:"), describe.out);
    auto all = kubectl("get trainjobs -A");
    BOOST_TEST(all.exit == 0, all.err);
    BOOST_TEST(std::regex_match(headerOf(all.out), std::regex("NAMESPACE +NAME +STATE +AGE *")), all.out);
    BOOST_TEST(std::regex_search(all.out, std::regex("\ndefault +plain-example +")), all.out);
}

BOOST_AUTO_TEST_CASE(the_controller_builds_a_jobset_per_trainjob) {
    ensureExamples();
    Result last;
    bool all = eventually([&] {
        last = kubectl("get jobsets.jobset.x-k8s.io");
        if (last.exit != 0) return false;
        for (auto const& [name, runtime] : kExampleJobs)
            if (!hasRow(last.out, name)) return false;
        return true;
    });
    BOOST_TEST(all, "JobSets after 60s (exit " << last.exit << "):\n"
                                               << last.out << last.err << "\nlog:\n"
                                               << Cluster::get().log());
    BOOST_TEST(headerOf(last.out).starts_with("NAME"), last.out);
    auto owner = jsonpath("jobset multi-node-example", "{.metadata.ownerReferences[0].kind}/{.metadata.ownerReferences[0].name}");
    BOOST_TEST(owner == "TrainJob/multi-node-example");
    BOOST_TEST(jsonpath("jobset multi-node-example", "{.metadata.ownerReferences[0].uid}") ==
               jsonpath("trainjob multi-node-example", "{.metadata.uid}"));
}

BOOST_AUTO_TEST_CASE(watch_sees_a_modified_event_after_a_label) {
    ensureExamples();
    auto& c = Cluster::get();
    // The watches' own timeout outlasts the test (they are killed at its end): 300 s, a hang guard.
    auto table = c.spawn({"get", "trainjobs", "-w", "--output-watch-events", "--request-timeout=300s"}, "watch-table");
    // The same watch as events of (type, name, label x), so the MODIFIED event can be tied to the label.
    auto events = c.spawn({"get", "trainjobs", "-w", "--output-watch-events", "--request-timeout=300s", "-o",
                           "jsonpath={.type} {.object.metadata.name} {.object.metadata.labels.x}{\"\\n\"}"},
                          "watch-events");
    auto tableOut = [&] { return c.output("watch-table"); };
    auto eventsOut = [&] { return c.output("watch-events"); };
    // Both printed the initial list (as ADDED events): the watch is established after it.
    BOOST_TEST_REQUIRE(eventually([&] { return contains(tableOut(), "multi-node-example"); }, 60s, 100ms),
                       "table watch printed nothing: " << tableOut() << c.errors("watch-table"));
    BOOST_TEST_REQUIRE(eventually([&] { return contains(eventsOut(), "ADDED multi-node-example"); }, 60s, 100ms),
                       "event watch printed nothing: " << eventsOut() << c.errors("watch-events"));

    auto label = kubectl("label trainjob multi-node-example x=y");
    BOOST_TEST_REQUIRE(label.exit == 0, label.err);
    BOOST_TEST(label.out == "trainjob.trainer.kubeflow.org/multi-node-example labeled\n");

    BOOST_TEST(eventually([&] { return contains(eventsOut(), "MODIFIED multi-node-example y\n"); }, 60s, 100ms),
               "no MODIFIED event with the label:\n"
                   << eventsOut() << c.errors("watch-events"));
    static const std::regex modified("(^|\n)MODIFIED +multi-node-example +");
    BOOST_TEST(eventually([&] { return std::regex_search(tableOut(), modified); }, 60s, 100ms),
               "no MODIFIED row:\n"
                   << tableOut() << c.errors("watch-table"));
    BOOST_TEST(std::regex_match(headerOf(tableOut()), std::regex("EVENT +NAME +STATE +AGE *")), headerOf(tableOut()));
    BOOST_TEST(std::regex_search(tableOut(), std::regex("(^|\n)ADDED +plain-example +")), tableOut());
    // Neither watch ended with an error while it ran.
    BOOST_TEST(table->running(), c.errors("watch-table"));
    BOOST_TEST(events->running(), c.errors("watch-events"));
}

BOOST_AUTO_TEST_CASE(label_patch_and_status_subresource) {
    ensureExamples();
    auto& c = Cluster::get();
    auto label = kubectl("label trainjob plain-example team=ml");
    BOOST_TEST_REQUIRE(label.exit == 0, label.err);
    BOOST_TEST(label.out == "trainjob.trainer.kubeflow.org/plain-example labeled\n");
    BOOST_TEST(jsonpath("trainjob plain-example", "{.metadata.labels.team}") == "ml");
    auto selected = kubectl("get trainjobs -l team=ml -o name");
    BOOST_TEST(selected.exit == 0, selected.err);
    BOOST_TEST(selected.out == "trainjob.trainer.kubeflow.org/plain-example\n");
    auto notIn = kubectl("get trainjobs -l 'team notin (ml)' -o name");
    BOOST_TEST(notIn.exit == 0, notIn.err);
    BOOST_TEST(!contains(notIn.out, "plain-example"), notIn.out);
    BOOST_TEST(contains(notIn.out, "trainjob.trainer.kubeflow.org/gang-example"), notIn.out);

    // An existing label changes only with --overwrite.
    auto clash = kubectl("label trainjob plain-example team=infra");
    BOOST_TEST(clash.exit != 0);
    BOOST_TEST(contains(clash.err, "already has a value (ml)"), clash.err);
    BOOST_TEST(kubectl("label trainjob plain-example team=infra --overwrite").exit == 0);
    BOOST_TEST(jsonpath("trainjob plain-example", "{.metadata.labels.team}") == "infra");
    auto removed = kubectl("label trainjob plain-example team-");
    BOOST_TEST(removed.out == "trainjob.trainer.kubeflow.org/plain-example unlabeled\n", removed.err);
    BOOST_TEST(jsonpath("trainjob plain-example", "{.metadata.labels}").find("team") == std::string::npos);

    // A merge patch of the main resource.
    auto gen = jsonpath("trainjob plain-example", "{.metadata.generation}");
    auto patch = kubectl("patch trainjob plain-example --type=merge -p " +
                         quote(R"({"metadata":{"annotations":{"note":"hello"}}})"));
    BOOST_TEST_REQUIRE(patch.exit == 0, patch.err);
    BOOST_TEST(patch.out == "trainjob.trainer.kubeflow.org/plain-example patched\n");
    BOOST_TEST(jsonpath("trainjob plain-example", "{.metadata.annotations.note}") == "hello");
    BOOST_TEST(jsonpath("trainjob plain-example", "{.metadata.generation}") == gen, "metadata changes keep generation");
    auto same = kubectl("patch trainjob plain-example --type=merge -p " +
                        quote(R"({"metadata":{"annotations":{"note":"hello"}}})"));
    BOOST_TEST(same.out == "trainjob.trainer.kubeflow.org/plain-example patched (no change)\n", same.err);
    auto json6902 = kubectl("patch trainjob plain-example --type=json -p " +
                            quote(R"([{"op":"replace","path":"/metadata/annotations/note","value":"bye"}])"));
    BOOST_TEST(json6902.exit == 0, json6902.err);
    BOOST_TEST(jsonpath("trainjob plain-example", "{.metadata.annotations.note}") == "bye");
    // spec.trainer is immutable (a CEL rule of the CRD: self == oldSelf).
    auto immutable = kubectl("patch trainjob plain-example --type=merge -p " +
                             quote(R"({"spec":{"trainer":{"numNodes":5}}})"));
    BOOST_TEST(immutable.exit != 0);
    BOOST_TEST(contains(immutable.err, "The TrainJob \"plain-example\" is invalid: spec.trainer: Invalid value: \"object\": "
                                       "field is immutable"),
               immutable.err);
    BOOST_TEST(jsonpath("trainjob plain-example", "{.spec.trainer.numNodes}") == "2");

    // The status subresource, on a TrainJob another controller manages (ours leaves its status alone).
    c.dir.write("external.yaml", "apiVersion: trainer.kubeflow.org/v1alpha1\nkind: TrainJob\nmetadata:\n"
                                 "  name: external-job\nspec:\n  managedBy: kueue.x-k8s.io/multikueue\n"
                                 "  runtimeRef:\n    name: torch-distributed\n  trainer:\n    numNodes: 1\n");
    auto created = kubectl("apply -f " + quote(c.dir.file("external.yaml")));
    BOOST_TEST_REQUIRE(created.exit == 0, created.err);
    BOOST_TEST(created.out == "trainjob.trainer.kubeflow.org/external-job created\n");
    auto status = kubectl("patch trainjob external-job --subresource=status --type=merge -p " +
                          quote(R"({"status":{"conditions":[{"type":"Complete","status":"True","reason":"E2E",)"
                                R"("message":"set by the e2e test","lastTransitionTime":"2025-01-01T00:00:00Z"}]}})"));
    BOOST_TEST_REQUIRE(status.exit == 0, status.err);
    BOOST_TEST(status.out == "trainjob.trainer.kubeflow.org/external-job patched\n");
    BOOST_TEST(jsonpath("trainjob external-job", "{.status.conditions[0].reason}") == "E2E");
    BOOST_TEST(jsonpath("trainjob external-job", "{.status.conditions[?(@.type==\"Complete\")].status}") == "True");
    // STATE shows the last condition's type (the CRD's printer column).
    auto row = kubectl("get trainjob external-job --no-headers");
    BOOST_TEST(std::regex_search(row.out, std::regex("^external-job +Complete +")), row.out);
    // The main resource ignores status; the status subresource ignores spec.
    auto viaMain = kubectl("patch trainjob external-job --type=merge -p " +
                           quote(R"({"status":{"conditions":[{"type":"Failed","status":"True","reason":"Main",)"
                                 R"("message":"m","lastTransitionTime":"2025-01-01T00:00:00Z"}]}})"));
    BOOST_TEST(viaMain.exit == 0, viaMain.err);
    BOOST_TEST(jsonpath("trainjob external-job", "{.status.conditions[0].reason}") == "E2E");
    auto suspend = jsonpath("trainjob external-job", "{.spec.suspend}");
    BOOST_TEST(suspend == "false", "the CRD defaults spec.suspend to false");
    auto viaStatus = kubectl("patch trainjob external-job --subresource=status --type=merge -p " +
                             quote(R"({"spec":{"suspend":true}})"));
    BOOST_TEST(viaStatus.exit == 0, viaStatus.err);
    BOOST_TEST(jsonpath("trainjob external-job", "{.spec.suspend}") == "false");
}

// kubectl diff and --dry-run=server: the server computes the result and stores nothing.
BOOST_AUTO_TEST_CASE(diff_and_server_dry_run_store_nothing) {
    ensureExamples();
    auto& c = Cluster::get();
    auto text = slurp(fs::path(c.examples) / "22-trainjob-plain-initializers.yaml");
    const std::string ns = "  namespace: default\n";
    BOOST_TEST_REQUIRE(contains(text, ns));
    text.replace(text.find(ns), ns.size(), ns + "  labels:\n    diffed: pending\n");
    auto file = c.dir.write("diff.yaml", text).string();
    auto rv = jsonpath("trainjob plain-example", "{.metadata.resourceVersion}");

    auto diff = kubectl("diff -f " + quote(file));
    BOOST_TEST(diff.exit == 1, diff.err);  // 1: differences found
    BOOST_TEST(contains(diff.out, "\n+    diffed: pending\n"), diff.out);
    auto dry = kubectl("apply --dry-run=server -f " + quote(file));
    BOOST_TEST(dry.exit == 0, dry.err);
    BOOST_TEST(dry.out == "trainjob.trainer.kubeflow.org/plain-example configured (server dry run)\n");
    auto ssaDry = kubectl("apply --server-side --dry-run=server -f " + quote(file));
    BOOST_TEST(ssaDry.exit == 0, ssaDry.err);
    BOOST_TEST(ssaDry.out == "trainjob.trainer.kubeflow.org/plain-example serverside-applied (server dry run)\n");
    BOOST_TEST(jsonpath("trainjob plain-example", "{.metadata.labels.diffed}") == "");
    BOOST_TEST(jsonpath("trainjob plain-example", "{.metadata.resourceVersion}") == rv);
    auto createDry = kubectl("apply --dry-run=server -o name -f " +
                             quote(c.dir.write("dry-cm.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: dry-cm\n"
                                                              "data:\n  a: b\n")
                                       .string()));
    BOOST_TEST(createDry.exit == 0, createDry.err);
    BOOST_TEST(createDry.out == "configmap/dry-cm\n");
    BOOST_TEST(notFound(kubectl("get configmap dry-cm")));
}

BOOST_AUTO_TEST_CASE(wait_for_a_jsonpath_value) {
    ensureExamples();
    auto& c = Cluster::get();
    BOOST_TEST_REQUIRE(kubectl("label trainjob multi-node-example x=y --overwrite").exit == 0);
    auto met = sh(c.kubectlPrefix() + " wait --for=jsonpath='{.metadata.labels.x}'=y trainjob/multi-node-example --timeout=60s");
    BOOST_TEST(met.exit == 0, met.err);
    BOOST_TEST(met.out == "trainjob.trainer.kubeflow.org/multi-node-example condition met\n", met.out);

    // A wait that is satisfied only later: it follows the object with a watch. Its watch request
    // answered (kubectl -v=6 logs it) is the event after which only a change can end it; then
    // the label is the one.
    auto waiter = c.spawn({"wait", "-v=6", "--for=jsonpath={.metadata.labels.stage}=two", "trainjob/gang-example",
                           "--timeout=300s"},
                          "wait");
    BOOST_TEST_REQUIRE(eventually([&] { return contains(c.errors("wait"), "watch=true") || !waiter->running(); }, 60s, 100ms),
                       "kubectl wait never watched: " << c.errors("wait"));
    BOOST_TEST(waiter->running(), "wait returned before the label: " << c.errors("wait"));
    BOOST_TEST_REQUIRE(kubectl("label trainjob gang-example stage=two").exit == 0);
    BOOST_TEST(waiter->waitExit(60s) == 0, c.output("wait") << c.errors("wait"));
    BOOST_TEST(c.output("wait") == "trainjob.trainer.kubeflow.org/gang-example condition met\n");

    auto timeout = sh(c.kubectlPrefix() + " wait --for=jsonpath='{.metadata.labels.x}'=never trainjob/multi-node-example --timeout=2s");
    BOOST_TEST(timeout.exit != 0);
    BOOST_TEST(contains(timeout.err, "timed out waiting for the condition"), timeout.err);
}

BOOST_AUTO_TEST_CASE(delete_trainjob_collects_its_children) {
    ensureExamples();
    const std::string kinds = "jobsets.jobset.x-k8s.io,configmaps,secrets";
    auto uid = jsonpath("trainjob deepspeed-example", "{.metadata.uid}");
    BOOST_TEST_REQUIRE(!uid.empty());
    std::vector<std::string> children;
    BOOST_TEST_REQUIRE(eventually([&] {
                           children = ownedBy(uid, kinds);
                           return children.size() >= 3;  // JobSet, the MPI hostfile ConfigMap and SSH Secret
                       }),
                       "children of deepspeed-example: " << children.size() << "\nlog:\n"
                                                         << Cluster::get().log());
    auto del = kubectl("delete trainjob deepspeed-example --timeout=60s");
    BOOST_TEST_REQUIRE(del.exit == 0, del.err);
    BOOST_TEST(del.out == "trainjob.trainer.kubeflow.org \"deepspeed-example\" deleted\n");
    BOOST_TEST(notFound(kubectl("get trainjob deepspeed-example")));
    BOOST_TEST(eventually([&] { return ownedBy(uid, kinds).empty(); }),
               "children left: " << ownedBy(uid, kinds).size());
    BOOST_TEST(notFound(kubectl("get jobset deepspeed-example")));
    auto again = kubectl("delete trainjob deepspeed-example");
    BOOST_TEST(again.exit != 0);
    BOOST_TEST(contains(again.err,
                        "Error from server (NotFound): trainjobs.trainer.kubeflow.org \"deepspeed-example\" not found"),
               again.err);
}

BOOST_AUTO_TEST_CASE(invalid_trainjobs_are_refused_and_not_stored) {
    ensureExamples();
    auto& c = Cluster::get();
    struct Case {
        std::string name;
        std::string spec;                   // YAML lines under spec:
        std::vector<std::string> expected;  // in kubectl's stderr
    };
    const std::vector<Case> cases{
        {"unknown-runtime",
         "  runtimeRef:\n    name: no-such-runtime\n",
         // upstream's webhook names the field spec.RuntimeRef (field.NewPath("spec", "RuntimeRef"))
         {"admission webhook \"validator.trainjob.trainer.kubeflow.org\" denied the request", "spec.RuntimeRef",
          "clustertrainingruntimes.trainer.kubeflow.org \"no-such-runtime\" not found"}},
        {"negative-nodes",
         "  runtimeRef:\n    name: torch-distributed\n  trainer:\n    numNodes: -1\n",
         {"The TrainJob \"negative-nodes\" is invalid",
          "spec.trainer.numNodes: Invalid value: -1: spec.trainer.numNodes in body should be greater than or equal to 0"}},
        {"foreign-manager",
         "  managedBy: example.com/other\n  runtimeRef:\n    name: torch-distributed\n",
         // a CEL rule: the value shown is the schema type (apiextensions-apiserver schema/cel)
         {"The TrainJob \"foreign-manager\" is invalid",
          "spec.managedBy: Invalid value: \"string\": ManagedBy must be trainer.kubeflow.org/trainjob-controller or "
          "kueue.x-k8s.io/multikueue if set"}},
    };
    for (auto const& k : cases) {
        BOOST_TEST_CONTEXT(k.name) {
            auto file = c.dir.write(k.name + ".yaml", "apiVersion: trainer.kubeflow.org/v1alpha1\nkind: TrainJob\n"
                                                      "metadata:\n  name: " +
                                                          k.name + "\nspec:\n" + k.spec);
            auto r = kubectl("apply -f " + quote(file.string()));
            BOOST_TEST(r.exit != 0);
            BOOST_TEST(r.out.empty(), r.out);
            for (auto const& e : k.expected) BOOST_TEST(contains(r.err, e), "want " << e << " in: " << r.err);
            auto ssa = kubectl("apply --server-side -f " + quote(file.string()));
            BOOST_TEST(ssa.exit != 0);
            for (auto const& e : k.expected)
                if (!e.starts_with("The TrainJob")) BOOST_TEST(contains(ssa.err, e), "server-side: want " << e << " in: " << ssa.err);
            auto get = kubectl("get trainjob " + k.name);
            BOOST_TEST(notFound(get), get.err);
        }
    }
}

BOOST_AUTO_TEST_CASE(configmaps_create_get_and_apply_conflicts) {
    auto& c = Cluster::get();
    // Server-side apply by two managers: the second conflicts on the field the first owns.
    auto first = c.dir.write("cm2.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm2\ndata:\n  k: one\n");
    auto second = c.dir.write("cm2b.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm2\ndata:\n  k: two\n");
    auto a = kubectl("apply --server-side -f " + quote(first.string()));
    BOOST_TEST(a.out == "configmap/cm2 serverside-applied\n", a.err);
    auto conflict = kubectl("apply --server-side --field-manager=other -f " + quote(second.string()));
    BOOST_TEST(conflict.exit != 0);
    BOOST_TEST(contains(conflict.err, "Apply failed with 1 conflict: conflict with \"kubectl\""), conflict.err);
    BOOST_TEST(contains(conflict.err, ".data.k"), conflict.err);
    BOOST_TEST(jsonpath("configmap cm2", "{.data.k}") == "one");
    auto forced = kubectl("apply --server-side --field-manager=other --force-conflicts -f " + quote(second.string()));
    BOOST_TEST(forced.exit == 0, forced.err);
    BOOST_TEST(jsonpath("configmap cm2", "{.data.k}") == "two");
    auto del = kubectl("delete configmap cm2");
    BOOST_TEST(del.out == "configmap \"cm2\" deleted\n", del.err);

    // kubectl's typed create (kubectl 1.32 sends it as protobuf).
    auto cm = kubectl("create configmap cm1 --from-literal=a=b");
    BOOST_TEST_REQUIRE(cm.exit == 0, cm.err);
    BOOST_TEST(cm.out == "configmap/cm1 created\n");
    BOOST_TEST(jsonpath("configmap cm1", "{.data.a}") == "b");
    auto dup = kubectl("create configmap cm1 --from-literal=a=c");
    BOOST_TEST(dup.exit != 0);
    // kubectl's typed create wraps the server's message (kubectl/pkg/cmd/create/create_configmap.go).
    BOOST_TEST(contains(dup.err, "error: failed to create configmap: configmaps \"cm1\" already exists"), dup.err);
    auto table = kubectl("get configmaps");
    BOOST_TEST(std::regex_match(headerOf(table.out), std::regex("NAME +DATA +AGE *")), table.out);
    BOOST_TEST(std::regex_search(table.out, std::regex("\ncm1 +1 +")), table.out);
}

BOOST_AUTO_TEST_CASE(discovery_names_the_trainer_group) {
    auto r = kubectl("get --raw /apis");
    BOOST_TEST_REQUIRE(r.exit == 0, r.err);
    auto v = json::parse(r.out).as_object();
    BOOST_TEST(v.at("kind") == "APIGroupList");
    std::set<std::string> groups;
    for (auto const& g : v.at("groups").as_array()) groups.insert(std::string(g.at("name").as_string()));
    for (auto const* g : {"trainer.kubeflow.org", "jobset.x-k8s.io", "apiextensions.k8s.io", "coordination.k8s.io"})
        BOOST_TEST(groups.count(g) == 1u, g);

    auto resources = kubectl("api-resources --api-group=trainer.kubeflow.org");
    BOOST_TEST_REQUIRE(resources.exit == 0, resources.err);
    BOOST_TEST(std::regex_search(resources.out, std::regex("\ntrainjobs +trainer.kubeflow.org/v1alpha1 +true +TrainJob")),
               resources.out);
    BOOST_TEST(std::regex_search(resources.out,
                                 std::regex("\nclustertrainingruntimes +trainer.kubeflow.org/v1alpha1 +false +ClusterTrainingRuntime")),
               resources.out);
    auto crds = kubectl("get crd trainjobs.trainer.kubeflow.org -o jsonpath={.spec.names.kind}");
    BOOST_TEST(crds.exit == 0, crds.err);
    BOOST_TEST(crds.out == "TrainJob");
}

// kubectl explain reads the CRD's schema from the OpenAPI v3 document of its group-version.
BOOST_AUTO_TEST_CASE(explain_reads_the_crd_schema) {
    auto r = kubectl("explain trainjob.spec.trainer");
    BOOST_TEST_REQUIRE(r.exit == 0, r.err);
    BOOST_TEST(std::regex_search(r.out, std::regex("(^|\n)KIND: +TrainJob\n")), r.out);
    BOOST_TEST(std::regex_search(r.out, std::regex("\nFIELD: +trainer <Object>")), r.out);
    BOOST_TEST(std::regex_search(r.out, std::regex("\n +numNodes\\s+<integer>")), r.out);
    // Built-in kinds publish no schema here (README, "Where we deliberately differ").
}

BOOST_AUTO_TEST_CASE(a_wrong_token_is_unauthorized) {
    auto r = kubectl("--token=wrong get trainjobs");
    BOOST_TEST(r.exit != 0);
    BOOST_TEST((contains(r.err, "Unauthorized") || contains(r.err, "You must be logged in")), r.err);
    BOOST_TEST(r.out.empty(), r.out);
    // Health endpoints stay open without a token.
    auto ready = kubectl("--token=wrong get --raw /readyz");
    BOOST_TEST(ready.exit == 0, ready.err);
    BOOST_TEST(ready.out == "ok");
}

BOOST_AUTO_TEST_CASE(namespaces_list_create_delete) {
    auto ns = kubectl("get ns");
    BOOST_TEST_REQUIRE(ns.exit == 0, ns.err);
    BOOST_TEST(std::regex_match(headerOf(ns.out), std::regex("NAME +STATUS +AGE *")), ns.out);
    BOOST_TEST(std::regex_search(ns.out, std::regex("\ndefault +Active +")), ns.out);

    auto created = kubectl("create ns e2e-x");
    BOOST_TEST(created.exit == 0, created.err);
    BOOST_TEST(created.out == "namespace/e2e-x created\n");
    auto& c = Cluster::get();
    if (created.exit != 0)  // the rest still runs on a namespace made another way
        BOOST_TEST_REQUIRE(kubectl("apply -f " + quote(c.dir.write("ns.yaml", "apiVersion: v1\nkind: Namespace\nmetadata:\n"
                                                                               "  name: e2e-x\n")
                                                           .string()))
                               .exit == 0);
    auto inX = c.dir.write("in-x.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: in-x\n  namespace: e2e-x\n"
                                        "data:\n  k: v\n");
    BOOST_TEST(kubectl("apply -f " + quote(inX.string())).exit == 0);
    BOOST_TEST(jsonpath("configmap in-x -n e2e-x", "{.data.k}") == "v");
    auto nowhere = kubectl("apply -n no-such-ns -f " + quote(c.dir.write("orphan.yaml", "apiVersion: v1\nkind: ConfigMap\n"
                                                                                   "metadata:\n  name: orphan\n").string()));
    BOOST_TEST(nowhere.exit != 0);
    BOOST_TEST(contains(nowhere.err, "namespaces \"no-such-ns\" not found"), nowhere.err);

    auto deleted = kubectl("delete ns e2e-x --timeout=60s");
    BOOST_TEST(deleted.exit == 0, deleted.err);
    BOOST_TEST(deleted.out == "namespace \"e2e-x\" deleted\n");
    BOOST_TEST(eventually([] { return notFound(kubectl("get ns e2e-x")); }), kubectl("get ns e2e-x -o yaml").out);
    BOOST_TEST(notFound(kubectl("get configmap in-x -n e2e-x")));
}

// The store holds Secrets (the MPI SSH keys among them): it, its -wal and -shm, the kubeconfig and
// the API's credentials are the owner's alone.
BOOST_AUTO_TEST_CASE(the_store_and_credentials_are_private) {
    auto& c = Cluster::get();
    auto modeOf = [](const std::string& p) {
        struct stat st {};
        return ::lstat(p.c_str(), &st) == 0 ? int(st.st_mode & 07777) : -1;
    };
    const std::string store = c.dir.file("store.db");
    for (auto const& f : {store, store + "-wal", store + "-shm", c.kubeconfig, store + ".certs/tls.key",
                          store + ".certs/token"})
        BOOST_TEST(modeOf(f) == 0600, f << " mode " << std::oct << modeOf(f));
    BOOST_TEST(modeOf(store + ".certs") == 0700, "cert dir mode " << std::oct << modeOf(store + ".certs"));
}

// `immutable: true` on a Secret or ConfigMap: its data can no longer change, by any verb, and
// `immutable` cannot be turned off (the API server's wording and 422).
BOOST_AUTO_TEST_CASE(immutable_secret_and_config_map_refuse_updates) {
    auto& c = Cluster::get();
    const std::string forbidden = "Forbidden: field is immutable when `immutable` is set";
    auto secret = [&](const std::string& file, const std::string& data, const std::string& immutable) {
        return c.dir.write(file, "apiVersion: v1\nkind: Secret\nmetadata:\n  name: imm\nimmutable: " + immutable + "\n" +
                                     data + "\n").string();
    };
    auto created = kubectl("apply --server-side -f " + quote(secret("imm-1.yaml", "data:\n  key: b25l", "true")));
    BOOST_TEST_REQUIRE(created.exit == 0, created.err);
    const std::string before = jsonpath("secret imm", "{.data}") + jsonpath("secret imm", "{.stringData}");
    struct Attempt {
        std::string args;
        std::string field;
    };
    const std::vector<Attempt> attempts{
        {"apply --server-side -f " + quote(secret("imm-2.yaml", "stringData:\n  key: two", "true")), "data"},
        {"apply --server-side -f " + quote(secret("imm-3.yaml", "data:\n  key: b25l", "false")), "immutable"},
        {"patch secret imm --type=merge -p " + quote(R"({"data":{"key":"dHdv"}})"), "data"},
        {"patch secret imm --type=merge -p " + quote(R"({"stringData":{"other":"x"}})"), "data"},
    };
    for (auto const& a : attempts) {
        auto r = kubectl(a.args);
        BOOST_TEST(r.exit != 0, a.args);
        BOOST_TEST(contains(r.err, "Secret \"imm\" is invalid: " + a.field + ": " + forbidden), a.args << ": " << r.err);
        BOOST_TEST(jsonpath("secret imm", "{.data}") + jsonpath("secret imm", "{.stringData}") == before);
    }
    BOOST_TEST(kubectl("label secret imm team=ml").exit == 0);

    auto cm = c.dir.write("imm-cm.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: imm\nimmutable: true\n"
                                          "data:\n  k: v\n");
    BOOST_TEST_REQUIRE(kubectl("apply -f " + quote(cm.string())).exit == 0);
    auto edited = kubectl("patch configmap imm --type=merge -p " + quote(R"({"data":{"k":"w"}})"));
    BOOST_TEST(edited.exit != 0);
    BOOST_TEST(contains(edited.err, "ConfigMap \"imm\" is invalid: data: " + forbidden), edited.err);
    auto dry = kubectl("patch configmap imm --dry-run=server --type=merge -p " + quote(R"({"immutable":false})"));
    BOOST_TEST(contains(dry.err, "immutable: " + forbidden), dry.err);
    BOOST_TEST(jsonpath("configmap imm", "{.data.k}") == "v");
    BOOST_TEST(kubectl("delete secret imm").exit == 0);
    BOOST_TEST(kubectl("delete configmap imm").exit == 0);
}

BOOST_AUTO_TEST_CASE(sigterm_stops_the_operator_cleanly) {
    auto& c = Cluster::get();
    BOOST_TEST(c.stop() == 0, c.log());
}
