#define BOOST_TEST_MODULE core_server_test
#include <boost/test/unit_test.hpp>

#include "test_util.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <fstream>
#include <sstream>

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
    auto r = run("curl -sS --max-time 20 -o - -w '\\n%{http_code} %{content_type}' " + args + " 2>/dev/null");
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

std::filesystem::path tempDir(const std::string& name) {
    auto dir = std::filesystem::temp_directory_path() /
               ("trainer-server-test-" + std::to_string(::getpid()) + "-" + name);
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
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

std::string rawExchange(unsigned short port, const std::string& data, int timeoutMs) {
    int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0) return "socket failed";
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(port);
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
        ::close(fd);
        return "connect failed";
    }
    timeval tv{timeoutMs / 1000, (timeoutMs % 1000) * 1000};
    ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    for (std::size_t done = 0; done < data.size();) {
        auto n = ::send(fd, data.data() + done, data.size() - done, MSG_NOSIGNAL);
        if (n <= 0) break;
        done += static_cast<std::size_t>(n);
    }
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
