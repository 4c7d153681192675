#include "core/golden/report.hpp"

namespace trainer::core::golden {

void printResult(const CaseResult& r, std::ostream& os, std::size_t maxProblems) {
    if (r.passed()) {
        os << "PASS " << r.file << "\n";
        return;
    }
    os << "FAIL " << r.file << ": " << (r.malformed ? "not a valid golden case" : r.name) << "\n";
    const std::size_t shown = maxProblems == 0 ? r.problems.size() : std::min(maxProblems, r.problems.size());
    for (std::size_t i = 0; i < shown; ++i) os << "    " << r.problems[i] << "\n";
    if (shown < r.problems.size())
        os << "    ... " << r.problems.size() - shown << " more (--verbose shows all)\n";
}

std::string summaryLine(const SuiteSummary& s) {
    return std::to_string(s.passed) + " passed, " + std::to_string(s.failed) + " failed";
}

}  // namespace trainer::core::golden
