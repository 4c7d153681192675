// The pods/log subresource over real HTTPS: the API server on a MemoryStore served by
// server::HttpServer with TLS as core/cli/embedded_api.cpp serves it, a Boost.Beast client that
// verifies the server against the CA. Pods and their statuses are written into the store by
// hand; the log files by the test, where the local executor's kubelet would write them.
#include <boost/test/unit_test.hpp>

#include "core/apiserver/api_server.hpp"
#include "core/apiserver/bootstrap.hpp"
#include "core/executor/pod_logs.hpp"
#include "core/server/http.hpp"
#include "core/server/webhook.hpp"
#include "core/store/memory_store.hpp"

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>

#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>

using namespace trainer::core;
namespace asio = boost::asio;
namespace ssl = asio::ssl;
namespace beast = boost::beast;
namespace http = beast::http;
namespace fs = std::filesystem;

namespace {

struct Reply {
    unsigned status = 0;
    std::string contentType;
    std::string body;
};

// The API server over a MemoryStore on 127.0.0.1:<free port>, HTTPS, one io thread.
class LogServer {
public:
    LogServer() {
        std::string t = (fs::temp_directory_path() / "trainer-podlog-XXXXXX").string();
        BOOST_REQUIRE(::mkdtemp(t.data()));
        dir = t;
        BOOST_REQUIRE(apiserver::ensureCredentials((dir / "certs").string(), creds).empty());
        apiserver::ApiServerOptions ao;
        ao.token = creds.token;
        ao.podLogDir = (dir / "state").string();
        // A followed log is read when its file is written or the store commits, and otherwise
        // only after an hour: every follow test below fails (a 30 s read bound) without the wakes.
        ao.logFollowFallback = std::chrono::hours(1);
        api_ = std::make_unique<apiserver::ApiServer>(store, resources_, nullptr, ao);
        BOOST_REQUIRE(api_->initialize().empty());
        certs_ = std::make_unique<server::CertWatcher>(creds.certDir);
        BOOST_REQUIRE(certs_->load().empty());
        server::ServerOptions so;
        so.bindAddress = "127.0.0.1:0";
        so.tls = certs_->provider();
        so.errors = api_->errorResponder();
        http_ = std::make_unique<server::HttpServer>(io_, so, api_->routes());
        BOOST_REQUIRE(http_->start().empty());
        thread_ = std::thread([this] { io_.run(); });
    }
    ~LogServer() {
        http_->stop();
        guard_.reset();
        io_.stop();
        thread_.join();
        std::error_code ec;
        fs::remove_all(dir, ec);
    }

    // A Pod with `containers` and, when `state` is set, a status saying each is in that state.
    std::string addPod(const std::string& name, const std::vector<std::string>& containers, const std::string& state) {
        json::array cs, statuses;
        for (auto const& c : containers) {
            cs.push_back(json::object{{"name", c}, {"image", "busybox"}});
            statuses.push_back(json::object{{"name", c}, {"restartCount", 0}, {"state", json::object{{state, json::object{}}}}});
        }
        auto r = store.create(json::object{{"apiVersion", "v1"},
                                           {"kind", "Pod"},
                                           {"metadata", json::object{{"name", name}, {"namespace", "default"}}},
                                           {"spec", json::object{{"containers", cs}}}});
        BOOST_REQUIRE_MESSAGE(r.ok(), r.message);
        if (!state.empty()) setStatus(name, statuses);
        return std::string(r.object.at("metadata").at("uid").as_string());
    }
    void setStatus(const std::string& name, json::array statuses) {
        auto pod = store.get(ObjectKey{"v1", "Pod", "default", name}).object;
        pod["status"] = json::object{{"containerStatuses", std::move(statuses)}};
        BOOST_REQUIRE(store.updateStatus(pod).ok());
    }
    void append(const std::string& pod, const std::string& uid, const std::string& container, const std::string& text) {
        auto path = executor::containerLogPath(dir / "state", "default", pod, uid, container, 0);
        fs::create_directories(path.parent_path());
        std::ofstream(path, std::ios::app | std::ios::binary) << text;
    }

    fs::path dir;
    apiserver::Credentials creds;
    MemoryStore store;
    unsigned short port() const { return http_->port(); }

private:
    apiserver::ResourceRegistry resources_;
    std::unique_ptr<apiserver::ApiServer> api_;
    std::unique_ptr<server::CertWatcher> certs_;
    asio::io_context io_;
    asio::executor_work_guard<asio::io_context::executor_type> guard_ = asio::make_work_guard(io_);
    std::unique_ptr<server::HttpServer> http_;
    std::thread thread_;
};

// One HTTPS connection; a stalled server fails a read after 30 s instead of hanging the test (a
// watchdog shuts the socket down: Asio's blocking reads poll without a timeout, SO_RCVTIMEO or not).
class Client {
public:
    explicit Client(const LogServer& s)
        : token_(s.creds.token), watchdog_([this](std::stop_token stop) { watch(stop); }) {
        tls_.set_verify_mode(ssl::verify_peer);
        beast::error_code ec;
        tls_.add_certificate_authority(asio::buffer(s.creds.caPem), ec);
        stream_ = std::make_unique<ssl::stream<asio::ip::tcp::socket>>(io_, tls_);
        stream_->next_layer().connect({asio::ip::make_address("127.0.0.1"), s.port()}, ec);
        BOOST_REQUIRE_MESSAGE(!ec, ec.message());
        stream_->set_verify_callback(ssl::host_name_verification("127.0.0.1"));
        stream_->handshake(ssl::stream_base::client, ec);
        BOOST_REQUIRE_MESSAGE(!ec, ec.message());
    }

    Reply request(http::verb verb, const std::string& target) {
        send(verb, target);
        http::response_parser<http::string_body> parser;
        beast::error_code ec;
        http::read(*stream_, buffer_, parser, ec);
        BOOST_REQUIRE_MESSAGE(!ec, "read: " << ec.message());
        return {parser.get().result_int(), std::string(parser.get()[http::field::content_type]), parser.get().body()};
    }
    Reply get(const std::string& target) { return request(http::verb::get, target); }

    // A streamed response: the header now, then body bytes as they come.
    void open(const std::string& target) {
        send(http::verb::get, target);
        stream_parser_.emplace();
        stream_parser_->body_limit(std::numeric_limits<std::uint64_t>::max());
        onChunk_ = [this](std::uint64_t, std::string_view data, beast::error_code&) {
            received += data;
            return data.size();
        };
        stream_parser_->on_chunk_body(onChunk_);
        beast::error_code ec;
        http::read_header(*stream_, buffer_, *stream_parser_, ec);
        BOOST_REQUIRE_MESSAGE(!ec, "read header: " << ec.message());
        BOOST_REQUIRE_EQUAL(stream_parser_->get().result_int(), 200u);
    }
    // Reads until `received` contains `text` (or the body ended).
    void readUntil(const std::string& text) {
        while (received.find(text) == std::string::npos && !stream_parser_->is_done()) readSome();
    }
    // Reads to the end of the body.
    void readToEnd() {
        while (!stream_parser_->is_done()) readSome();
    }

    std::string received;

private:
    void readSome() {
        beast::error_code ec;
        deadline_ = std::chrono::steady_clock::now() + std::chrono::seconds(30);
        http::read_some(*stream_, buffer_, *stream_parser_, ec);
        deadline_ = std::chrono::steady_clock::time_point::max();
        BOOST_REQUIRE_MESSAGE(!ec, "read: " << ec.message() << " (nothing came for 30 s)");
    }
    void watch(std::stop_token stop) {
        while (!stop.stop_requested()) {
            std::this_thread::sleep_for(std::chrono::milliseconds(100));
            if (std::chrono::steady_clock::now() > deadline_.load() && stream_)
                ::shutdown(stream_->next_layer().native_handle(), SHUT_RDWR);
        }
    }
    void send(http::verb verb, const std::string& target) {
        http::request<http::empty_body> req{verb, target, 11};
        req.set(http::field::host, "127.0.0.1");
        req.set(http::field::authorization, "Bearer " + token_);
        req.keep_alive(true);
        beast::error_code ec;
        http::write(*stream_, req, ec);
        BOOST_REQUIRE_MESSAGE(!ec, "write: " << ec.message());
    }

    std::string token_;
    asio::io_context io_;
    ssl::context tls_{ssl::context::tls_client};
    std::unique_ptr<ssl::stream<asio::ip::tcp::socket>> stream_;
    beast::flat_buffer buffer_;
    std::optional<http::response_parser<http::empty_body>> stream_parser_;
    std::function<std::size_t(std::uint64_t, std::string_view, beast::error_code&)> onChunk_;
    std::atomic<std::chrono::steady_clock::time_point> deadline_{std::chrono::steady_clock::time_point::max()};
    std::jthread watchdog_;  // last: stopped and joined before the stream goes
};

json::object parseStatus(const Reply& r) {
    BOOST_TEST(r.contentType == "application/json");
    boost::system::error_code ec;
    auto v = json::parse(r.body, ec);
    BOOST_REQUIRE_MESSAGE(!ec && v.is_object(), "not a Status: " << r.body);
    BOOST_TEST(v.at("kind") == "Status");
    BOOST_TEST(v.at("status") == "Failure");
    return v.as_object();
}

const std::string kLog = "/api/v1/namespaces/default/pods/";

}  // namespace

BOOST_AUTO_TEST_SUITE(pod_log)

BOOST_AUTO_TEST_CASE(discovery_lists_pods_log) {
    LogServer s;
    Client c(s);
    auto r = c.get("/api/v1");
    BOOST_TEST_REQUIRE(r.status == 200u);
    auto list = json::parse(r.body).as_object();
    bool found = false;
    for (auto const& e : list.at("resources").as_array())
        if (e.at("name") == "pods/log") {
            found = true;
            BOOST_TEST(e.at("kind") == "Pod");
            BOOST_TEST(e.at("namespaced") == true);
            BOOST_TEST(json::serialize(e.at("verbs")) == R"(["get"])");
        }
    BOOST_TEST(found);
}

BOOST_AUTO_TEST_CASE(reads_tails_and_limits) {
    LogServer s;
    auto uid = s.addPod("one", {"main"}, "running");
    s.append("one", uid, "main", "alpha\nbeta\ngamma\n");
    Client c(s);
    auto all = c.get(kLog + "one/log");
    BOOST_TEST(all.status == 200u);
    BOOST_TEST(all.contentType == "text/plain");
    BOOST_TEST(all.body == "alpha\nbeta\ngamma\n");
    BOOST_TEST(c.get(kLog + "one/log?tailLines=1").body == "gamma\n");
    BOOST_TEST(c.get(kLog + "one/log?tailLines=2&limitBytes=3").body == "bet");
    BOOST_TEST(c.get(kLog + "one/log?container=main&timestamps=false").body == "alpha\nbeta\ngamma\n");

    auto two = s.addPod("two", {"a", "b"}, "running");
    s.append("two", two, "b", "from b\n");
    BOOST_TEST(c.get(kLog + "two/log?container=b").body == "from b\n");
}

BOOST_AUTO_TEST_CASE(errors_are_the_api_servers) {
    LogServer s;
    s.addPod("two", {"a", "b"}, "running");
    s.addPod("pending", {"main"}, "waiting");
    Client c(s);
    auto missing = c.get(kLog + "nope/log");
    BOOST_TEST(missing.status == 404u);
    auto st = parseStatus(missing);
    BOOST_TEST(st.at("reason") == "NotFound");
    BOOST_TEST(st.at("message") == "pods \"nope\" not found");
    BOOST_TEST(st.at("code") == 404);
    BOOST_TEST(json::serialize(st.at("details")) == R"({"name":"nope","kind":"pods"})");

    auto unchosen = c.get(kLog + "two/log");
    BOOST_TEST(unchosen.status == 400u);
    st = parseStatus(unchosen);
    BOOST_TEST(st.at("reason") == "BadRequest");
    BOOST_TEST(st.at("message") == "a container name must be specified for pod two, choose one of: [a b]");
    BOOST_TEST(parseStatus(c.get(kLog + "two/log?container=x")).at("message") == "container x is not valid for pod two");

    auto waiting = parseStatus(c.get(kLog + "pending/log"));
    BOOST_TEST(waiting.at("message") == "container \"main\" in pod \"pending\" is waiting to start: ContainerCreating");
    BOOST_TEST(waiting.at("code") == 400);

    auto negative = c.get(kLog + "two/log?container=a&tailLines=-1");
    BOOST_TEST(negative.status == 422u);
    BOOST_TEST(parseStatus(negative).at("message") ==
               "PodLogOptions \"two\" is invalid: tailLines: Invalid value: -1: must be greater than or equal to 0");
    BOOST_TEST(c.get(kLog + "two/log?container=a&limitBytes=x").status == 400u);
    BOOST_TEST(c.get(kLog + "two/log?container=a&follow=maybe").status == 400u);
    auto stamps = c.get(kLog + "two/log?container=a&timestamps=true");
    BOOST_TEST(stamps.status == 400u);
    BOOST_TEST(std::string(parseStatus(stamps).at("message").as_string()).starts_with("timestamps"));
    BOOST_TEST(c.request(http::verb::post, kLog + "two/log").status == 405u);
}

BOOST_AUTO_TEST_CASE(follow_streams_until_the_container_terminates) {
    LogServer s;
    auto uid = s.addPod("f", {"main"}, "running");
    s.append("f", uid, "main", "first\n");
    Client c(s);
    c.open(kLog + "f/log?follow=true");
    c.readUntil("first\n");
    BOOST_TEST(c.received == "first\n");
    s.append("f", uid, "main", "second\n");
    c.readUntil("second\n");
    s.append("f", uid, "main", "last\n");
    s.setStatus("f", json::array{json::object{
                         {"name", "main"}, {"restartCount", 0}, {"state", json::object{{"terminated", json::object{{"exitCode", 0}}}}}}});
    c.readToEnd();  // ends because the status says terminated
    BOOST_TEST(c.received == "first\nsecond\nlast\n");
}

BOOST_AUTO_TEST_CASE(follow_ends_when_the_pod_is_deleted) {
    LogServer s;
    auto uid = s.addPod("gone", {"main"}, "running");
    s.append("gone", uid, "main", "x\n");
    Client c(s);
    c.open(kLog + "gone/log?follow=1&tailLines=0");
    BOOST_REQUIRE(s.store.remove(ObjectKey{"v1", "Pod", "default", "gone"}).ok());
    c.readToEnd();
    BOOST_TEST(c.received == "");
}

BOOST_AUTO_TEST_SUITE_END()
