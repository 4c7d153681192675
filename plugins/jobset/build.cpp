// ComponentBuilder: Info merged back into the runtime's JobSet spec (upstream Build in
// https://github.com/kubeflow/trainer/blob/8c0f5059bd51ec3ba6d6a6a7b2e1471de7bc13b3/pkg/runtime/framework/plugins/jobset/jobset.go
// and builder.go beside it).
#include "jobset.hpp"
#include "json_util.hpp"

#include <array>
#include <string>

namespace trainer::plugins::jobset {

namespace {

using util::ensureArray;
using util::ensureObject;
using util::ensurePath;

// Positional merge of one PodSet container list into the template's (jobset.go Build).
// Returns false when the template has fewer regular containers than the PodSet.
bool mergeContainers(json::array& target, const json::array* source, bool appendMissing) {
    if (!source) return true;
    for (size_t c = 0; c < source->size(); ++c) {
        if (!(*source)[c].is_object()) continue;
        const auto& src = (*source)[c].as_object();
        if (c >= target.size() || !target[c].is_object()) {
            if (!appendMissing) return false;
            target.push_back(json::object{{"name", sdk::getString(src, "name").value_or("")}});
        }
        auto& dst = target[c].as_object();
        if (const auto* cmd = sdk::getArray(src, "command"); cmd && !cmd->empty()) dst["command"] = *cmd;
        if (auto img = sdk::getString(src, "image"); img && !img->empty()) dst["image"] = *img;
        // An empty PodSet list upserts nothing, so no list appears where the template had none.
        if (const auto* env = sdk::getArray(src, "env"); env && !env->empty())
            util::upsertAllByKey(ensureArray(dst, "env"), env, "name");
        if (const auto* ports = sdk::getArray(src, "ports"); ports && !ports->empty()) {
            auto& list = ensureArray(dst, "ports");
            for (auto const& p : *ports) util::upsertPort(list, p);
        }
        if (const auto* vms = sdk::getArray(src, "volumeMounts"); vms && !vms->empty())
            util::upsertAllByKey(ensureArray(dst, "volumeMounts"), vms, "mountPath");
    }
    return true;
}

json::object* findContainer(json::object& podSpec, std::string_view name) {
    auto it = podSpec.find("containers");
    if (it == podSpec.end() || !it->value().is_array()) return nullptr;
    for (auto& c : it->value().as_array())
        if (c.is_object() && sdk::getString(c.as_object(), "name").value_or("") == name) return &c.as_object();
    return nullptr;
}

// One initializer kind: ancestor label value, container name, TrainJob spec.initializer member.
struct InitializerStep {
    std::string_view ancestor;
    std::string_view container;
    std::string_view member;
};
constexpr std::array<InitializerStep, 2> kInitializers = {{
    {"dataset-initializer", "dataset-initializer", "dataset"},
    {"model-initializer", "model-initializer", "model"},
}};

// builder.go Initializer: STORAGE_URI, env and envFrom secretRef into the initializer container.
void applyInitializer(json::object& container, const json::object& cfg) {
    if (auto uri = sdk::getString(cfg, "storageUri"))
        util::upsertByKey(ensureArray(container, "env"), json::object{{"name", "STORAGE_URI"}, {"value", *uri}}, "name");
    if (const auto* env = sdk::getArray(cfg, "env"); env && !env->empty())
        util::upsertAllByKey(ensureArray(container, "env"), env, "name");
    if (const auto* ref = sdk::getObject(cfg, "secretRef"))
        ensureArray(container, "envFrom")
            .push_back(json::object{{"secretRef", json::object{{"name", sdk::getString(*ref, "name").value_or("")}}}});
}

// Merges a string map into `metadata[key]` of an object (upstream WithLabels/WithAnnotations).
void mergeMap(json::object& holder, std::string_view key, const json::object* entries) {
    if (!entries || entries->empty()) return;
    auto& dst = ensurePath(holder, {"metadata", key});
    for (auto const& kv : *entries) dst[kv.key()] = kv.value();
}

// Step 2: each PodSet merged, by position, into its replicated job's pod spec. False (with an
// error reported) when a PodSet has more containers than its replicated job.
bool mergePodSets(json::array& rjobs, const json::array& podSets, sdk::Context& ctx) {
    for (size_t p = 0; p < podSets.size(); ++p) {
        if (!podSets[p].is_object() || !rjobs[p].is_object()) continue;
        const auto& ps = podSets[p].as_object();
        auto& podSpec = ensurePath(rjobs[p].as_object(), {"template", "spec", "template", "spec"});
        if (const auto* vols = sdk::getArray(ps, "volumes"); vols && !vols->empty())
            util::upsertAllByKey(ensureArray(podSpec, "volumes"), vols, "name");
        if (!mergeContainers(ensureArray(podSpec, "containers"), sdk::getArray(ps, "containers"), false)) {
            ctx.error("", "podSet " + std::string(sdk::getString(ps, "name").value_or("")) +
                              " has more containers than replicated job " +
                              std::string(sdk::getString(rjobs[p].as_object(), "name").value_or("")));
            return false;
        }
        if (const auto* inits = sdk::getArray(ps, "initContainers"); inits && !inits->empty())
            mergeContainers(ensureArray(podSpec, "initContainers"), inits, true);
    }
    return true;
}

// What steps 4 and 5 take from the TrainJob.
struct TrainJobParts {
    const json::object* initializer;  // spec.initializer
    const json::object* trainer;      // spec.trainer
    const json::array* trainerEnv;    // spec.trainer.env
    bool launcherAsNode;              // mlPolicy.mpi.runLauncherAsNode
};

// Step 4: an initializer replicated job runs once, its container configured from the TrainJob.
void applyInitializerSteps(json::object& rj, std::string_view ancestor, const TrainJobParts& tj) {
    for (auto const& step : kInitializers) {
        if (ancestor != step.ancestor) continue;
        rj["replicas"] = 1;
        const json::object* cfg = tj.initializer ? sdk::getObject(*tj.initializer, step.member) : nullptr;
        auto& podSpec = ensurePath(rj, {"template", "spec", "template", "spec"});
        if (json::object* c = findContainer(podSpec, step.container); c && cfg) applyInitializer(*c, *cfg);
    }
}

// Step 5: the trainer replicated job runs once with the TrainJob's image, command, args and env
// in its `node` container; an MPI launcher run as a node gets the env too.
void applyTrainerStep(json::object& rj, std::string_view ancestor, const TrainJobParts& tj) {
    const bool isTrainer = ancestor == "trainer";
    if (isTrainer) rj["replicas"] = 1;
    if (!isTrainer && !(tj.launcherAsNode && sdk::getString(rj, "name").value_or("") == "node")) return;
    auto& podSpec = ensurePath(rj, {"template", "spec", "template", "spec"});
    json::object* node = findContainer(podSpec, "node");
    if (!node || !tj.trainer) return;
    if (isTrainer) {
        if (auto img = sdk::getString(*tj.trainer, "image")) (*node)["image"] = *img;
        if (const auto* cmd = sdk::getArray(*tj.trainer, "command")) (*node)["command"] = *cmd;
        if (const auto* args = sdk::getArray(*tj.trainer, "args")) (*node)["args"] = *args;
    }
    if (tj.trainerEnv && !tj.trainerEnv->empty()) util::upsertAllByKey(ensureArray(*node, "env"), tj.trainerEnv, "name");
}

// Step 6: the scheduler's pod labels and annotations into every pod template.
void applySchedulerMetadata(json::array& rjobs, const sdk::Info& info) {
    const json::object* sched = info.objectMember("scheduler");
    const json::object* podLabels = sched ? sdk::getObject(*sched, "podLabels") : nullptr;
    const json::object* podAnnotations = sched ? sdk::getObject(*sched, "podAnnotations") : nullptr;
    for (auto& v : rjobs) {
        if (!v.is_object()) continue;
        auto& podTemplate = ensurePath(v.as_object(), {"template", "spec", "template"});
        mergeMap(podTemplate, "labels", podLabels);
        mergeMap(podTemplate, "annotations", podAnnotations);
    }
}

// Steps 3 and 8: the JobSet's name, namespace, labels, annotations and owner reference.
json::object jobSetMetadata(const sdk::Info& info) {
    json::object metadata{{"name", info.name()}, {"namespace", info.ns()}};
    if (const auto* l = info.objectMember("labels"); l && !l->empty()) metadata["labels"] = *l;
    if (const auto* a = info.objectMember("annotations"); a && !a->empty()) metadata["annotations"] = *a;
    metadata["ownerReferences"] = json::array{sdk::controllerRef(info)};
    return metadata;
}

}  // namespace

std::optional<json::object> buildJobSet(const sdk::Info& info, sdk::Context& ctx) {
    json::object spec = info.jobSetSpec();
    json::array& rjobs = ensureArray(spec, "replicatedJobs");
    const json::array& podSets = info.podSets();
    if (rjobs.size() < podSets.size()) {
        ctx.error("", "runtime template has " + std::to_string(rjobs.size()) + " replicatedJobs but runtime info has " +
                          std::to_string(podSets.size()) + " podSets");
        return std::nullopt;
    }
    if (!mergePodSets(rjobs, podSets, ctx)) return std::nullopt;

    const json::object& tjSpec = info.spec();
    const json::object* trainer = info.trainer();
    const json::object* mpi = sdk::mlPolicyConfig(info, "mpi");
    const TrainJobParts tj{sdk::getObject(tjSpec, "initializer"), trainer, trainer ? sdk::getArray(*trainer, "env") : nullptr,
                           mpi && sdk::getBool(*mpi, "runLauncherAsNode").value_or(false)};
    for (auto& v : rjobs) {
        if (!v.is_object()) continue;
        auto& rj = v.as_object();
        const auto ancestor = util::ancestorOf(rj);
        applyInitializerSteps(rj, ancestor, tj);
        applyTrainerStep(rj, ancestor, tj);
    }
    applySchedulerMetadata(rjobs, info);

    // 7. suspend copied as-is (absent when the TrainJob has none).
    if (auto s = sdk::getBool(tjSpec, "suspend")) spec["suspend"] = *s;
    else spec.erase("suspend");

    // Upstream serialises an apply configuration, whose list fields are all `omitempty`: an
    // empty list (a TrainJob's `command: []`, an empty PodSet list) is never emitted.
    util::dropEmptyLists(spec);

    json::object jobSet;
    jobSet.reserve(4);
    jobSet["apiVersion"] = kApiVersion;
    jobSet["kind"] = kKind;
    jobSet["metadata"] = jobSetMetadata(info);
    jobSet["spec"] = std::move(spec);
    return jobSet;
}

}  // namespace trainer::plugins::jobset
