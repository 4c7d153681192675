// The programs the suite drives (curl, openssl, kubectl, sqlite3, python3 ...) are part of its
// setup, never optional: a test that needs a missing one fails, naming it and the setup step,
// instead of skipping or passing on a "command not found".
#pragma once

#include <boost/test/unit_test.hpp>

#include <unistd.h>

#include <cstdlib>
#include <string>
#include <string_view>

namespace trainer::test {

// The path of `tool` (a name looked up on $PATH, or a path), or "" when it is not there.
inline std::string findTool(const std::string& tool) {
    if (tool.find('/') != std::string::npos) return ::access(tool.c_str(), X_OK) == 0 ? tool : std::string();
    const char* path = std::getenv("PATH");
    std::string_view dirs = path ? path : "/usr/bin:/bin";
    while (!dirs.empty()) {
        auto colon = dirs.find(':');
        std::string dir(dirs.substr(0, colon));
        dirs = colon == std::string_view::npos ? std::string_view() : dirs.substr(colon + 1);
        std::string candidate = (dir.empty() ? "." : dir) + "/" + tool;
        if (::access(candidate.c_str(), X_OK) == 0) return candidate;
    }
    return {};
}

// Fails the running test case unless `tool` can be run.
inline void requireTool(const std::string& tool) {
    BOOST_TEST_REQUIRE(!findTool(tool).empty(),
                       tool << " is not installed (not found on PATH): the test runs it; scripts/setup.sh installs it");
}

// Fails the running test case unless the program a shell command line starts with can be run
// ("curl -sS ..." needs curl).
inline void requireToolOf(std::string_view command) {
    auto end = command.find_first_of(" \t");
    requireTool(std::string(command.substr(0, end)));
}

}  // namespace trainer::test
