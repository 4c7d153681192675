// PaddlePaddle collective training as an ML policy: `mlPolicy.paddle` in a runtime makes
// every trainer node find its peers through PADDLE_* env vars.
#pragma once

#include <trainer/plugin.hpp>
#include <trainer/pod_dns.hpp>
#include <trainer/policy.hpp>

#include <cstdint>
#include <optional>

namespace example::paddle {

using namespace trainer::sdk;

class PaddlePlugin : public Plugin, public CustomValidation, public EnforceMLPolicy {
public:
    PaddlePlugin(const json::object& config, Context& ctx);
    static PluginMeta meta();

    // Refuses a TrainJob whose runtime sets `mlPolicy.paddle.port` out of range. (The PADDLE_*
    // env names it claims are refused by the host, worded by its envRefusal: claim.)
    void validate(const Info& info, Context& ctx) override;
    void enforceMLPolicy(const Info& info, Edits& edits, Context& ctx) override;

    // The master's port: the runtime's `mlPolicy.paddle.port`, else the plugin's configured one.
    int64_t port(const Info& info) const;

private:
    int64_t port_ = 36789;  // the operator's plugin configuration: {"port": N}
};

}  // namespace example::paddle
