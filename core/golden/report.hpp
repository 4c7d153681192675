// How golden-case results read on a terminal or in a CI log (sdk/docs/golden-tests.md
// "Running them"): one line per passed case, a block per failure, the summary last.
#pragma once

#include "core/golden/runner.hpp"

#include <cstddef>
#include <ostream>
#include <string>

namespace trainer::core::golden {

// "PASS <file>", or "FAIL <file>: <name>" and the differences indented below, at most
// `maxProblems` of them ("  ... N more (--verbose shows all)"); 0 shows all.
void printResult(const CaseResult& r, std::ostream& os, std::size_t maxProblems);

// "N passed, M failed": the runner's last line.
std::string summaryLine(const SuiteSummary& s);

}  // namespace trainer::core::golden
