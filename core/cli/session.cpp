#include "core/cli/session.hpp"

#include "core/cli/cli.hpp"

#include "core/api/admission.hpp"
#include "core/api/schema.hpp"
#include "core/cli/input_checks.hpp"
#include "core/json/io.hpp"
#include "core/plugin/log_sink.hpp"
#include "core/plugin/pipeline.hpp"
#include "core/server/sha256.hpp"

#include <array>

namespace trainer::core::cli {

namespace {
// Kinds without a namespace (everything else read from files is namespaced).
constexpr std::array<std::string_view, 10> kClusterScoped{
    "ClusterTrainingRuntime", "PriorityClass", "RuntimeClass", "Namespace", "Node", "ClusterRole",
    "ClusterRoleBinding", "CustomResourceDefinition", "StorageClass", "PersistentVolume"};

std::string stableUid(const std::string& seed) {
    server::Sha256Digest md = server::sha256(seed);
    md[6] = static_cast<unsigned char>((md[6] & 0x0f) | 0x50);  // version 5-style, name-based
    md[8] = static_cast<unsigned char>((md[8] & 0x3f) | 0x80);
    std::string uid;  // 8-4-4-4-12 hex digits of the first 16 bytes
    uid.reserve(36);
    for (auto [from, to] : {std::pair{0, 4}, {4, 6}, {6, 8}, {8, 10}, {10, 16}}) {
        if (from > 0) uid += '-';
        server::appendHex(uid, md.data() + from, static_cast<std::size_t>(to - from));
    }
    return uid;
}
}  // namespace

void completeMetadata(json::object& obj) {
    auto* kind = obj.if_contains("kind");
    std::string k = kind && kind->is_string() ? std::string(kind->as_string()) : "";
    auto* md = obj.if_contains("metadata");
    if (!md || !md->is_object()) return;  // schema validation reports it
    auto& m = md->as_object();
    bool clusterScoped = std::find(kClusterScoped.begin(), kClusterScoped.end(), k) != kClusterScoped.end();
    if (!clusterScoped && !m.contains("namespace")) m["namespace"] = "default";
    if (k == "TrainJob" && !m.contains("uid")) {
        auto key = keyOf(obj);
        m["uid"] = stableUid("trainjob/" + key.ns + "/" + key.name);
    }
}

Session::Session() : registry_(std::make_unique<PluginRegistry>()) {
    registry_->setLogSink(loggerSink(log::Logger("plugin")));
}

void Session::configure(PluginOptions options, OperatorSettings settings) {
    pluginOptions_ = std::move(options);
    settings_ = std::move(settings);
}

void Session::loadPlugins(const std::vector<std::string>& dirs) {
    if (framework_) return;
    registry_->loadDirectories(dirs, withShippedHashes(pluginOptions_));
    framework_ = std::make_unique<Framework>(*registry_, HookObserver{}, settings_);
}

void Session::setFeatureGates(std::map<std::string, bool> gates) {
    settings_.featureGates = std::move(gates);
    if (framework_) framework_->setOperatorSettings(settings_);
}

Diagnostics Session::admitInputs(const std::vector<std::string>& paths, const std::string& pluginDir) {
    std::vector<InputDocument> docs;
    Diagnostics diag = readInputs(paths, docs);
    if (!diag.ok()) return diag;
    return admitDocuments(std::move(docs), {pluginDir});
}

namespace {

std::string describe(const InputDocument& d) { return d.origin + ": " + keyOf(d.object).display(); }

// A runtime's policies as the policy check reads them from an Info document.
json::object policyInfo(const json::object& rt) {
    json::object policy;
    if (auto* spec = rt.if_contains("spec"); spec && spec->is_object())
        for (auto const* member : {"mlPolicy", "podGroupPolicy"})
            if (auto* v = spec->as_object().if_contains(member)) policy[member] = *v;
    return json::object{{"runtime", json::object{{"kind", rt.at("kind")}, {"metadata", rt.at("metadata")}}},
                        {"runtimePolicy", std::move(policy)}};
}

}  // namespace

Diagnostics Session::admitAndBuild(const std::vector<std::string>& paths, const std::string& pluginDir,
                                   const std::function<void(json::object&&)>& each) {
    std::vector<InputDocument> docs;
    Diagnostics diag = readInputs(paths, docs);
    if (!diag.ok()) return diag;
    Diagnostics built;
    bool allAdmitted = true;
    diag = admitDocuments(std::move(docs), {pluginDir}, [&](const AdmittedObject& tj, bool ok, json::object&& info) {
        allAdmitted = allAdmitted && ok;
        if (allAdmitted) built.append(buildOne(tj, &info, each));
    });
    if (diag.ok()) diag.append(built);
    return diag;
}

Diagnostics Session::admitDocuments(std::vector<InputDocument> docs, const std::vector<std::string>& pluginDirs) {
    return admitDocuments(std::move(docs), pluginDirs, nullptr);
}

Diagnostics Session::admitDocuments(std::vector<InputDocument> docs, const std::vector<std::string>& pluginDirs,
                                    const Admitted& admitted) {
    cluster_ = ObjectSet{};
    trainJobs_.clear();
    Diagnostics diag = checkInputSet(docs);
    if (!diag.ok()) return diag;

    // Defaults and schema first, for every trainer object; other objects are cluster state.
    // Each object is moved into the cluster (checkInputSet refused duplicates); the runtimes and
    // TrainJobs are indexes into `docs`, whose objects are read from the cluster from then on.
    std::vector<std::size_t> trainJobs, runtimes;
    std::vector<std::string> origins(docs.size());
    std::vector<const json::object*> held(docs.size());  // docs[i]'s object in the cluster
    for (std::size_t i = 0; i < docs.size(); ++i) {
        auto& d = docs[i];
        completeMetadata(d.object);
        auto kind = kindOf(d.object);
        Diagnostics od;
        if (kind == ObjectKind::TrainJob) {
            applyDefaults(d.object);
            od = validateSchemaInPlace(d.object);
            trainJobs.push_back(i);
        } else if (kind == ObjectKind::TrainingRuntime || kind == ObjectKind::ClusterTrainingRuntime) {
            applyDefaults(d.object);
            od = validateRuntime(d.object, /*isCreate=*/true, nullptr);
            runtimes.push_back(i);
        }
        origins[i] = describe(d);
        for (auto& e : od.errors) e.origin = origins[i];
        for (auto& w : od.warnings) w.origin = origins[i];
        diag.append(od);
        const ObjectKey key = keyOf(d.object);
        cluster_.put(std::move(d.object));
        held[i] = cluster_.find(key);
    }
    if (!diag.ok()) return diag;

    if (!framework_) {
        loadPlugins(pluginDirs);
        for (auto const& r : registry_->rejected()) diag.warn("", r.reason);
    }
    // A runtime whose policies no loaded plugin claims is refused (rule 12).
    for (std::size_t i : runtimes) {
        Diagnostics pd = framework_->checkPolicies(policyInfo(*held[i]));
        for (auto& e : pd.errors) e.origin = origins[i];
        diag.append(pd);
    }
    trainJobs_.reserve(trainJobs.size());
    const bool inputsPassed = diag.ok();
    for (std::size_t i : trainJobs) {
        json::object info;
        Diagnostics td = admitTrainJob(*framework_, *held[i], nullptr, cluster_, admitted ? &info : nullptr);
        for (auto& e : td.errors) e.origin = origins[i];
        for (auto& w : td.warnings) w.origin = origins[i];
        diag.append(td);
        trainJobs_.push_back(AdmittedObject{*held[i], std::move(origins[i])});
        if (admitted && inputsPassed) admitted(trainJobs_.back(), td.ok(), std::move(info));
    }
    return diag;
}

Session::Built Session::buildTrainJobs() const {
    Built out;
    out.diagnostics = buildTrainJobs([&](json::object&& o) { out.objects.push_back(std::move(o)); });
    return out;
}

Diagnostics Session::buildTrainJobs(const std::function<void(json::object&&)>& each) const {
    Diagnostics diagnostics;
    for (auto const& tj : trainJobs_) diagnostics.append(buildOne(tj, nullptr, each));
    return diagnostics;
}

Diagnostics Session::buildOne(const AdmittedObject& tj, json::object* admittedInfo,
                              const std::function<void(json::object&&)>& each) const {
    auto b = buildTrainJob(*framework_, tj.object, cluster_, admittedInfo);
    for (auto& e : b.diagnostics.errors)
        if (e.origin.empty()) e.origin = tj.origin;
    if (b.snapshot) each(std::move(*b.snapshot));
    for (auto& o : b.objects) each(std::move(o));
    return std::move(b.diagnostics);
}

}  // namespace trainer::core::cli
