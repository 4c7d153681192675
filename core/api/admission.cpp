#include "core/api/admission.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <tuple>

namespace trainer::core {

namespace {

const json::object* objAt(const json::object& o, std::string_view k) {
    auto it = o.find(k);
    return it != o.end() && it->value().is_object() ? &it->value().get_object() : nullptr;
}
std::optional<std::string> strAt(const json::object* o, std::string_view k) {
    if (!o) return std::nullopt;
    auto it = o->find(k);
    if (it == o->end() || !it->value().is_string()) return std::nullopt;
    return std::string(it->value().get_string());
}
std::optional<std::string> label(const json::object& o, std::string_view key) {
    auto meta = objAt(o, "metadata");
    return strAt(meta ? objAt(*meta, "labels") : nullptr, key);
}
std::string nameOf(const json::object& o) {
    auto meta = objAt(o, "metadata");
    return strAt(meta, "name").value_or("");
}

struct Ancestor {
    std::string_view label;
    std::string_view container;
};
constexpr std::array<Ancestor, 3> kAncestors{{
    {"dataset-initializer", "dataset-initializer"},
    {"model-initializer", "model-initializer"},
    {"trainer", "node"},
}};

// replicas == 1 and the required container for every ancestor replicated job, as upstream's
// validateReplicatedJobs in
// https://github.com/kubeflow/trainer/blob/8c0f5059bd51ec3ba6d6a6a7b2e1471de7bc13b3/pkg/webhooks/trainingruntime_webhook.go.
void validateReplicatedJobs(const json::object& runtime, Diagnostics& d) {
    auto spec = objAt(runtime, "spec");
    auto tmpl = spec ? objAt(*spec, "template") : nullptr;
    auto tspec = tmpl ? objAt(*tmpl, "spec") : nullptr;
    auto* jobs = tspec ? tspec->if_contains("replicatedJobs") : nullptr;
    if (!jobs || !jobs->is_array()) return;
    auto const& list = jobs->get_array();
    for (std::size_t i = 0; i < list.size(); ++i) {
        if (!list[i].is_object()) continue;
        auto const& job = list[i].get_object();
        auto jt = objAt(job, "template");
        auto jmeta = jt ? objAt(*jt, "metadata") : nullptr;
        auto value = strAt(jmeta ? objAt(*jmeta, "labels") : nullptr, kAncestorLabel);
        if (!value) continue;
        auto anc = std::find_if(kAncestors.begin(), kAncestors.end(), [&](auto const& a) { return a.label == *value; });
        if (anc == kAncestors.end()) continue;
        std::string path = "spec.template.spec.replicatedJobs[" + std::to_string(i) + "]";
        auto replicas = job.find("replicas");  // absent = the CRD default 1
        if (replicas != job.end() && !(replicas->value().is_int64() && replicas->value().get_int64() == 1) &&
            !(replicas->value().is_double() && replicas->value().get_double() == 1.0))
            d.add(path + ".replicas", "always must be 1");
        auto jspec = jt ? objAt(*jt, "spec") : nullptr;
        auto ptmpl = jspec ? objAt(*jspec, "template") : nullptr;
        auto pspec = ptmpl ? objAt(*ptmpl, "spec") : nullptr;
        bool found = false;
        if (auto* cs = pspec ? pspec->if_contains("containers") : nullptr; cs && cs->is_array())
            for (auto const& c : cs->get_array())
                found = found || (c.is_object() && strAt(&c.get_object(), "name") == std::string(anc->container));
        if (!found)
            d.add(path + ".template.spec.template.spec.containers",
                  "must contain the required container for the ancestor: " + std::string(anc->label));
    }
}

std::string lower(std::string_view s) {
    std::string out(s);
    for (auto& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return out;
}

// Optimal string alignment distance: insertions, deletions, substitutions, adjacent transpositions.
std::size_t editDistance(std::string_view a, std::string_view b) {
    std::vector<std::vector<std::size_t>> d(a.size() + 1, std::vector<std::size_t>(b.size() + 1));
    for (std::size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
    for (std::size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
    for (std::size_t i = 1; i <= a.size(); ++i)
        for (std::size_t j = 1; j <= b.size(); ++j) {
            d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)});
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
        }
    return d[a.size()][b.size()];
}

std::string_view groupOf(std::string_view apiVersion) {
    auto slash = apiVersion.find('/');
    return slash == apiVersion.npos ? std::string_view() : apiVersion.substr(0, slash);
}

}  // namespace

Diagnostics validateRuntime(const json::object& runtime, bool isCreate, const json::object* oldObj) {
    Diagnostics d = validateSchema(runtime, isCreate ? nullptr : oldObj);
    ObjectKind kind = kindOf(runtime);
    if (kind != ObjectKind::TrainingRuntime && kind != ObjectKind::ClusterTrainingRuntime) return d;
    if (label(runtime, kWebhookValidationLabel) == "disabled") return d;  // the webhook's objectSelector
    if (kind == ObjectKind::TrainingRuntime && !isCreate) return d;
    if (kind == ObjectKind::ClusterTrainingRuntime && isCreate && label(runtime, kSupportLabel) == "deprecated")
        d.warn("", "ClusterTrainingRuntime \"" + nameOf(runtime) +
                       "\" is deprecated and will be removed in a future release of Kubeflow Trainer. See runtime "
                       "deprecation policy: " + std::string(kDeprecationPolicyUrl));
    validateReplicatedJobs(runtime, d);
    return d;
}

std::string registryKey(const json::object& trainJob) {
    auto spec = objAt(trainJob, "spec");
    auto ref = spec ? objAt(*spec, "runtimeRef") : nullptr;
    std::string kind = strAt(ref, "kind").value_or("ClusterTrainingRuntime");
    std::string group = strAt(ref, "apiGroup").value_or(std::string(kTrainerGroup));
    return group.empty() ? kind : kind + "." + group;
}

Diagnostics validateTrainJobRef(const json::object& trainJob, const ClusterReader& cluster) {
    Diagnostics d;
    std::string key = registryKey(trainJob);
    const std::string trKey = "TrainingRuntime." + std::string(kTrainerGroup);
    const std::string ctrKey = "ClusterTrainingRuntime." + std::string(kTrainerGroup);
    if (key != trKey && key != ctrKey) {
        d.add("spec.runtimeRef", "unsupported runtime: " + key);
        return d;
    }
    auto spec = objAt(trainJob, "spec");
    auto name = strAt(spec ? objAt(*spec, "runtimeRef") : nullptr, "name");
    if (!name) return d;  // Required value: reported by the schema
    auto meta = objAt(trainJob, "metadata");
    std::string ns = strAt(meta, "namespace").value_or("");
    const std::string apiVersion(kTrainerApiVersion);
    if (key == trKey) {
        ObjectKey rk{apiVersion, "TrainingRuntime", ns, *name};
        auto runtime = cluster.share(rk);  // read, not copied: resolving the runtime reads it again
        if (runtime->failed()) d.add("spec.runtimeRef", readFailureMessage(rk, runtime->message), ErrorType::Internal);
        else if (runtime->notFound())
            d.add("spec.runtimeRef", "trainingruntimes.trainer.kubeflow.org \"" + *name +
                                         "\" not found: specified trainingRuntime must be created before the TrainJob is created");
        return d;
    }
    ObjectKey rk{apiVersion, "ClusterTrainingRuntime", "", *name};
    auto runtime = cluster.share(rk);
    if (runtime->failed()) {
        d.add("spec.runtimeRef", readFailureMessage(rk, runtime->message), ErrorType::Internal);
        return d;
    }
    if (runtime->notFound()) {
        // Upstream quirk kept on purpose: capital R in this path only.
        d.add("spec.RuntimeRef", "clustertrainingruntimes.trainer.kubeflow.org \"" + *name +
                                     "\" not found: specified clusterTrainingRuntime must be created before the TrainJob is created");
        return d;
    }
    if (label(runtime->object, kSupportLabel) == "deprecated")
        d.warn("", "Referenced ClusterTrainingRuntime \"" + *name +
                       "\" is deprecated and will be removed in a future release of Kubeflow Trainer. See runtime "
                       "deprecation policy: " + std::string(kDeprecationPolicyUrl));
    return d;
}

void stampRuntimePatchTimes(json::object& trainJob, const json::object* oldTrainJob, std::string_view now) {
    auto patchesOf = [](json::object* tj) -> json::array* {
        auto* spec = tj ? tj->if_contains("spec") : nullptr;
        if (!spec || !spec->is_object()) return nullptr;
        auto* p = spec->as_object().if_contains("runtimePatches");
        return p && p->is_array() ? &p->as_array() : nullptr;
    };
    json::array* patches = patchesOf(&trainJob);
    if (!patches) return;
    std::optional<json::object> oldCopy;
    if (oldTrainJob) oldCopy = *oldTrainJob;
    json::array* oldPatches = oldCopy ? patchesOf(&*oldCopy) : nullptr;
    for (auto& p : *patches) {
        if (!p.is_object()) continue;
        auto& patch = p.as_object();
        const json::object* before = nullptr;
        if (oldPatches)
            for (auto const& o : *oldPatches)
                if (o.is_object() && strAt(&o.get_object(), "manager") == strAt(&patch, "manager")) before = &o.get_object();
        bool hasTime = patch.contains("time") && !patch.at("time").is_null();
        if (before) {
            json::object a = patch, b = *before;
            a.erase("time");
            b.erase("time");
            if (a == b) {
                if (auto t = before->find("time"); t != before->end() && !t->value().is_null()) patch["time"] = t->value();
                else if (!hasTime) patch["time"] = now;
                continue;
            }
            patch["time"] = now;  // changed content: re-stamped
            continue;
        }
        if (!hasTime) patch["time"] = now;
    }
}

const std::vector<ResourceType>& resourceTypes() {
    static const std::vector<ResourceType> types = {
        {"trainjobs", "trainjob", "TrainJob", "trainer.kubeflow.org/v1alpha1", true, {"tj"}},
        {"trainingruntimes", "trainingruntime", "TrainingRuntime", "trainer.kubeflow.org/v1alpha1", true, {"tr"}},
        {"clustertrainingruntimes", "clustertrainingruntime", "ClusterTrainingRuntime", "trainer.kubeflow.org/v1alpha1", false, {"ctr"}},
        {"configmaps", "configmap", "ConfigMap", "v1", true, {"cm"}},
        {"secrets", "secret", "Secret", "v1", true, {}},
        {"events", "event", "Event", "v1", true, {"ev"}},
        {"leases", "lease", "Lease", "coordination.k8s.io/v1", true, {}},
        {"priorityclasses", "priorityclass", "PriorityClass", "scheduling.k8s.io/v1", false, {"pc"}},
        {"limitranges", "limitrange", "LimitRange", "v1", true, {"limits"}},
        {"runtimeclasses", "runtimeclass", "RuntimeClass", "node.k8s.io/v1", false, {}},
    };
    return types;
}

std::optional<ResourceType> resourceByName(std::string_view name) {
    std::string n = lower(name);
    for (auto const& t : resourceTypes()) {
        std::string group(groupOf(t.apiVersion));
        std::vector<std::string> names{t.plural, t.singular, lower(t.kind)};
        names.insert(names.end(), t.shortNames.begin(), t.shortNames.end());
        for (auto const& candidate : names)
            if (n == candidate || (!group.empty() && n == candidate + "." + group)) return t;
    }
    return std::nullopt;
}

std::string suggestResourceName(std::string_view name) {
    std::string n = lower(name);
    std::string best;
    // Ranked by distance ignoring case, then the shorter name, then distance with case ("TrainJbo" -> "TrainJob").
    std::tuple<std::size_t, std::size_t, std::size_t> bestRank{std::max<std::size_t>(2, n.size() / 3) + 1, 0, 0};
    for (auto const& t : resourceTypes())
        for (auto const& candidate : {t.plural, t.singular, t.kind}) {
            std::tuple rank{editDistance(n, lower(candidate)), candidate.size(), editDistance(name, candidate)};
            if (std::get<0>(rank) < std::get<0>(bestRank) || (std::get<0>(rank) == std::get<0>(bestRank) && rank < bestRank && !best.empty())) {
                bestRank = rank;
                best = candidate;
            }
        }
    return best;
}

}  // namespace trainer::core
