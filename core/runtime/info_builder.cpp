#include "core/runtime/info_builder.hpp"

#include "core/json/io.hpp"
#include "core/json/same_in_order.hpp"
#include "core/api/lazy_field_path.hpp"
#include "core/runtime/strategic_merge.hpp"

#include <trainer/quantity.hpp>

#include <algorithm>
#include <cmath>
#include <iterator>
#include <utility>

namespace trainer::core {

namespace {

constexpr std::string_view kGroup = "trainer.kubeflow.org";
constexpr std::string_view kVersion = "v1alpha1";
constexpr std::string_view kDefaultKind = "ClusterTrainingRuntime";
constexpr std::string_view kAncestorLabel = "trainer.kubeflow.org/trainjob-ancestor-step";
constexpr std::string_view kTrainerAncestor = "trainer";
constexpr std::string_view kSnapshotSuffix = "-runtime-snapshot";
constexpr std::string_view kSnapshotKey = "runtime";
constexpr std::string_view kQuantityMessage =
    "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";

// The runtime kinds of the registry (upstream NewRuntimeRegistry in
// https://github.com/kubeflow/trainer/blob/8c0f5059bd51ec3ba6d6a6a7b2e1471de7bc13b3/pkg/runtime/core/registry.go)
// and their Kubernetes NotFound texts.
struct RuntimeKind {
    std::string_view kind;
    std::string_view resource;
    std::string_view notFoundPrefix;
    bool namespaced;
};
constexpr RuntimeKind kRuntimeKinds[] = {
    {"TrainingRuntime", "trainingruntimes", "TrainingRuntime specified in TrainJob is not found: ", true},
    {"ClusterTrainingRuntime", "clustertrainingruntimes", "not found ClusterTrainingRuntime specified in TrainJob: ", false},
};

// Pod-level requests that override the container aggregate (k8s IsSupportedPodLevelResource).
bool podLevelResource(std::string_view name) { return name == "cpu" || name == "memory" || name.starts_with("hugepages-"); }

const json::object* obj(const json::object* o, std::string_view key) {
    if (!o) return nullptr;
    auto* v = o->if_contains(key);
    return (v && v->is_object()) ? &v->get_object() : nullptr;
}
json::object* obj(json::object* o, std::string_view key) {
    if (!o) return nullptr;
    auto* v = o->if_contains(key);
    return (v && v->is_object()) ? &v->get_object() : nullptr;
}
const json::object* path(const json::object* o, std::initializer_list<std::string_view> keys) {
    for (auto k : keys) o = obj(o, k);
    return o;
}
std::string str(const json::object* o, std::string_view key) {
    if (!o) return {};
    auto* v = o->if_contains(key);
    return (v && v->is_string()) ? std::string(v->get_string()) : std::string();
}
std::optional<int64_t> integer(const json::value& v) {
    if (v.is_int64()) return v.get_int64();
    if (v.is_uint64() && v.get_uint64() <= static_cast<uint64_t>(INT64_MAX)) return static_cast<int64_t>(v.get_uint64());
    if (v.is_double() && std::fabs(v.get_double()) < 9223372036854775808.0 &&  // in int64's range
        v.get_double() == static_cast<double>(static_cast<int64_t>(v.get_double())))
        return static_cast<int64_t>(v.get_double());
    return std::nullopt;
}

// Reports diagnostics about one input object (a runtime: its key is the origin, made at the first
// error) or the TrainJob (no object: empty origin).
class Reporter {
public:
    Reporter(Diagnostics& diag, const json::object* origin) : diag_(diag), originOf_(origin) {}
    void error(std::string p, std::string msg, ErrorType t = ErrorType::Invalid) {
        if (originOf_) origin_ = keyOf(*originOf_).display(), originOf_ = nullptr;
        diag_.errors.push_back(FieldError{std::move(p), std::move(msg), t, origin_});
    }
    // The member `key` of `o` when it has the expected JSON kind; reports and returns null otherwise.
    const json::value* member(const json::object* o, std::string_view key, json::kind k, const LazyFieldPath& p) {
        if (!o) return nullptr;
        auto* v = o->if_contains(key);
        if (!v || v->is_null()) return nullptr;
        bool ok = v->kind() == k || (k == json::kind::int64 && integer(*v));
        if (!ok) {
            error(p.str(), std::string("must be ") + kindName(k), ErrorType::TypeInvalid);
            return nullptr;
        }
        return v;
    }
    // A map of strings (labels/annotations); wrong-typed entries are reported and skipped.
    json::object stringMap(const json::object* o, std::string_view key, const LazyFieldPath& p) {
        json::object out;
        auto* m = member(o, key, json::kind::object, p);
        if (!m) return out;
        for (auto const& kv : m->get_object()) {
            if (kv.value().is_string()) out[kv.key()] = kv.value();
            else error(p.str() + "[" + std::string(kv.key()) + "]", "must be a string", ErrorType::TypeInvalid);
        }
        return out;
    }
    Diagnostics& diagnostics() { return diag_; }

private:
    static const char* kindName(json::kind k) {
        switch (k) {
            case json::kind::object: return "an object";
            case json::kind::array: return "a list";
            case json::kind::string: return "a string";
            case json::kind::bool_: return "a boolean";
            default: return "an integer";
        }
    }
    Diagnostics& diag_;
    const json::object* originOf_;
    std::string origin_;
};

std::string idx(const std::string& p, size_t i) { return p + "[" + std::to_string(i) + "]"; }

// One YAML document as JSON (core/json/io.hpp, sigs.k8s.io/yaml scalar semantics).
std::optional<json::value> parseYamlDocument(const std::string& text, std::string& error) {
    std::vector<json::value> docs;
    if (!parseYaml(text, docs, error)) return std::nullopt;
    if (docs.size() != 1) {
        error = "expected one YAML document, found " + std::to_string(docs.size());
        return std::nullopt;
    }
    return std::move(docs.front());
}

// ---- apply-config conversion ----

// Drops what an apply configuration built from the typed JobSetSpec would not carry: nulls,
// empty strings and empty lists (omitempty), and `replicas: 0` of a replicated job. String maps
// (labels, annotations, selectors) keep their entries.
void dropZeroValues(json::value& v, std::string_view field) {
    static constexpr std::string_view stringMaps[] = {"labels", "annotations", "nodeSelector", "matchLabels"};
    if (std::find(std::begin(stringMaps), std::end(stringMaps), field) != std::end(stringMaps)) return;
    if (v.is_array()) {
        for (auto& e : v.get_array()) dropZeroValues(e, field == "replicatedJobs" ? "replicatedJob" : "");
        return;
    }
    if (!v.is_object()) return;
    auto& o = v.get_object();
    for (auto it = o.begin(); it != o.end();) {
        auto& m = it->value();
        dropZeroValues(m, it->key());
        bool zero = m.is_null() || (m.is_string() && m.get_string().empty()) || (m.is_array() && m.get_array().empty()) ||
                    (field == "replicatedJob" && it->key() == "replicas" && integer(m) == 0);
        it = zero ? o.stable_erase(it) : it + 1;
    }
}

// ---- resources ----

// requests of a `resources` object, invalid quantities reported at `p` and skipped.
json::object resourceList(Reporter& rep, const json::object* resources, std::string_view key, const LazyFieldPath& p) {
    json::object out;
    auto* list = rep.member(resources, key, json::kind::object, p);
    if (!list) return out;
    for (auto const& kv : list->get_object()) {
        auto q = sdk::Quantity::fromJson(kv.value());
        if (q) out[kv.key()] = q->toString();
        else rep.error(p.str() + "[" + std::string(kv.key()) + "]", std::string(kQuantityMessage));
    }
    return out;
}

// Type errors of the container lists and `resources` are the PodSet projection's to report;
// here only the quantities are checked.
json::object containerRequests(Reporter& rep, const json::value& c, const LazyFieldPath& p) {
    if (!c.is_object()) return {};
    return resourceList(rep, obj(&c.get_object(), "resources"), "requests", p / ".resources.requests");
}

const json::array* list(const json::object& o, std::string_view key) {
    auto* v = o.if_contains(key);
    return (v && v->is_array()) ? &v->get_array() : nullptr;
}

// sdk::addResourceLists and sdk::maxResourceLists of lists already checked, whose values are all
// canonical (Quantity::toString, which reparses to itself): with one side empty the answer is
// the other side as it is (a single container's requests, the common case), with no pass over it.
json::object added(const json::object& a, const json::object& b) {
    if (a.empty()) return b;
    return b.empty() ? a : *sdk::addResourceLists(a, b);
}
json::object maxed(const json::object& a, const json::object& b) {
    if (a.empty()) return b;
    return b.empty() ? a : *sdk::maxResourceLists(a, b);
}

json::object podRequestsImpl(Reporter& rep, const json::object& podSpec, const LazyFieldPath& p) {
    json::object reqs;
    if (auto* cs = list(podSpec, "containers")) {
        auto const& a = *cs;
        const LazyFieldPath at = p / ".containers";
        for (size_t i = 0; i < a.size(); ++i) reqs = added(reqs, containerRequests(rep, a[i], at[i]));
    }
    json::object restartable, initMax;
    if (auto* ics = list(podSpec, "initContainers")) {
        auto const& a = *ics;
        const LazyFieldPath at = p / ".initContainers";
        for (size_t i = 0; i < a.size(); ++i) {
            json::object r = containerRequests(rep, a[i], at[i]);
            bool sidecar = a[i].is_object() && str(&a[i].get_object(), "restartPolicy") == "Always";
            if (sidecar) {
                reqs = added(reqs, r);
                restartable = added(restartable, r);
                r = restartable;
            } else {
                r = added(r, restartable);
            }
            initMax = maxed(initMax, r);
        }
    }
    reqs = maxed(reqs, initMax);
    auto* podRes = rep.member(&podSpec, "resources", json::kind::object, p / ".resources");
    json::object podLevel = resourceList(rep, podRes ? &podRes->get_object() : nullptr, "requests", p / ".resources.requests");
    for (auto const& kv : podLevel)
        if (podLevelResource(kv.key())) reqs[kv.key()] = kv.value();
    json::object overhead = resourceList(rep, &podSpec, "overhead", p / ".overhead");
    return added(reqs, overhead);
}

// The PodSet view of a container: {name, image?, command?, args?, env, ports, volumeMounts, resources?}.
json::object podSetContainer(Reporter& rep, const json::value& c, const LazyFieldPath& p) {
    json::object out;
    if (!c.is_object()) {
        rep.error(p.str(), "must be an object", ErrorType::TypeInvalid);
        return out;
    }
    auto const& co = c.get_object();
    out["name"] = str(&co, "name");
    if (auto* v = rep.member(&co, "image", json::kind::string, p / ".image")) out["image"] = *v;
    if (auto* v = rep.member(&co, "command", json::kind::array, p / ".command")) out["command"] = *v;
    if (auto* v = rep.member(&co, "args", json::kind::array, p / ".args")) out["args"] = *v;
    for (std::string_view list : {".env", ".ports", ".volumeMounts"}) {
        auto* v = rep.member(&co, list.substr(1), json::kind::array, p / list);
        out[list.substr(1)] = v ? *v : json::array();
    }
    if (auto* v = rep.member(&co, "resources", json::kind::object, p / ".resources")) out["resources"] = *v;
    return out;
}

json::object ownerReference(const json::object& trainJob) {
    auto* md = obj(&trainJob, "metadata");
    return json::object{{"apiVersion", std::string(kGroup) + "/" + std::string(kVersion)},
                        {"kind", "TrainJob"},
                        {"name", str(md, "name")},
                        {"uid", str(md, "uid")},
                        {"controller", true},
                        {"blockOwnerDeletion", true}};
}

struct RuntimeRef {
    std::string name, kind, group;
};
RuntimeRef runtimeRefOf(const json::object& trainJob) {
    auto* ref = path(&trainJob, {"spec", "runtimeRef"});
    RuntimeRef r{str(ref, "name"), str(ref, "kind"), str(ref, "apiGroup")};
    if (r.kind.empty()) r.kind = kDefaultKind;
    if (auto* g = ref ? ref->if_contains("apiGroup") : nullptr; !g || !g->is_string()) r.group = kGroup;  // unset: CRD default
    return r;
}

std::optional<json::object> readSnapshot(const json::object& trainJob, const json::object& cm, const RuntimeRef& ref,
                                         Reporter& rep) {
    const std::string p = "spec.runtimeRef";
    const std::string uid = str(obj(&trainJob, "metadata"), "uid");
    const json::object* controller = nullptr;
    if (auto* refs = path(&cm, {"metadata"}) ? path(&cm, {"metadata"})->if_contains("ownerReferences") : nullptr;
        refs && refs->is_array())
        for (auto const& r : refs->get_array())
            if (r.is_object() && r.get_object().if_contains("controller") && r.get_object().at("controller") == true)
                controller = &r.get_object();
    if (!controller || str(controller, "uid") != uid) {
        rep.error(p, "invalid runtime snapshot: a snapshot configmap exists but is owned by another object");
        return std::nullopt;
    }
    auto* data = obj(&cm, "data");
    auto* text = data ? data->if_contains(kSnapshotKey) : nullptr;
    if (!text || !text->is_string()) {
        rep.error(p, "invalid runtime snapshot: snapshot ConfigMap missing \"runtime\" data key");
        return std::nullopt;
    }
    std::string err;
    auto doc = parseYamlDocument(std::string(text->get_string()), err);
    if (doc && !doc->is_object()) err = "the snapshot is not a YAML mapping";
    if (!doc || !doc->is_object()) {
        rep.error(p, "invalid runtime snapshot: unable to unmarshal the snapshot: " + err);
        return std::nullopt;
    }
    auto& runtime = doc->get_object();
    std::string apiVersion = str(&runtime, "apiVersion");
    auto slash = apiVersion.find('/');
    std::string group = slash == std::string::npos ? std::string() : apiVersion.substr(0, slash);
    std::string kind = str(&runtime, "kind");
    std::string name = str(obj(&runtime, "metadata"), "name");
    if (kind != ref.kind || group != ref.group || name != ref.name) {
        auto q = [](const std::string& s) { return "\"" + s + "\""; };
        rep.error(p, "invalid runtime snapshot: the snapshot refers to the wrong runtime: expecting a runtime with name, "
                     "api group and kind of " + q(ref.name) + ", " + q(ref.group) + ", " + q(ref.kind) +
                         " but found runtime with name, api group and kind of " + q(name) + ", " + q(group) + ", " + q(kind));
        return std::nullopt;
    }
    return std::move(runtime);
}

}  // namespace

std::string runtimeRegistryKey(const json::object& trainJob) {
    auto r = runtimeRefOf(trainJob);
    return r.group.empty() ? r.kind : r.kind + "." + r.group;
}

std::string runtimeSnapshotName(const json::object& trainJob) {
    return str(obj(&trainJob, "metadata"), "name") + std::string(kSnapshotSuffix);
}

std::shared_ptr<const json::object> resolveRuntime(const json::object& trainJob, const ClusterReader& cluster,
                                                   Diagnostics& diag, bool useSnapshot, bool* snapshotFound) {
    Reporter rep(diag, nullptr);
    auto ref = runtimeRefOf(trainJob);
    const std::string ns = str(obj(&trainJob, "metadata"), "namespace");
    if (ref.name.empty()) {
        rep.error("spec.runtimeRef.name", "Required value", ErrorType::Required);
        return nullptr;
    }
    auto kind = std::find_if(std::begin(kRuntimeKinds), std::end(kRuntimeKinds),
                             [&](const RuntimeKind& k) { return k.kind == ref.kind; });
    if (kind == std::end(kRuntimeKinds) || ref.group != kGroup) {
        rep.error("spec.runtimeRef", "unsupported runtime: " + runtimeRegistryKey(trainJob), ErrorType::NotSupported);
        return nullptr;
    }
    if (useSnapshot) {
        // A snapshot that could not be read is not "no snapshot": the live runtime may have changed.
        ObjectKey snapshotKey{"v1", "ConfigMap", ns, runtimeSnapshotName(trainJob)};
        auto cm = cluster.get(snapshotKey);
        if (cm.failed()) {
            rep.error("spec.runtimeRef", readFailureMessage(snapshotKey, cm.message), ErrorType::Internal);
            return nullptr;
        }
        if (snapshotFound) *snapshotFound = cm.found();
        if (cm.found()) {
            auto snapshot = readSnapshot(trainJob, cm.object, ref, rep);
            return snapshot ? std::make_shared<const json::object>(std::move(*snapshot)) : nullptr;
        }
    }
    ObjectKey liveKey{std::string(kGroup) + "/" + std::string(kVersion), std::string(kind->kind),
                      kind->namespaced ? ns : std::string(), ref.name};
    auto live = cluster.share(liveKey);
    if (live->failed()) {
        rep.error("spec.runtimeRef", readFailureMessage(liveKey, live->message), ErrorType::Internal);
        return nullptr;
    }
    if (live->notFound()) {
        rep.error("spec.runtimeRef", std::string(kind->notFoundPrefix) + std::string(kind->resource) + "." +
                                         std::string(kGroup) + " \"" + ref.name + "\" not found");
        return nullptr;
    }
    return std::shared_ptr<const json::object>(live, &live->object);  // kept alive with its read
}

namespace {

// toYaml of a runtime, remembered per thread for the last few runtimes: every TrainJob of a
// runtime snapshots the same object, and emitting its YAML was ~6 % of `render` (issue 14 P1).
// A hit needs the same members in the same order (sameInOrder), so the text is exactly toYaml's.
const std::string& runtimeYaml(const json::object& runtime) {
    struct Entry {
        json::object runtime;
        std::string yaml;
    };
    constexpr std::size_t kEntries = 4;
    thread_local std::vector<Entry> entries;
    thread_local std::size_t next = 0;  // the entry replaced on a miss once all are used
    for (auto const& e : entries)
        if (sameInOrder(e.runtime, runtime)) return e.yaml;
    Entry fresh{runtime, toYaml(runtime)};
    if (entries.size() < kEntries) return entries.emplace_back(std::move(fresh)).yaml;
    Entry& slot = entries[next++ % kEntries];
    slot = std::move(fresh);
    return slot.yaml;
}

}  // namespace

json::object runtimeSnapshot(const json::object& trainJob, const json::object& runtime) {
    auto* md = obj(&trainJob, "metadata");
    return json::object{
        {"apiVersion", "v1"},
        {"kind", "ConfigMap"},
        {"metadata", json::object{{"name", runtimeSnapshotName(trainJob)},
                                  {"namespace", str(md, "namespace")},
                                  {"ownerReferences", json::array{ownerReference(trainJob)}}}},
        {"data", json::object{{kSnapshotKey, runtimeYaml(runtime)}}},
    };
}

json::object podRequests(const json::object& podSpec, Diagnostics& diag, const std::string& p) {
    Reporter rep(diag, nullptr);
    return podRequestsImpl(rep, podSpec, LazyFieldPath(p));
}

namespace {

using PatchTemplates = std::vector<std::pair<std::string, const json::object*>>;  // (path, trainingRuntimeSpec.template)

// Step 1: the runtime template's labels and annotations, then every runtime patch's in order;
// the patches' templates are step 2's, the TrainJob's spec step 4's.
struct PatchedMetadata {
    json::object labels;
    json::object annotations;
    PatchTemplates templates;
    const json::object* tjSpec = nullptr;  // never null: an empty object when the TrainJob has no spec
};

PatchedMetadata patchedMetadata(Reporter& rt, Reporter& tj, const json::object* templObj, const json::object& trainJob) {
    static const json::object empty;
    PatchedMetadata out;
    auto* tmd = templObj ? rt.member(templObj, "metadata", json::kind::object, "spec.template.metadata") : nullptr;
    out.labels = rt.stringMap(tmd ? &tmd->get_object() : nullptr, "labels", "spec.template.metadata.labels");
    out.annotations = rt.stringMap(tmd ? &tmd->get_object() : nullptr, "annotations", "spec.template.metadata.annotations");
    auto* tjSpecV = tj.member(&trainJob, "spec", json::kind::object, "spec");
    out.tjSpec = tjSpecV ? &tjSpecV->get_object() : &empty;
    auto* patches = tj.member(out.tjSpec, "runtimePatches", json::kind::array, "spec.runtimePatches");
    if (!patches) return out;
    auto const& a = patches->get_array();
    for (size_t i = 0; i < a.size(); ++i) {
        std::string pp = idx("spec.runtimePatches", i);
        if (!a[i].is_object()) {
            tj.error(pp, "must be an object", ErrorType::TypeInvalid);
            continue;
        }
        auto* trs = tj.member(&a[i].get_object(), "trainingRuntimeSpec", json::kind::object, LazyFieldPath(pp) / ".trainingRuntimeSpec");
        pp += ".trainingRuntimeSpec.template";
        auto* t = trs ? tj.member(&trs->get_object(), "template", json::kind::object, pp) : nullptr;
        if (!t) continue;
        out.templates.emplace_back(pp, &t->get_object());
        const LazyFieldPath at(pp);
        auto* md = tj.member(&t->get_object(), "metadata", json::kind::object, at / ".metadata");
        for (auto const& kv : tj.stringMap(md ? &md->get_object() : nullptr, "labels", at / ".metadata.labels"))
            out.labels[kv.key()] = kv.value();
        for (auto const& kv : tj.stringMap(md ? &md->get_object() : nullptr, "annotations", at / ".metadata.annotations"))
            out.annotations[kv.key()] = kv.value();
    }
    return out;
}

// Step 2: the template's JobSet spec with each patch's spec strategically merged, its replicated
// jobs back in template order; step 3: apply-configuration semantics (zero values dropped).
json::value mergedJobSetSpec(Reporter& rt, Reporter& tj, const json::object* templObj, const PatchTemplates& patches,
                             Diagnostics& diag) {
    auto* jsV = templObj ? rt.member(templObj, "spec", json::kind::object, "spec.template.spec") : nullptr;
    json::value jobSet = jsV ? *jsV : json::value(json::object());
    std::vector<std::string> templateOrder;
    if (auto* rjs = rt.member(&jobSet.get_object(), "replicatedJobs", json::kind::array, "spec.template.spec.replicatedJobs"))
        for (auto const& rj : rjs->get_array()) templateOrder.push_back(rj.is_object() ? str(&rj.get_object(), "name") : "");
    for (auto const& [pp, t] : patches)
        if (auto* ps = tj.member(t, "spec", json::kind::object, LazyFieldPath(pp) / ".spec")) {
            json::value merged = strategicMerge(jobSet, *ps, diag, pp + ".spec");
            if (merged.is_object()) jobSet = std::move(merged);
        }
    if (auto* rjs = jobSet.get_object().if_contains("replicatedJobs"); rjs && rjs->is_array()) {
        // As upstream's sort.SliceStable over order[name]: a job the template lacks ranks 0 (Go's
        // zero value for a missing map key), so it keeps its place among the rank-0 jobs of
        // the merge's output.
        auto rank = [&](const json::value& rj) {
            std::string n = rj.is_object() ? str(&rj.get_object(), "name") : "";
            auto it = std::find(templateOrder.begin(), templateOrder.end(), n);
            return it == templateOrder.end() ? 0 : it - templateOrder.begin();
        };
        auto& a = rjs->get_array();
        std::vector<json::value> sorted(std::make_move_iterator(a.begin()), std::make_move_iterator(a.end()));
        std::stable_sort(sorted.begin(), sorted.end(), [&](auto const& x, auto const& y) { return rank(x) < rank(y); });
        for (size_t i = 0; i < sorted.size(); ++i) a[i] = std::move(sorted[i]);
    }
    dropZeroValues(jobSet, "");
    return jobSet;
}

// What step 4 takes from the TrainJob and the ML policy for every replicated job.
struct NodeResources {
    const json::value* resourcesPerNode = nullptr;  // spec.trainer.resourcesPerNode
    const json::object* mlPolicy = nullptr;
    // Step 4 (b) of buildInfo (info_builder.hpp; upstream newRuntimeInfo, trainingruntime.go beside
    // registry.go): an ML policy that runs its launcher as a node (`runLauncherAsNode: true` in the
    // policy's configuration) also gets the trainer resources on its `node` job.
    bool launcherAsNode = false;
};

NodeResources nodeResources(Reporter& tj, const json::object& tjSpec, const json::object* mlPolicy) {
    NodeResources out{nullptr, mlPolicy, false};
    if (auto* t = tj.member(&tjSpec, "trainer", json::kind::object, "spec.trainer"))
        out.resourcesPerNode = tj.member(&t->get_object(), "resourcesPerNode", json::kind::object, "spec.trainer.resourcesPerNode");
    if (out.resourcesPerNode)
        for (std::string_view k : {"limits", "requests"})
            resourceList(tj, &out.resourcesPerNode->get_object(), k, LazyFieldPath("spec.trainer.resourcesPerNode.") / k);
    if (mlPolicy)
        for (auto const& kv : *mlPolicy)
            if (kv.value().is_object())
                if (auto* v = kv.value().get_object().if_contains("runLauncherAsNode"); v && v->is_bool() && v->get_bool())
                    out.launcherAsNode = true;
    return out;
}

// Step 4 (a)/(b): the trainer's resources merged into the first container named "node".
void mergeNodeResources(json::object& podSpec, const json::value& resourcesPerNode, Diagnostics& diag) {
    auto* cs = podSpec.if_contains("containers");
    if (!cs || !cs->is_array()) return;
    for (auto& c : cs->get_array())
        if (c.is_object() && str(&c.get_object(), "name") == "node") {
            auto& co = c.get_object();
            json::value base = co.contains("resources") ? co.at("resources") : json::value(json::object());
            co["resources"] = strategicMerge(base, resourcesPerNode, diag, "spec.trainer.resourcesPerNode",
                                             resourceRequirementsPatchSchema());
            return;
        }
}

// Step 4: the PodSet of replicated job `rj` (at `rp`): its count, containers, volumes and requests.
json::object podSetOf(Reporter& rt, json::object& rj, const LazyFieldPath& rp, const NodeResources& node, Diagnostics& diag) {
    std::string name = str(&rj, "name");
    if (name.empty()) rt.error((rp / ".name").str(), "Required value", ErrorType::Required);
    auto* jobTemplate = obj(&rj, "template");
    auto* jobSpec = obj(jobTemplate, "spec");
    json::object* podSpec = obj(obj(jobSpec, "template"), "spec");
    const LazyFieldPath pp = rp / ".template.spec.template.spec";
    if (!podSpec) rt.error(pp.str(), "Required value", ErrorType::Required);

    int64_t count = 1;
    if (auto* par = rt.member(jobSpec, "parallelism", json::kind::int64, rp / ".template.spec.parallelism")) count = *integer(*par);
    json::value ancestor = nullptr;
    if (auto* l = path(jobTemplate, {"metadata", "labels"}))
        if (auto* v = l->if_contains(kAncestorLabel); v && v->is_string()) ancestor = *v;
    const bool trainerJob = ancestor.is_string() && ancestor.get_string() == kTrainerAncestor;
    if (trainerJob && node.mlPolicy) {
        count = 1;
        if (auto* n = rt.member(node.mlPolicy, "numNodes", json::kind::int64, "spec.mlPolicy.numNodes")) count = *integer(*n);
    }
    if (node.resourcesPerNode && podSpec && ((trainerJob && node.mlPolicy) || (node.launcherAsNode && name == "node")))
        mergeNodeResources(*podSpec, *node.resourcesPerNode, diag);

    json::object ps{{"name", name}, {"ancestor", ancestor}, {"count", std::max<int64_t>(count, 1)}};
    for (std::string_view list : {".initContainers", ".containers"}) {
        json::array out;
        const LazyFieldPath at = pp / list;
        if (auto* cs = rt.member(podSpec, list.substr(1), json::kind::array, at)) {
            auto const& ca = cs->get_array();
            for (size_t c = 0; c < ca.size(); ++c) out.push_back(podSetContainer(rt, ca[c], at[c]));
        }
        ps[list.substr(1)] = std::move(out);
    }
    auto* vols = rt.member(podSpec, "volumes", json::kind::array, pp / ".volumes");
    ps["volumes"] = vols ? *vols : json::array();
    ps["endpoints"] = json::array();
    ps["singlePodRequests"] = podSpec ? podRequestsImpl(rt, *podSpec, pp) : json::object();
    return ps;
}

json::array podSetsOf(Reporter& rt, json::object& jobSetSpec, const NodeResources& node, Diagnostics& diag) {
    json::array podSets;
    if (!rt.member(&jobSetSpec, "replicatedJobs", json::kind::array, "spec.template.spec.replicatedJobs")) return podSets;
    auto& a = jobSetSpec["replicatedJobs"].get_array();
    const LazyFieldPath jobs("spec.template.spec.replicatedJobs");
    for (size_t i = 0; i < a.size(); ++i) {
        const LazyFieldPath rp = jobs[i];
        if (!a[i].is_object()) {
            rt.error(rp.str(), "must be an object", ErrorType::TypeInvalid);
            continue;
        }
        podSets.push_back(podSetOf(rt, a[i].get_object(), rp, node, diag));
    }
    return podSets;
}

// Step 5: the runtime as Info names it (sdk/docs/info.md).
json::object runtimeIdentity(const json::object& runtime) {
    auto* rmd = obj(&runtime, "metadata");
    json::object meta{{"name", str(rmd, "name")}};
    if (auto ns = str(rmd, "namespace"); !ns.empty()) meta["namespace"] = ns;
    for (std::string_view k : {"labels", "annotations"})
        if (auto* m = obj(rmd, k)) meta[k] = *m;
    return json::object{{"apiVersion", str(&runtime, "apiVersion")}, {"kind", str(&runtime, "kind")}, {"metadata", std::move(meta)}};
}

}  // namespace

// Errors are reported in the order of the steps (and so appear in that order).
json::object buildInfo(const json::object& trainJob, const json::object& runtime, Diagnostics& diag) {
    Reporter rt(diag, &runtime);  // errors in the runtime
    Reporter tj(diag, nullptr);   // errors in the TrainJob
    static const json::object empty;

    auto* specV = rt.member(&runtime, "spec", json::kind::object, "spec");
    const json::object& spec = specV ? specV->get_object() : empty;
    auto* mlV = rt.member(&spec, "mlPolicy", json::kind::object, "spec.mlPolicy");
    const json::object* mlPolicy = mlV ? &mlV->get_object() : nullptr;
    auto* pgV = rt.member(&spec, "podGroupPolicy", json::kind::object, "spec.podGroupPolicy");
    auto* templ = rt.member(&spec, "template", json::kind::object, "spec.template");
    const json::object* templObj = templ ? &templ->get_object() : nullptr;
    if (!templ) rt.error("spec.template", "Required value", ErrorType::Required);

    PatchedMetadata metadata = patchedMetadata(rt, tj, templObj, trainJob);
    json::value jobSet = mergedJobSetSpec(rt, tj, templObj, metadata.templates, diag);
    json::array podSets = podSetsOf(rt, jobSet.get_object(), nodeResources(tj, *metadata.tjSpec, mlPolicy), diag);
    json::object policy;
    if (mlPolicy) policy["mlPolicy"] = *mlPolicy;
    if (pgV) policy["podGroupPolicy"] = *pgV;

    return json::object{
        {"infoVersion", 1},
        {"trainJob", trainJob},
        {"runtime", runtimeIdentity(runtime)},
        {"labels", std::move(metadata.labels)},
        {"annotations", std::move(metadata.annotations)},
        {"runtimePolicy", std::move(policy)},
        {"scheduler", json::object{{"podLabels", json::object()}, {"podAnnotations", json::object()}}},
        {"jobSetSpec", std::move(jobSet)},
        {"podSets", std::move(podSets)},
    };
}

}  // namespace trainer::core
