#define BOOST_TEST_MODULE core_server_test
#include <boost/test/unit_test.hpp>

#include "test_util.hpp"
#include "../../support/tools.hpp"

#include <arpa/inet.h>
#include <poll.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <vector>

namespace trainer::test {

IoRunner::IoRunner(int n) : guard_(io.get_executor()) {
    for (int i = 0; i < n; ++i) threads_.emplace_back([this] { io.run(); });
}

IoRunner::~IoRunner() {
    guard_.reset();
    io.stop();
    for (auto& t : threads_) t.join();
}

CommandResult run(const std::string& command) {
    requireToolOf(command);
    CommandResult r;
    FILE* p = ::popen(command.c_str(), "r");
    if (!p) return r;
    std::array<char, 4096> buf{};
    for (std::size_t n; (n = std::fread(buf.data(), 1, buf.size(), p)) > 0;) r.output.append(buf.data(), n);
    int status = ::pclose(p);
    r.exitCode = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    return r;
}

HttpResult curl(const std::string& args) {
    // The last line carries the status and content type curl saw.
    auto r = run("curl -sS --max-time 60 -o - -w '\\n%{http_code} %{content_type}' " + args + " 2>/dev/null");
    HttpResult out;
    out.curlExit = r.exitCode;
    auto nl = r.output.rfind('\n');
    if (nl == std::string::npos) return out;
    out.body = r.output.substr(0, nl);
    std::string tail = r.output.substr(nl + 1);
    auto sp = tail.find(' ');
    out.status = std::atoi(tail.substr(0, sp).c_str());
    if (sp != std::string::npos) out.contentType = tail.substr(sp + 1);
    return out;
}

namespace {

// The directories tempDir made, removed when the test program exits; only by the process that
// made them (a forked child that exits must not take its parent's files).
struct MadeDirs {
    const pid_t owner = ::getpid();
    std::vector<std::filesystem::path> dirs;
    ~MadeDirs() {
        if (::getpid() != owner) return;
        std::error_code ec;
        for (auto const& d : dirs) std::filesystem::remove_all(d, ec);
    }
};

}  // namespace

std::filesystem::path tempDir(const std::string& name) {
    static MadeDirs made;
    auto dir = std::filesystem::temp_directory_path() /
               ("trainer-server-test-" + std::to_string(::getpid()) + "-" + name);
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
    made.dirs.push_back(dir);
    return dir;
}

void writeFile(const std::filesystem::path& path, const std::string& content) {
    std::ofstream(path, std::ios::binary) << content;
}

std::string readFile(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

namespace {

// A socket connected to 127.0.0.1:port, or -1.
int connectLoopback(unsigned short port) {
    int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0) return -1;
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(port);
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
        ::close(fd);
        return -1;
    }
    return fd;
}

void sendAll(int fd, const std::string& data) {
    for (std::size_t done = 0; done < data.size();) {
        auto n = ::send(fd, data.data() + done, data.size() - done, MSG_NOSIGNAL);
        if (n <= 0) break;
        done += static_cast<std::size_t>(n);
    }
}

}  // namespace

RawConnection::RawConnection(unsigned short port) : fd_(connectLoopback(port)) {
    BOOST_REQUIRE_MESSAGE(fd_ >= 0, "cannot connect to 127.0.0.1:" << port);
}

RawConnection::~RawConnection() {
    if (fd_ >= 0) ::close(fd_);
}

void RawConnection::send(const std::string& data) { sendAll(fd_, data); }

bool RawConnection::open() {
    pollfd p{fd_, POLLIN, 0};
    if (::poll(&p, 1, 0) == 0) return true;  // nothing pending: the server holds it
    char c;
    return ::recv(fd_, &c, 1, MSG_PEEK | MSG_DONTWAIT) > 0;  // data is not a close
}

std::string rawExchange(unsigned short port, const std::string& data, int timeoutMs) {
    int fd = connectLoopback(port);
    if (fd < 0) return "connect failed";
    timeval tv{timeoutMs / 1000, (timeoutMs % 1000) * 1000};
    ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    sendAll(fd, data);
    std::string out;
    std::array<char, 4096> buf{};
    for (;;) {
        auto n = ::recv(fd, buf.data(), buf.size(), 0);
        if (n <= 0) {
            if (n < 0) out += "<timeout>";
            break;
        }
        out.append(buf.data(), static_cast<std::size_t>(n));
    }
    ::close(fd);
    return out;
}

}  // namespace trainer::test
