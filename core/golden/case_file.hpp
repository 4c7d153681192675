// Golden cases on disk: which files a list of CASES arguments names, and reading one file
// (YAML, comments allowed, or JSON; one case per file).
#pragma once

#include "core/api/errors.hpp"
#include "core/golden/case.hpp"

#include <string>
#include <vector>

namespace trainer::core::golden {

// A file argument is taken whatever its extension; a directory stands for its *.yaml, *.yml
// and *.json files, sorted by name, not recursive (a directory of cases is a suite). A path
// that does not exist, or a directory without case files, is an error naming it.
Diagnostics collectCaseFiles(const std::vector<std::string>& args, std::vector<std::string>& files);

// Reads and parses one case file (*.json as JSON, anything else as YAML). Errors carry the
// file as their origin and the member's path in the case ("expectedErrors[0].field").
Diagnostics loadCaseFile(const std::string& file, GoldenCase& out);

}  // namespace trainer::core::golden
