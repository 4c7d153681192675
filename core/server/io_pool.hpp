// The I/O threads of the HTTP servers' connections: one io_context per thread, each run by that
// thread alone, a new connection on the next in turn (core/server/http.hpp,
// ServerOptions::connections). Why not one io_context run by every I/O thread: its threads share
// one scheduler and wake each other for every completion, which on 2 CPUs cost more than the
// server's TLS and HTTP themselves (issue 14 P5: 52.8 us of CPU per request answered 404 with
// two threads on one context, 27.4 us with this pool). A connection's handlers run on its own
// context's thread, in order, so a connection needs no strand.
#pragma once

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>

#include <atomic>
#include <cstddef>
#include <memory>
#include <thread>
#include <vector>

namespace trainer::core::server {

class IoPool {
public:
    // `threads` contexts, each with its thread (at least one).
    explicit IoPool(std::size_t threads);
    ~IoPool();  // stop() and join()
    IoPool(const IoPool&) = delete;
    IoPool& operator=(const IoPool&) = delete;

    // The context for a new connection: each in turn. Thread-safe.
    boost::asio::io_context& next();
    std::size_t size() const { return contexts_.size(); }

    // Lets each context finish once it has no work left (what is posted before still runs).
    void release();
    // Stops every context now: handlers not yet run never run (they are destroyed with it).
    void stop();
    // Waits for every thread; once, from a thread that is not one of them.
    void join();

    // One thread per two CPUs, 1 to 4: for servers whose handlers that take long (admission)
    // run on their worker pools (ServerOptions::workerThreads), so that these threads only move
    // bytes; a second one on 2 CPUs made each request cost more (issue 14 P5: 151 us of CPU per
    // AdmissionReview with two, 107 us with one).
    static std::size_t defaultThreads();

private:
    using Guard = boost::asio::executor_work_guard<boost::asio::io_context::executor_type>;
    struct Context {
        boost::asio::io_context io{1};  // run by one thread only
        Guard guard = boost::asio::make_work_guard(io);
    };
    std::vector<std::unique_ptr<Context>> contexts_;
    std::vector<std::thread> threads_;
    std::atomic<std::size_t> turn_{0};
};

}  // namespace trainer::core::server
