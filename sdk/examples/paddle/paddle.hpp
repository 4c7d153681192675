// PaddlePaddle collective training as an ML policy: `mlPolicy.paddle` in a runtime makes
// every trainer node find its peers through PADDLE_* env vars.
#pragma once

#include <trainer/plugin.hpp>

namespace example::paddle {

using namespace trainer::sdk;

class PaddlePlugin : public Plugin, public CustomValidation, public EnforceMLPolicy {
public:
    PaddlePlugin(const json::object& config, Context& ctx);
    static PluginMeta meta();

    void validate(const Info& info, Context& ctx) override;
    void enforceMLPolicy(const Info& info, Edits& edits, Context& ctx) override;

private:
    int64_t port_ = 36789;  // configurable: {"port": N}
};

}  // namespace example::paddle
