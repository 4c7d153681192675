// What a CLI command works with: the loaded plugins, the framework over them, and the
// inputs (read from -f paths, or given as documents) as cluster state (defaulted, admitted).
// One session can admit and build several input sets in turn (test-plugins: one per golden
// case) over plugins loaded once.
#pragma once

#include "core/api/errors.hpp"
#include "core/api/object_set.hpp"
#include "core/json/io.hpp"
#include "core/plugin/framework.hpp"
#include "core/plugin/operator_settings.hpp"
#include "core/plugin/registry.hpp"

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace trainer::core::cli {

// A TrainJob as admitted: the session's cluster() copy (inputs hold no duplicates, and admission
// does not change a TrainJob), so 10,000 TrainJobs are held once, not twice (issue 14 P1).
struct AdmittedObject {
    const json::object& object;  // lives in Session::cluster()
    std::string origin;          // "file.yaml: TrainJob default/x"
};

class Session {
public:
    Session();
    // What loading and the framework use (a Configuration's plugins section and operator data);
    // call before loadPlugins / admitInputs.
    void configure(PluginOptions options, OperatorSettings settings);
    // Loads plugins from each directory in turn, once per session (later calls do nothing):
    // a file of a later directory whose plugin name or claim is already taken is rejected, so
    // the first directory's plugins win. Rejections are in registry().rejected().
    void loadPlugins(const std::vector<std::string>& dirs);
    void loadPlugins(const std::string& dir) { loadPlugins(std::vector<std::string>{dir}); }
    // Reads, defaults and admits every input; fills cluster() and trainJobs().
    Diagnostics admitInputs(const std::vector<std::string>& paths, const std::string& pluginDir);
    // The same for documents already read; replaces the cluster and TrainJobs of an earlier
    // call. Plugins are loaded from `pluginDirs` when the inputs pass the schema and none are
    // loaded yet (their rejections then become warnings).
    Diagnostics admitDocuments(std::vector<InputDocument> docs, const std::vector<std::string>& pluginDirs);
    // admitInputs then buildTrainJobs(each) in one pass: each TrainJob is built right after its
    // admission, from the Info admission built (render: one Info per TrainJob, not two). The
    // diagnostics are the same as the two calls': admission's, then, when every input was
    // admitted, the builds'. Objects handed to `each` before an admission failed are not to be
    // used (the result is not ok).
    Diagnostics admitAndBuild(const std::vector<std::string>& paths, const std::string& pluginDir,
                              const std::function<void(json::object&&)>& each);
    // One reconcile's build of every admitted TrainJob: each one's runtime snapshot (when new)
    // and objects, errors carrying the TrainJob's origin.
    struct Built {
        std::vector<json::object> objects;
        Diagnostics diagnostics;
    };
    Built buildTrainJobs() const;
    // The same, each object handed to `each` as soon as its TrainJob is built (render writes
    // objects as text instead of holding them); returns the diagnostics.
    Diagnostics buildTrainJobs(const std::function<void(json::object&&)>& each) const;
    // The feature gates (effective values) every hook sees from now on.
    void setFeatureGates(std::map<std::string, bool> gates);
    const OperatorSettings& settings() const { return settings_; }

    const PluginRegistry& registry() const { return *registry_; }
    const Framework& framework() const { return *framework_; }
    const ObjectSet& cluster() const { return cluster_; }
    const std::vector<AdmittedObject>& trainJobs() const { return trainJobs_; }

private:
    // Called after each TrainJob's admission (when the inputs before it passed) with whether it
    // was admitted and the Info admission built.
    using Admitted = std::function<void(const AdmittedObject&, bool ok, json::object&& info)>;
    Diagnostics admitDocuments(std::vector<InputDocument> docs, const std::vector<std::string>& pluginDirs,
                               const Admitted& admitted);
    Diagnostics buildOne(const AdmittedObject& tj, json::object* admittedInfo,
                         const std::function<void(json::object&&)>& each) const;

    std::unique_ptr<PluginRegistry> registry_;
    std::unique_ptr<Framework> framework_;
    PluginOptions pluginOptions_;
    OperatorSettings settings_;
    ObjectSet cluster_;
    std::vector<AdmittedObject> trainJobs_;
};

// Namespace "default" for namespaced objects without one; a stable uid for TrainJobs without
// one (render output needs owner references; an API server would assign a random one).
void completeMetadata(json::object& obj);

}  // namespace trainer::core::cli
