// The golden-case host of `trainer-operator test-plugins`: each case goes through the CLI's
// Session, the code `validate` (admission) and `render` (the build) run, over plugins loaded
// once for the whole suite.
#pragma once

#include "core/cli/session.hpp"
#include "core/golden/runner.hpp"

#include <map>
#include <string>
#include <vector>

namespace trainer::core::cli {

class SessionCaseHost : public golden::CaseHost {
public:
    // `gates`: the effective feature gates of the run, which a case's featureGates override.
    SessionCaseHost(Session& session, std::vector<std::string> pluginDirs, std::map<std::string, bool> gates)
        : session_(session), pluginDirs_(std::move(pluginDirs)), gates_(std::move(gates)) {}

    golden::CaseOutcome run(const golden::GoldenCase& c) override;

private:
    Session& session_;
    std::vector<std::string> pluginDirs_;
    std::map<std::string, bool> gates_;
};

}  // namespace trainer::core::cli
