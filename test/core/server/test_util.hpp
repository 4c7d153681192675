// Helpers for the server tests: an io_context on threads, shell commands (curl, openssl) and raw sockets.
#pragma once

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>

#include <chrono>
#include <condition_variable>
#include <filesystem>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace trainer::test {

// Runs an io_context on `n` threads until destroyed.
class IoRunner {
public:
    explicit IoRunner(int n = 2);
    ~IoRunner();
    boost::asio::io_context io;

private:
    boost::asio::executor_work_guard<boost::asio::io_context::executor_type> guard_;
    std::vector<std::thread> threads_;
};

struct CommandResult {
    int exitCode = -1;
    std::string output;
};
// Runs `command` with /bin/sh and captures its stdout. The program it starts with must be
// installed (test/support/tools.hpp): a missing one fails the test case.
CommandResult run(const std::string& command);

struct HttpResult {
    int status = 0;  // 0 when curl failed
    std::string body;
    std::string contentType;
    int curlExit = -1;
};
// curl -sS <args>, returning the status code, body and content type.
HttpResult curl(const std::string& args);

// A fresh empty directory under the system temp dir, removed when the test program exits.
std::filesystem::path tempDir(const std::string& name);
void writeFile(const std::filesystem::path& path, const std::string& content);
std::string readFile(const std::filesystem::path& path);

// Sends `data` on a new TCP connection to 127.0.0.1:port and returns what the server answers
// until it closes; "<timeout>" is appended when `timeoutMs` passes first (a hang guard).
std::string rawExchange(unsigned short port, const std::string& data, int timeoutMs = 60000);

// A TCP connection to 127.0.0.1:port the test keeps open, to see whether the server has closed it.
class RawConnection {
public:
    explicit RawConnection(unsigned short port);
    ~RawConnection();
    RawConnection(const RawConnection&) = delete;
    RawConnection& operator=(const RawConnection&) = delete;
    void send(const std::string& data);
    // Whether the server still holds the connection now: no end of stream or error is pending.
    bool open();

private:
    int fd_ = -1;
};

// Handlers block in wait() until release(); waitEntered() waits for them to arrive, and each
// records the thread it ran on.
class Gate {
public:
    void wait() {
        std::unique_lock lock(mu_);
        ++entered_;
        last_ = std::this_thread::get_id();
        cv_.notify_all();
        cv_.wait(lock, [this] { return open_; });
    }
    void release() {
        std::lock_guard lock(mu_);
        open_ = true;
        cv_.notify_all();
    }
    // Waits (bounded generously) until `n` handlers are inside wait().
    bool waitEntered(int n) {
        std::unique_lock lock(mu_);
        return cv_.wait_for(lock, std::chrono::seconds(60), [&] { return entered_ >= n; });
    }
    // The thread of the last handler that entered wait().
    std::thread::id lastThread() {
        std::lock_guard lock(mu_);
        return last_;
    }

private:
    std::mutex mu_;
    std::condition_variable cv_;
    int entered_ = 0;
    bool open_ = false;
    std::thread::id last_;
};

}  // namespace trainer::test
