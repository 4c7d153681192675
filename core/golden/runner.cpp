#include "core/golden/runner.hpp"

#include "core/golden/case_file.hpp"

#include <filesystem>

namespace trainer::core::golden {

CaseResult runCaseFile(const std::string& file, CaseHost& host) {
    CaseResult r{file, std::filesystem::path(file).stem().string(), false, {}};
    GoldenCase c;
    Diagnostics d = loadCaseFile(file, c);
    if (!d.ok()) {
        r.malformed = true;
        for (auto const& e : d.errors) r.problems.push_back("error: " + (e.path.empty() ? "" : e.path + ": ") + e.message);
        return r;
    }
    r.name = c.name;
    r.problems = compareOutcome(c, host.run(c));
    return r;
}

SuiteSummary runSuite(const std::vector<std::string>& files, CaseHost& host,
                      const std::function<void(const CaseResult&)>& report) {
    SuiteSummary s;
    for (auto const& f : files) {
        CaseResult r = runCaseFile(f, host);
        ++(r.passed() ? s.passed : s.failed);
        report(r);
    }
    return s;
}

}  // namespace trainer::core::golden
