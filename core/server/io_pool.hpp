// The I/O threads of the HTTP servers' connections: one io_context per thread, each run by that
// thread alone, a new connection on the next in turn (core/server/http.hpp,
// ServerOptions::connections). Why not one io_context run by every I/O thread: its threads share
// one scheduler and wake each other for every completion, which on 2 CPUs cost more than the
// server's TLS and HTTP themselves (issue 14 P5: 52.8 us of CPU per request answered 404 with
// two threads on one context, 27.4 us with this pool). A connection's handlers run on its own
// context's thread, in order, so a connection needs no strand.
//
// Calls that may run long (offload routes: admission, which runs plugin code) run on the
// connection's thread too, guarded (Call): a call still running after `standInAfter` hands its
// context to a new thread, a stand-in, which serves the context's other connections while the
// call goes on; the called thread leaves the pool when its call returns, its connection going
// on on the stand-in. The loop moves, not the request: handing every call to a worker pool and
// back cost more than the admission itself on 2 CPUs (issue 14 P5: 82-88 us of CPU per
// AdmissionReview through a pool, 50-55 us on the connection's thread). At most `maxStandIns`
// threads are in calls so left; beyond that a context whose thread is stuck waits for it.
#pragma once

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <list>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace trainer::core::server {

class IoPool {
    struct Runner;

public:
    struct Guard {
        std::chrono::milliseconds standInAfter{20};
        std::size_t maxStandIns = 8;
    };

    // `threads` contexts, each with its thread (at least one); guarded calls as `guard` says
    // (the first: 20 ms, 8).
    explicit IoPool(std::size_t threads);
    IoPool(std::size_t threads, Guard guard);
    ~IoPool();  // stop() and join()
    IoPool(const IoPool&) = delete;
    IoPool& operator=(const IoPool&) = delete;

    // The context for a new connection: each in turn. Thread-safe.
    boost::asio::io_context& next();
    std::size_t size() const { return contexts_.size(); }

    // A guarded call: begin() on the thread that runs the connection, right before the call;
    // end() right after it says whether a stand-in took over meanwhile. Then (Ended::Replaced)
    // the caller continues by posting to its connection's executor and returns to the loop,
    // which this thread then leaves. On a thread that is not one of this pool's, both do nothing.
    enum class Ended { Here, Replaced };
    class Call {
    public:
        Call() = default;

    private:
        friend class IoPool;
        Call(Runner* r, std::int64_t started) : runner_(r), started_(started) {}
        Runner* runner_ = nullptr;
        std::int64_t started_ = 0;
    };
    Call begin();
    Ended end(Call call);

    // The pool's threads now: one per context and the stand-ins' predecessors still in calls.
    std::size_t threads() const;

    // Lets each context finish once it has no work left (what is posted before still runs).
    void release();
    // Stops every context now: handlers not yet run never run (they are destroyed with it).
    void stop();
    // Waits for every thread, those still in calls too; once, from a thread that is not one of them.
    void join();

    // One thread per two CPUs, 1 to 4. Admission runs on these threads (guarded calls), and on 2
    // CPUs one thread costs less per request than two: it rarely sleeps, finding the next
    // connection's request ready, where two take turns with the client on both CPUs (issue 14
    // P5: 50-55 us of CPU per AdmissionReview with one, 76 us with two).
    static std::size_t defaultThreads();

private:
    using WorkGuard = boost::asio::executor_work_guard<boost::asio::io_context::executor_type>;
    struct Context {
        boost::asio::io_context io{1};  // run by one thread at a time
        WorkGuard work = boost::asio::make_work_guard(io);
        Runner* current = nullptr;  // the thread that runs it now; under mu_
    };
    // One thread of a context. `since`: 0 between calls; a call's start (steady nanoseconds);
    // kReplaced once a stand-in took over, which ends its loop.
    struct Runner {
        explicit Runner(Context& c) : context(&c) {}
        Context* context;
        std::atomic<std::int64_t> since{0};
        std::atomic<bool> finished{false};
        std::thread thread;
    };
    static constexpr std::int64_t kReplaced = -1;
    // The calling thread's runner, when it is one of a pool's (set as its loop starts).
    struct ThisThread {
        const IoPool* pool = nullptr;
        Runner* runner = nullptr;
    };
    static thread_local ThisThread tThis_;

    void startRunner(Context& c);  // under mu_
    void loop(Runner& r);
    void watch();
    bool anyInCall() const;        // under mu_
    void standIn(std::int64_t now);  // under mu_
    void reap();                   // under mu_

    const Guard guard_;
    std::vector<std::unique_ptr<Context>> contexts_;
    std::atomic<std::size_t> turn_{0};
    mutable std::mutex mu_;
    std::condition_variable cv_;
    std::list<Runner> runners_;  // every thread not yet joined; addresses stay put
    std::atomic<bool> idle_{false};  // the watchdog sleeps until a call begins
    bool stopping_ = false;
    std::thread watchdog_;
};

}  // namespace trainer::core::server
