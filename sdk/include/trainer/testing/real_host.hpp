// The real host for plugin unit tests: the operator's own Info builder, edit ledger, plugin
// registry and pipeline, compiled into the SDK's testing library. Link `TrainerSDK::testing`
// (find_package(TrainerSDK) gives it; in the operator's tree the target is trainer_sdk_testing);
// the rest of the operator stays hidden inside that library.
//
// Which to use (sdk/docs/testing.md walks through each):
//  - the fake `Host` of <trainer/testing.hpp> (header-only, no library): call one method of your
//    class on a hand-made Info and look at what it said: diagnostics and their field paths, log
//    lines, the raw edits or objects it emitted, a refused configuration, lookup answers.
//  - buildInfo(): the Info the operator hands your hooks for a TrainJob on a runtime (runtime
//    patches merged, resourcesPerNode, PodSets, singlePodRequests), or its errors with field paths.
//    Start every hook test from it instead of writing an Info by hand.
//  - applyEdits() and Ledger: the edits your hook emitted (the fake Host's `emitted`), applied as
//    the operator applies them: the Info your hook leaves behind, or the refusal the operator
//    would report (a bad path, a host-owned member, a claimed env var, two plugins disagreeing).
//  - RealHost: your plugin (the class compiled into the test, or its .so) loaded beside others by
//    the operator's registry (claims, activation by policy and feature gate, create() with its
//    configuration) and run by its pipeline: one hook, the build phases on an Info, admission of a
//    TrainJob, or a TrainJob from its runtime to the objects the operator would apply.
//
// Not thread-safe: one RealHost or Ledger per test. Errors are values (Outcome), never exceptions.
#pragma once

#include <trainer/testing.hpp>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#if defined(_WIN32)
#define TRAINER_TESTING_API
#else
#define TRAINER_TESTING_API __attribute__((visibility("default")))
#endif

namespace trainer::sdk::testing {

// What one step of the real host produced.
struct Outcome {
    // The Info after the step: buildInfo's Info; after run/build, the Info the last phase left
    // (with the `operator` member the host adds); applyEdits' Info with every accepted edit.
    json::object info;
    // The objects the operator would apply, in plugin order; empty whenever there is an error
    // (the operator applies nothing then). buildTrainJob lists the runtime snapshot apart.
    std::vector<json::object> objects;
    // buildTrainJob: the `<job>-runtime-snapshot` ConfigMap the operator writes before the first
    // build (when the cluster has none yet), even when the build then failed.
    std::optional<json::object> runtimeSnapshot;
    // status(): the TrainJob's new status, nullopt for "no change".
    std::optional<json::object> status;
    // Errors and warnings as the operator reports them (webhook, CLI, TrainJob conditions):
    // field path and message. Refused edits and object conflicts have an empty path.
    std::vector<Diagnostic> diagnostics;
    // Every line the plugins logged during the step, as "<plugin>: <line>".
    std::vector<std::string> logs;

    bool ok() const { return errors().empty(); }
    std::vector<Diagnostic> errors() const { return only(TRN_SEVERITY_ERROR); }
    std::vector<Diagnostic> warnings() const { return only(TRN_SEVERITY_WARNING); }
    // "error: <path>: <message>" lines, as `trainer-operator render` prints them (for test
    // failure messages: BOOST_TEST_REQUIRE(out.ok(), out.describe())).
    std::string describe() const {
        std::string s;
        for (auto const& d : diagnostics) {
            s += d.severity == TRN_SEVERITY_ERROR ? "error: " : "warning: ";
            if (!d.origin.empty()) s += d.origin + ": ";
            if (!d.path.empty()) s += d.path + ": ";
            s += d.message + "\n";
        }
        return s;
    }
    // The object of this kind and name among `objects` (any apiVersion, any namespace), or nullptr.
    const json::object* object(std::string_view kind, std::string_view name) const {
        for (auto const& o : objects) {
            auto* md = getObject(o, "metadata");
            if (getString(o, "kind").value_or("") == kind && md && getString(*md, "name").value_or("") == name) return &o;
        }
        return nullptr;
    }

private:
    std::vector<Diagnostic> only(int32_t severity) const {
        std::vector<Diagnostic> out;
        for (auto const& d : diagnostics)
            if (d.severity == severity) out.push_back(d);
        return out;
    }
};

// The Info document the operator builds for `trainJob` on `runtime` (sdk/docs/info.md), with the
// operator's own builder: the CRD defaults applied to both first (as the API server stores them),
// then runtime patches by
// strategic merge, apply-configuration zero values dropped, PodSet counts, the trainer's
// resourcesPerNode and singlePodRequests. Malformed fields are errors with field paths (then
// `info` is whatever could be built). The Info has no `operator` member: RealHost adds it.
// Nothing is validated beyond what building needs; RealHost::admit runs admission.
TRAINER_TESTING_API Outcome buildInfo(const json::object& trainJob, const json::object& runtime);

// The operator's edit ledger (ABI rule 12, sdk/docs/info.md "Edits") for one build: applies the
// edits of one or several plugins to an Info, remembering who wrote what, so a second plugin
// writing a field with another value, or an env var or volume another plugin claims, is refused
// with the operator's sentence.
class TRAINER_TESTING_API Ledger {
public:
    Ledger();
    ~Ledger();
    Ledger(const Ledger&) = delete;
    Ledger& operator=(const Ledger&) = delete;

    // `plugin` owns the claim (only `env:NAME` and `volume:NAME` matter to the ledger).
    void claim(std::string_view claim, std::string_view plugin);
    // Applies `edits` (documents emitted by an Enforce or PreComponentBuilder hook, e.g. the fake
    // Host's `emitted`) of `plugin` to `info`, in order. The first refused edit stops: the
    // Outcome's info is the Info with the edits before it, and one error says why.
    Outcome apply(json::object info, std::string_view plugin, const std::vector<json::value>& edits);

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

// One plugin's edits applied to `info` by a fresh ledger (no claims): Ledger::apply.
TRAINER_TESTING_API Outcome applyEdits(json::object info, const std::vector<json::value>& edits,
                                       std::string_view plugin = "test");

// The hooks RealHost::run runs (WatchExtension is data: see `plugins()`'s claims and watches).
enum class Hook { CustomValidation, EnforceMLPolicy, EnforcePodGroupPolicy, EnforcePodSpec, PreComponentBuilder,
                  ComponentBuilder, TrainJobStatus };

// A plugin the registry refused: the sentence the operator logs (`trainer-operator plugins`) and
// its short code ("conflicting_claim", "create_failed", "unclaimed_policy_hook", ...).
struct Rejection {
    std::string path;
    std::string reason;
    std::string code;
};

// Who the operator is: what the host puts in every Info's `operator` member besides the feature
// gates (sdk/docs/info.md). The defaults are the operator's.
struct OperatorIdentity {
    std::string ns = "kubeflow-system";
    std::string serviceName = "kubeflow-trainer-controller-manager";
    std::string webhookSecretName = "kubeflow-trainer-webhook-cert";
    int64_t statusServerPort = 10443;
};

// The entry point of plugin class `P`, as TRAINER_PLUGIN(P) defines it in the .so: what
// RealHost::add<P> loads. Usable in a test binary without the file holding TRAINER_PLUGIN.
template <class P>
const trn_plugin_descriptor* entryOf(const trn_host_info* host) {
    try {
        return ::trainer::sdk::detail::Adapter<P>::entry(host);
    } catch (...) {
        return nullptr;
    }
}

// The operator's plugin registry, framework and pipeline around the plugins a test adds, with a
// cluster of objects the test provides. Plugins run in the registry's order (priority, then
// name) whatever order they were added in, each only where the operator would run it (its
// policy configured, or none claimed; its feature gates on).
class TRAINER_TESTING_API RealHost {
public:
    RealHost();
    ~RealHost();
    RealHost(const RealHost&) = delete;
    RealHost& operator=(const RealHost&) = delete;

    // ---- Plugins ----
    // The configuration handed to create() of the plugin named `plugin` when it is added later
    // (the Configuration's `plugins.config.<name>`); none set means {}.
    void configure(std::string_view plugin, const json::object& config);
    // Loads plugin class `P` compiled into the test, with `config`, through the registry's
    // checks (ABI, name, claims and conflicts, policy-hook claims, create()). Shown as
    // "in-process:<name>" where the operator shows a path. false when refused: see rejected().
    template <class P>
    bool add(const json::object& config = {}) {
        const std::string name = P::meta().name;
        configure(name, config);
        return addEntry(&entryOf<P>, "in-process:" + name);
    }
    // The same for any entry point (a C plugin's, say), shown as `displayName`.
    bool addEntry(trn_plugin_entry_fn entry, const std::string& displayName);
    // Loads a built plugin file as the operator loads one of its shipped plugins: trust checks (a
    // file writable by group or others, or owned by another user, is refused), ELF, sha256,
    // dlopen through the checked descriptor, then the same checks as add(). In this process.
    bool addFile(const std::string& path);
    // The loaded plugins' names in run order.
    std::vector<std::string> plugins() const;
    // Every refusal so far, in order.
    std::vector<Rejection> rejected() const;

    // ---- The operator ----
    // Turns one of the operator's feature gates on or off (all start at the operator's defaults,
    // TrainJobStatus off). false for a gate this operator does not know: it can never be on.
    bool setFeatureGate(std::string_view gate, bool on);
    // The operator's namespace, Service, webhook Secret and status server port (the
    // Configuration's certManagement and statusServer).
    void setOperator(const OperatorIdentity& identity);

    // ---- The cluster ----
    // An object of the cluster: the runtimes TrainJobs refer to, and what plugins find with
    // lookup() (Secrets, PodGroups, a JobSet ...). Trainer objects get their CRD defaults, as the
    // API server stores them. A later object of the same apiVersion, kind, namespace and name
    // replaces it.
    void addObject(json::object object);
    // From now on every cluster read fails with `why`, as when the operator cannot read its
    // store or API server: lookups answer TRN_LOOKUP_ERROR and the call fails.
    void failClusterReads(std::string why);

    // ---- Running ----
    // One hook on `info` (buildInfo's, say) for every plugin that implements it and is active:
    // the build phases apply the phase's edits through one ledger (`info` after them) or check
    // ComponentBuilder's objects (kind claims, reserved names, one emitter per object);
    // CustomValidation adds the admission member ({"operation": "CREATE"}) when `info` has none;
    // TrainJobStatus runs on `info`'s trainJob and answers in `status`. The runtime's policies must
    // be claimed by a loaded plugin, as the operator requires.
    Outcome run(Hook hook, const json::object& info) const;
    // Several build phases (EnforceMLPolicy ... ComponentBuilder) on `info`, in pipeline order
    // whatever order they are listed in, with one ledger across them: a slice of build(), say
    // {PreComponentBuilder, ComponentBuilder} on an Info an earlier phase left. Listing
    // CustomValidation or TrainJobStatus is an error.
    Outcome run(const std::vector<Hook>& phases, const json::object& info) const;
    // The five build phases on `info`, in pipeline order, with one ledger across them: what the
    // operator does once it has built the Info.
    Outcome build(const json::object& info) const;
    // One reconcile of `trainJob` (CRD defaults applied): its runtime resolved from the cluster
    // (the runtime snapshot ConfigMap first), the Info built, the five phases run.
    Outcome buildTrainJob(const json::object& trainJob) const;
    // Admission of `trainJob` (`oldTrainJob` given: an UPDATE) as `trainer-operator validate` and
    // the webhook do it: CRD defaults, schema and CEL rules, the runtime reference, the Info, the
    // runtime's policy claims, then every active plugin's CustomValidation.
    Outcome admit(const json::object& trainJob, const json::object* oldTrainJob = nullptr) const;
    // TrainJobStatus: the new status of `trainJob` from the one plugin implementing it.
    Outcome status(const json::object& trainJob) const;

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace trainer::sdk::testing
