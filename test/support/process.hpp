// What the end-to-end tests share: temporary directories and running a command line with its
// stdout and stderr captured separately. Header-only; Boost.Test assertions on setup failures.
#pragma once

#include <boost/test/unit_test.hpp>

#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace trainer::test {

namespace fs = std::filesystem;

struct Result {
    int exit = -1;  // the exit code, or 128 + signal
    std::string out;
    std::string err;
};

// A loopback TCP port that was free a moment ago (bound and released), for a server under test.
inline unsigned short freePort() {
    int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a);
    socklen_t len = sizeof a;
    ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
    ::close(fd);
    return ntohs(a.sin_port);
}

inline std::string slurp(const fs::path& p) {
    std::ifstream in(p);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

// A fresh directory, removed with everything in it when the object goes.
struct TempDir {
    fs::path path;
    TempDir() {
        std::string t = (fs::temp_directory_path() / "trainer-test-XXXXXX").string();
        BOOST_REQUIRE(::mkdtemp(t.data()));
        path = t;
    }
    ~TempDir() {
        std::error_code ec;
        fs::remove_all(path, ec);
    }
    TempDir(const TempDir&) = delete;
    TempDir& operator=(const TempDir&) = delete;
    std::string file(const std::string& name) const { return (path / name).string(); }
    fs::path write(const std::string& name, const std::string& text) const {
        std::ofstream(path / name) << text;
        return path / name;
    }
};

// Runs a shell command line; stdout and stderr come back separately. A program the line runs
// that is not installed (the shell's 127, "not found") fails the test case, naming it: the tools
// are part of the suite's setup (scripts/setup.sh), never a reason to skip or pass.
inline Result sh(const std::string& cmd) {
    TempDir t;
    auto errFile = t.path / "stderr";
    Result r;
    FILE* p = ::popen((cmd + " 2>" + errFile.string()).c_str(), "r");
    BOOST_REQUIRE(p);
    std::array<char, 4096> buf;
    size_t n;
    while ((n = std::fread(buf.data(), 1, buf.size(), p)) > 0) r.out.append(buf.data(), n);
    int st = ::pclose(p);
    r.exit = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
    r.err = slurp(errFile);
    BOOST_TEST_REQUIRE(r.exit != 127, "a program is not installed: " << r.err << "(running: " << cmd
                                      << "); scripts/setup.sh installs every tool the tests run");
    return r;
}

}  // namespace trainer::test
