#include "core/cli/golden_host.hpp"

namespace trainer::core::cli {

golden::CaseOutcome SessionCaseHost::run(const golden::GoldenCase& c) {
    auto gates = gates_;
    for (auto const& [name, on] : c.featureGates) gates[name] = on;
    session_.setFeatureGates(std::move(gates));
    golden::CaseOutcome out;
    out.diagnostics = session_.admitDocuments(golden::inputDocuments(c), pluginDirs_);
    if (c.stage == golden::Stage::Build && out.diagnostics.ok()) {
        auto built = session_.buildTrainJobs();
        out.diagnostics.append(built.diagnostics);
        out.objects = std::move(built.objects);
    }
    return out;
}

}  // namespace trainer::core::cli
