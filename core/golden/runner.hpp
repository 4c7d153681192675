// Running golden cases: each case file is read, handed to a host that runs admission (and
// the build) on the real pipeline, and its outcome compared with the expectations.
// The host is an interface so this library stays below the CLI: `trainer-operator
// test-plugins` implements it over the CLI's Session (core/cli/golden_host.hpp), the same
// code `validate` and `render` run.
#pragma once

#include "core/golden/case.hpp"
#include "core/golden/expectations.hpp"

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

namespace trainer::core::golden {

class CaseHost {
public:
    virtual ~CaseHost() = default;
    // Admission of the case's inputs (c.stage == Build: then one reconcile's build).
    virtual CaseOutcome run(const GoldenCase& c) = 0;
};

struct CaseResult {
    std::string file;
    std::string name;                   // the case's name (its file name when unreadable)
    bool malformed = false;             // the file is not a valid case: problems are its errors
    std::vector<std::string> problems;  // empty: passed
    bool passed() const { return problems.empty(); }
};

// Loads and runs one case file. A malformed file fails with one problem per error
// ("error: expectedErrors[0].field: must be a string") and is not run.
CaseResult runCaseFile(const std::string& file, CaseHost& host);

struct SuiteSummary {
    std::size_t passed = 0;
    std::size_t failed = 0;
};

// Runs the files in order, handing each result to `report` as it is known.
SuiteSummary runSuite(const std::vector<std::string>& files, CaseHost& host,
                      const std::function<void(const CaseResult&)>& report);

}  // namespace trainer::core::golden
