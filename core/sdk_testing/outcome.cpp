#include "core/sdk_testing/outcome.hpp"

namespace trainer::core::sdk_testing {

void addDiagnostics(testing::Outcome& out, const Diagnostics& d) {
    for (auto const& w : d.warnings) out.diagnostics.push_back({TRN_SEVERITY_WARNING, w.path, w.message, w.origin});
    for (auto const& e : d.errors) out.diagnostics.push_back({TRN_SEVERITY_ERROR, e.path, e.message, e.origin});
}

}  // namespace trainer::core::sdk_testing
