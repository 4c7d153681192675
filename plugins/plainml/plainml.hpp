// The default ML policy (upstream
// https://github.com/kubeflow/trainer/blob/8c0f5059bd51ec3ba6d6a6a7b2e1471de7bc13b3/pkg/runtime/framework/plugins/plainml/plainml.go):
// trainer node count and env.
#pragma once

#include <trainer/plugin.hpp>

namespace trainer::plugins::plainml {

namespace json = boost::json;

// Runs for runtimes without an ML framework policy: numNodes → trainer PodSet count,
// trainer.env → the trainer PodSet's container `node`. No ports, no objects.
class PlainML : public sdk::Plugin, public sdk::EnforceMLPolicy {
public:
    PlainML(const json::object& config, sdk::Context& ctx);
    static sdk::PluginMeta meta();

    void enforceMLPolicy(const sdk::Info& info, sdk::Edits& edits, sdk::Context& ctx) override;
};

}  // namespace trainer::plugins::plainml
