// Offload routes on a server with a connection pool (core/server/io_pool.hpp): each call runs on
// its connection's own thread, and a call that runs long hands that thread's context to a stand-in
// thread, which serves the other connections (and, once the call returns, the call's connection)
// while the called thread leaves the pool; stand-ins stop at the pool's limit.
#include <boost/test/unit_test.hpp>

#include "core/server/http.hpp"
#include "core/server/io_pool.hpp"
#include "test_util.hpp"

#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/write.hpp>

#include <chrono>
#include <future>
#include <mutex>
#include <thread>

using namespace trainer::core::server;
using trainer::test::curl;
using namespace std::chrono_literals;
using boost::asio::ip::tcp;

namespace {

// A server on a one-context pool guarded as `guard` says: POST /hang blocks on `gate`, POST
// /admit (an offload route too) and GET /where answer at once; `lastQuick` is the thread of the
// last of those two.
struct Served {
    explicit Served(IoPool::Guard guard) : pool(1, guard), server(runner.io, options(pool), routes()) {
        BOOST_TEST_REQUIRE(server.start() == "");
        base = "http://127.0.0.1:" + std::to_string(server.port());
    }
    std::vector<Route> routes() {
        auto ok = [](std::string body) { return Response{200, "text/plain", std::move(body), {}, {}}; };
        auto quick = [this, ok](std::string body) {
            return [this, ok, body](const Request&) { return seen(), ok(body); };
        };
        return {
            Route{"POST", "/hang", [this, ok](const Request&) { return gate.wait(), ok("released"); }, false, true},
            Route{"POST", "/admit", quick("admitted"), false, true},
            Route{"GET", "/where", quick("here")},
        };
    }
    static ServerOptions options(IoPool& pool) {
        ServerOptions o;
        o.name = "test";
        o.bindAddress = "127.0.0.1:0";
        o.connections = &pool;
        // No timer of the server's wakes a context's thread by chance while a test waits for it.
        o.headerTimeout = 10min;
        o.bodyTimeout = 10min;
        return o;
    }
    void seen() {
        std::lock_guard lock(mu);
        last = std::this_thread::get_id();
    }
    std::thread::id lastQuick() {
        std::lock_guard lock(mu);
        return last;
    }
    std::string where() { return curl("--max-time 120 " + base + "/where").body; }

    trainer::test::IoRunner runner{1};
    trainer::test::Gate gate;
    IoPool pool;
    HttpServer server;
    std::string base;
    std::mutex mu;
    std::thread::id last;
};

// A keep-alive connection: each ask() sends one request and reads until `until` arrives.
class KeepAlive {
public:
    explicit KeepAlive(unsigned short port) : socket_(io_) {
        socket_.connect(tcp::endpoint(boost::asio::ip::make_address("127.0.0.1"), port));
    }
    std::string ask(const std::string& method, const std::string& path, const std::string& until) {
        boost::asio::write(socket_, boost::asio::buffer(method + " " + path +
                                                        " HTTP/1.1\r\nHost: test\r\nContent-Length: 0\r\n\r\n"));
        std::string got;
        char buf[4096];
        while (got.find(until) == std::string::npos) {
            boost::system::error_code ec;
            std::size_t n = socket_.read_some(boost::asio::buffer(buf), ec);
            if (ec) return got + "[" + ec.message() + "]";
            got.append(buf, n);
        }
        return got;
    }
    std::future<std::string> hang() {
        return std::async(std::launch::async, [this] { return ask("POST", "/hang", "released"); });
    }

private:
    boost::asio::io_context io_;
    tcp::socket socket_;
};

std::thread::id threadOf(boost::asio::io_context& io) {
    std::promise<std::thread::id> p;
    boost::asio::post(io, [&p] { p.set_value(std::this_thread::get_id()); });
    auto f = p.get_future();
    BOOST_TEST_REQUIRE((f.wait_for(60s) == std::future_status::ready));
    return f.get();
}

// Waits (bounded generously) until the pool has `n` threads.
bool waitThreads(IoPool& pool, std::size_t n) {
    for (auto start = std::chrono::steady_clock::now(); std::chrono::steady_clock::now() - start < 60s;
         std::this_thread::sleep_for(10ms))
        if (pool.threads() == n) return true;
    return false;
}

bool ready(std::future<std::string>& f) { return f.wait_for(60s) == std::future_status::ready; }

}  // namespace

BOOST_AUTO_TEST_SUITE(io_pool_stand_in)

BOOST_AUTO_TEST_CASE(an_offload_call_runs_on_its_connections_thread) {
    Served s(IoPool::Guard{10min, 8});
    const auto poolThread = threadOf(s.pool.next());
    BOOST_TEST(curl("-X POST " + s.base + "/admit").body == "admitted");
    BOOST_TEST((s.lastQuick() == poolThread));
    BOOST_TEST(s.pool.threads() == 1u);
}

BOOST_AUTO_TEST_CASE(a_call_that_runs_long_hands_its_context_to_a_stand_in) {
    Served s(IoPool::Guard{50ms, 2});
    const auto first = threadOf(s.pool.next());
    KeepAlive hung(s.server.port());
    auto answer = hung.hang();
    BOOST_TEST_REQUIRE(s.gate.waitEntered(1));
    BOOST_TEST((s.gate.lastThread() == first));

    // The pool's only context is served by a stand-in while the call goes on.
    BOOST_TEST(s.where() == "here");
    const auto standIn = s.lastQuick();
    BOOST_TEST((standIn != first));
    BOOST_TEST((threadOf(s.pool.next()) == standIn));
    BOOST_TEST(curl("-X POST --max-time 120 " + s.base + "/admit").body == "admitted");
    BOOST_TEST(s.pool.threads() == 2u);

    // The call returns: its connection goes on on the stand-in, and the called thread leaves.
    s.gate.release();
    BOOST_TEST_REQUIRE(ready(answer));
    BOOST_TEST(answer.get().find("released") != std::string::npos);
    BOOST_TEST(hung.ask("GET", "/where", "here").rfind("HTTP/1.1 200", 0) == 0u);
    BOOST_TEST((s.lastQuick() == standIn));
    BOOST_TEST(waitThreads(s.pool, 1));
}

BOOST_AUTO_TEST_CASE(stand_ins_stop_at_the_pools_limit_and_the_stuck_context_then_waits) {
    Served s(IoPool::Guard{50ms, 1});
    KeepAlive a(s.server.port()), b(s.server.port());
    auto hungA = a.hang();
    BOOST_TEST_REQUIRE(s.gate.waitEntered(1));
    BOOST_TEST(s.where() == "here");  // the one stand-in
    auto hungB = b.hang();
    BOOST_TEST_REQUIRE(s.gate.waitEntered(2));  // the stand-in is stuck too, and none may follow

    auto waiting = std::async(std::launch::async, [&] { return s.where(); });
    std::this_thread::sleep_for(400ms);  // eight times standInAfter: long enough for a stand-in to start
    BOOST_TEST(s.pool.threads() == 2u);
    BOOST_TEST((waiting.wait_for(0s) != std::future_status::ready));

    s.gate.release();
    for (auto* f : {&hungA, &hungB, &waiting}) BOOST_TEST_REQUIRE(ready(*f));
    BOOST_TEST(hungA.get().find("released") != std::string::npos);
    BOOST_TEST(hungB.get().find("released") != std::string::npos);
    BOOST_TEST(waiting.get() == "here");
}

BOOST_AUTO_TEST_SUITE_END()
