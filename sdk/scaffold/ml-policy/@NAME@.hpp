// @NAME@: an ML policy. A runtime with `mlPolicy.@NAME@` makes every trainer node find the
// first one through @ENV_PREFIX@_* env vars:
//
//   @ENV_PREFIX@_NUM_NODES    the number of trainer nodes (the TrainJob's numNodes)
//   @ENV_PREFIX@_NODE_RANK    this node's rank (its Job completion index)
//   @ENV_PREFIX@_MASTER_ADDR  the DNS name of rank 0
//   @ENV_PREFIX@_MASTER_PORT  `mlPolicy.@NAME@.port` of the runtime, else the configured port
#pragma once

#include <trainer/plugin.hpp>
#include <trainer/pod_dns.hpp>
#include <trainer/policy.hpp>

#include <cstdint>

namespace @IDENT@_plugin {

using namespace trainer::sdk;

inline constexpr int64_t kDefaultPort = 29500;

class @CLASS@Plugin : public Plugin, public CustomValidation, public EnforceMLPolicy {
public:
    // The operator's configuration of the plugin: {"port": N} (optional).
    @CLASS@Plugin(const json::object& config, Context& ctx);
    static PluginMeta meta();

    // Refuses a runtime whose `mlPolicy.@NAME@.port` is out of range. (A TrainJob setting an
    // @ENV_PREFIX@_* env var is refused by the host: the plugin claims them.)
    void validate(const Info& info, Context& ctx) override;
    // Applies the TrainJob's numNodes and sets the @ENV_PREFIX@_* env vars.
    void enforceMLPolicy(const Info& info, Edits& edits, Context& ctx) override;

    // The port in force: the runtime's `mlPolicy.@NAME@.port`, else the configured one.
    int64_t port(const Info& info) const;

private:
    int64_t port_ = kDefaultPort;
};

}  // namespace @IDENT@_plugin
