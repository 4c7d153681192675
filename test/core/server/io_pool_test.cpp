// Connections on an IoPool (ServerOptions::connections, core/server/io_pool.hpp): each runs on
// one of the pool's threads, in turn, a keep-alive connection's requests all on its thread; the
// listener's io_context runs none of them; stop() closes them and the pool then winds down.
#include <boost/test/unit_test.hpp>

#include "core/server/http.hpp"
#include "core/server/io_pool.hpp"
#include "test_util.hpp"

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/write.hpp>

#include <algorithm>
#include <chrono>
#include <future>
#include <memory>
#include <mutex>
#include <set>
#include <sstream>
#include <thread>
#include <vector>

using namespace trainer::core::server;
using trainer::test::curl;
using namespace std::chrono_literals;
using boost::asio::ip::tcp;

namespace {

// The thread that runs each handler call, in order.
struct Seen {
    std::mutex mu;
    std::vector<std::thread::id> ids;
    void add() {
        std::lock_guard lock(mu);
        ids.push_back(std::this_thread::get_id());
    }
    std::vector<std::thread::id> all() {
        std::lock_guard lock(mu);
        return ids;
    }
};

// The thread of each of the pool's contexts, in the order next() hands them out (taking one
// full turn, so the next connection goes to the first).
std::vector<std::thread::id> threadsOf(IoPool& pool) {
    std::vector<std::thread::id> out;
    for (std::size_t i = 0; i < pool.size(); ++i) {
        std::promise<std::thread::id> p;
        boost::asio::post(pool.next(), [&p] { p.set_value(std::this_thread::get_id()); });
        auto f = p.get_future();
        BOOST_TEST_REQUIRE((f.wait_for(60s) == std::future_status::ready));
        out.push_back(f.get());
    }
    return out;
}

std::vector<Route> recordingRoutes(Seen& seen) {
    return {Route{"GET", "/where", [&seen](const Request&) {
        seen.add();
        return Response{200, "text/plain", "here", {}, {}};
    }}};
}

// A client's keep-alive connection: each ask() sends GET /where and reads its answer.
class KeepAlive {
public:
    explicit KeepAlive(unsigned short port) : socket_(io_) {
        socket_.connect(tcp::endpoint(boost::asio::ip::make_address("127.0.0.1"), port));
    }
    std::string ask() {
        boost::asio::write(socket_, boost::asio::buffer(std::string("GET /where HTTP/1.1\r\nHost: test\r\n\r\n")));
        std::string got;
        char buf[4096];
        while (got.find("here") == std::string::npos) {
            boost::system::error_code ec;
            std::size_t n = socket_.read_some(boost::asio::buffer(buf), ec);
            if (ec) return got + "[" + ec.message() + "]";
            got.append(buf, n);
        }
        return got;
    }
    // What the next read says: end of file once the server has closed the connection.
    boost::system::error_code readEnd() {
        char buf[64];
        boost::system::error_code ec;
        socket_.read_some(boost::asio::buffer(buf), ec);
        return ec;
    }

private:
    boost::asio::io_context io_;
    tcp::socket socket_;
};

ServerOptions options(IoPool* pool) {
    ServerOptions o;
    o.name = "test";
    o.bindAddress = "127.0.0.1:0";
    o.connections = pool;
    return o;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(io_pool)

BOOST_AUTO_TEST_CASE(each_connection_runs_on_the_next_pool_thread_and_keeps_it) {
    trainer::test::IoRunner runner(2);
    IoPool pool(2);
    const auto poolThreads = threadsOf(pool);
    BOOST_TEST_REQUIRE(poolThreads.size() == 2u);
    BOOST_TEST((poolThreads[0] != poolThreads[1]));
    Seen seen;
    HttpServer server(runner.io, options(&pool), recordingRoutes(seen));
    BOOST_TEST_REQUIRE(server.start() == "");
    const std::string url = "http://127.0.0.1:" + std::to_string(server.port()) + "/where";

    // Four connections, one request each: the pool's threads in turn.
    for (int i = 0; i < 4; ++i) BOOST_TEST_REQUIRE(curl(url).body == "here");
    auto ids = seen.all();
    BOOST_TEST_REQUIRE(ids.size() == 4u);
    for (std::size_t i = 0; i < ids.size(); ++i) BOOST_TEST((ids[i] == poolThreads[i % 2]), "request " << i);

    // One keep-alive connection, three requests: all on the thread it was given.
    KeepAlive client(server.port());
    for (int i = 0; i < 3; ++i) BOOST_TEST(client.ask().rfind("HTTP/1.1 200", 0) == 0u);
    ids = seen.all();
    BOOST_TEST_REQUIRE(ids.size() == 7u);
    for (std::size_t i = 4; i < 7; ++i) BOOST_TEST((ids[i] == poolThreads[0]), "request " << i);
}

BOOST_AUTO_TEST_CASE(without_a_pool_connections_run_on_the_servers_io_context) {
    trainer::test::IoRunner runner(1);
    std::promise<std::thread::id> p;
    boost::asio::post(runner.io, [&p] { p.set_value(std::this_thread::get_id()); });
    const auto ioThread = p.get_future().get();
    Seen seen;
    HttpServer server(runner.io, options(nullptr), recordingRoutes(seen));
    BOOST_TEST_REQUIRE(server.start() == "");
    const std::string url = "http://127.0.0.1:" + std::to_string(server.port()) + "/where";
    for (int i = 0; i < 2; ++i) BOOST_TEST_REQUIRE(curl(url).body == "here");
    for (auto id : seen.all()) BOOST_TEST((id == ioThread));
}

BOOST_AUTO_TEST_CASE(stop_closes_the_pools_connections_and_the_pool_then_winds_down) {
    trainer::test::IoRunner runner(2);
    IoPool pool(2);
    Seen seen;
    auto o = options(&pool);
    o.headerTimeout = 10min;  // only stop() can end the idle connection below in time
    auto server = std::make_unique<HttpServer>(runner.io, o, recordingRoutes(seen));
    BOOST_TEST_REQUIRE(server->start() == "");

    // A client that keeps its keep-alive connection open, idle, after one request.
    KeepAlive client(server->port());
    BOOST_TEST_REQUIRE(client.ask().rfind("HTTP/1.1 200", 0) == 0u);

    server->stop();
    server.reset();
    pool.release();  // nothing left to run once its connections are closed
    auto joined = std::async(std::launch::async, [&] { pool.join(); });
    BOOST_TEST_REQUIRE((joined.wait_for(60s) == std::future_status::ready));
    const auto ec = client.readEnd();
    BOOST_TEST((ec == boost::asio::error::eof || ec == boost::asio::error::connection_reset), ec.message());
}

// As `run` stops (core/cli/run_command.cpp joinIo): the listener's io_context stopped with its
// next accept pending, the pool gone before that io_context. Under the sanitizers this fails when
// the pending accept holds a socket of the pool's context (it did, in 6099e55).
BOOST_AUTO_TEST_CASE(a_pool_may_go_before_the_listeners_stopped_io_context) {
    boost::asio::io_context io;
    auto guard = boost::asio::make_work_guard(io);
    std::thread ioThread([&] { io.run(); });
    Seen seen;
    std::unique_ptr<HttpServer> server;
    {
        IoPool pool(2);
        server = std::make_unique<HttpServer>(io, options(&pool), recordingRoutes(seen));
        BOOST_TEST_REQUIRE(server->start() == "");
        KeepAlive client(server->port());
        BOOST_TEST_REQUIRE(client.ask().rfind("HTTP/1.1 200", 0) == 0u);  // the next accept is pending
        io.stop();
        ioThread.join();
        server->stop();
        pool.stop();
        pool.join();
    }  // the pool's contexts are destroyed here, before `io`
    server.reset();
    BOOST_TEST(seen.all().size() == 1u);
}

BOOST_AUTO_TEST_CASE(a_pool_has_at_least_one_thread_and_its_default_follows_the_cpus) {
    IoPool none(0);
    BOOST_TEST(none.size() == 1u);
    const std::size_t cpus = std::thread::hardware_concurrency();
    const std::size_t expected = std::clamp<std::size_t>(cpus / 2, 1, 4);
    BOOST_TEST(IoPool::defaultThreads() == expected);
}

BOOST_AUTO_TEST_SUITE_END()
