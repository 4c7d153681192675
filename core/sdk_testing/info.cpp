// buildInfo of the SDK's testing library: the operator's Info builder on defaulted objects.
#include "core/api/schema.hpp"
#include "core/runtime/info_builder.hpp"
#include "core/sdk_testing/outcome.hpp"

namespace trainer::sdk::testing {

Outcome buildInfo(const json::object& trainJob, const json::object& runtime) {
    json::object tj = trainJob;
    json::object rt = runtime;
    core::applyDefaults(tj);  // as the API server stores them
    core::applyDefaults(rt);
    core::Diagnostics diag;
    Outcome out;
    out.info = core::buildInfo(tj, rt, diag);
    core::sdk_testing::addDiagnostics(out, diag);
    return out;
}

}  // namespace trainer::sdk::testing
