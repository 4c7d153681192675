// What a CLI command works with: the loaded plugins, the framework over them, and the
// inputs read from -f paths as cluster state (defaulted, admitted).
#pragma once

#include "core/api/errors.hpp"
#include "core/api/object_set.hpp"
#include "core/plugin/framework.hpp"
#include "core/plugin/operator_settings.hpp"
#include "core/plugin/registry.hpp"

#include <memory>
#include <string>
#include <vector>

namespace trainer::core::cli {

struct AdmittedObject {
    json::object object;
    std::string origin;  // "file.yaml: TrainJob default/x"
};

class Session {
public:
    Session();
    // What loading and the framework use (a Configuration's plugins section and operator data);
    // call before loadPlugins / admitInputs.
    void configure(PluginOptions options, OperatorSettings settings);
    // Loads plugins from `dir`; rejections are logged as warnings on stderr by the caller.
    void loadPlugins(const std::string& dir);
    // Reads, defaults and admits every input; fills cluster() and trainJobs().
    Diagnostics admitInputs(const std::vector<std::string>& paths, const std::string& pluginDir);

    const PluginRegistry& registry() const { return *registry_; }
    const Framework& framework() const { return *framework_; }
    const ObjectSet& cluster() const { return cluster_; }
    const std::vector<AdmittedObject>& trainJobs() const { return trainJobs_; }

private:
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
