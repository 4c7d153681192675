// The client against the real embedded API server (`trainer-operator apiserver`, started once for
// all cases) and against scripted local servers (test_server.hpp) for retries, broken answers,
// keep-alive, TLS details and streaming.
#include <boost/test/unit_test.hpp>

#include "kube_test_util.hpp"
#include "test_server.hpp"

#include "core/kube/client.hpp"
#include "core/kube/rate_limiter.hpp"
#include "core/kube/waits.hpp"
#include "../../support/wait.hpp"

#include <boost/algorithm/string/case_conv.hpp>
#include <boost/json.hpp>

#include <openssl/pem.h>

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <set>
#include <sstream>
#include <thread>

namespace fs = std::filesystem;
namespace json = boost::json;
using namespace std::chrono_literals;
using namespace trainer::core::kube;
using namespace trainer::test;
using namespace trainer::test::kube;
using Clock = std::chrono::steady_clock;

namespace {

// Durations in whole milliseconds (rounded), to compare the waits a FakeWaits recorded.
std::vector<long> millis(const std::vector<FakeWaits::Clock::duration>& waits) {
    std::vector<long> out;
    for (auto d : waits) out.push_back(static_cast<long>(std::chrono::round<std::chrono::milliseconds>(d).count()));
    return out;
}

json::value parse(const std::string& text) {
    boost::system::error_code ec;
    auto v = json::parse(text, ec);
    return ec ? json::value() : v;
}

std::string str(const json::value& v, std::initializer_list<const char*> path) {
    const json::value* cur = &v;
    for (auto* k : path) {
        if (!cur->is_object() || !cur->as_object().contains(k)) return {};
        cur = &cur->as_object().at(k);
    }
    return cur->is_string() ? std::string(cur->as_string()) : cur->is_int64() ? std::to_string(cur->as_int64()) : std::string();
}

bool contains(const std::string& text, const std::string& needle) { return text.find(needle) != std::string::npos; }

// `trainer-operator apiserver` on a fresh store, started once, killed at exit.
class ApiServer {
public:
    static ApiServer& get() {
        static ApiServer s;
        return s;
    }
    RestConfig config() const { return config_; }
    const TempDir& dir() const { return tmp_; }

    ~ApiServer() {
        if (pid_ > 0) {
            ::kill(pid_, SIGKILL);
            ::waitpid(pid_, nullptr, 0);
        }
    }

private:
    ApiServer() {
        std::string kc = tmp_.file("kc");
        std::vector<std::string> args{TRAINER_BIN,        "apiserver", "--store", tmp_.file("s.db"), "--plugin-dir",
                                      TRAINER_PLUGIN_BUILD_DIR, "--api-bind-address", "127.0.0.1:0", "--write-kubeconfig", kc};
        std::string log = tmp_.file("apiserver.log");
        pid_ = ::fork();
        BOOST_REQUIRE(pid_ >= 0);
        if (pid_ == 0) {
            ::prctl(PR_SET_PDEATHSIG, SIGKILL);  // never outlives a test process that is killed
            int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
            ::dup2(fd, 1);
            ::dup2(fd, 2);
            std::vector<char*> argv;
            for (auto& a : args) argv.push_back(a.data());
            argv.push_back(nullptr);
            ::execv(argv[0], argv.data());
            ::_exit(127);
        }
        BOOST_REQUIRE_MESSAGE(waitFor([&] { return fs::exists(kc); }), "no kubeconfig; log:\n" + slurp(log));
        auto r = loadKubeconfig({kc, "", false});
        BOOST_REQUIRE_MESSAGE(r.config, r.error);
        config_ = *r.config;
        Client c(config_);
        BOOST_REQUIRE_MESSAGE(waitFor([&] { return c.request("GET", "/readyz", {}, {"", 0}).status == 200; }),
                              "not ready; log:\n" + slurp(log));
    }
    TempDir tmp_;
    pid_t pid_ = -1;
    RestConfig config_;
};

// A scripted server's script can block on this until the test lets it go. The bound is a hang
// guard: a client that should have stopped waiting sees the script give up and the connection
// close, which the case's error check tells apart.
struct Gate {
    std::atomic<bool> open{false};
    void wait() const { waitFor([&] { return open.load(); }, kEventBound, 10ms); }
};

// The certificates scripted servers serve (for 127.0.0.1 and localhost) and a second CA.
struct Certs {
    TempDir tmp;
    Pki pki = makePki(tmp.file("pki"));
    Pki other = makePki(tmp.file("other"));
    RestConfig config(const TestServer& s) const {
        RestConfig c;
        c.server = s.url();
        c.caPem = pki.ca;
        c.qps = 0;
        c.timeout = 5000ms;
        return c;
    }
};

RequestOptions retries(int n) {
    RequestOptions o;
    o.maxRetries = n;
    return o;
}

const std::string kConfigMaps = "/api/v1/namespaces/default/configmaps";

}  // namespace

BOOST_AUTO_TEST_CASE(api_server_version) {
    Client c(ApiServer::get().config());
    auto r = c.request("GET", "/version");
    BOOST_TEST_REQUIRE(r.status == 200u, r.error + r.body);
    BOOST_TEST(r.error.empty());
    BOOST_TEST(!str(parse(r.body), {"gitVersion"}).empty());
    BOOST_TEST(contains(r.header("Content-Type"), "application/json"));
    for (auto const& [name, value] : r.headers) BOOST_TEST(name == boost::algorithm::to_lower_copy(name));
}

BOOST_AUTO_TEST_CASE(api_server_configmaps_and_statuses) {
    Client c(ApiServer::get().config());
    const std::string cm = R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"client-a"},"data":{"k":"v"}})";
    struct Step {
        const char* name;
        const char* method;
        std::string path;
        std::string body;
        unsigned status;
        std::string reason;   // Status reason for errors, or "" for objects
        std::string message;  // Status message
    };
    const Step steps[] = {
        {"create", "POST", kConfigMaps, cm, 201, "", ""},
        {"create again", "POST", kConfigMaps, cm, 409, "AlreadyExists", R"(configmaps "client-a" already exists)"},
        {"get", "GET", kConfigMaps + "/client-a", "", 200, "", ""},
        {"get missing", "GET", kConfigMaps + "/nope", "", 404, "NotFound", R"(configmaps "nope" not found)"},
        {"patch", "PATCH", kConfigMaps + "/client-a", R"({"data":{"k":"w"}})", 200, "", ""},
    };
    for (auto const& s : steps) {
        BOOST_TEST_CONTEXT(s.name) {
            RequestOptions o;
            if (std::string(s.method) == "PATCH") o.contentType = "application/merge-patch+json";
            auto r = c.request(s.method, s.path, s.body, o);
            BOOST_TEST(r.status == s.status, r.error + r.body);
            auto body = parse(r.body);
            if (s.reason.empty()) {
                BOOST_TEST(r.ok());
                BOOST_TEST(str(body, {"metadata", "name"}) == "client-a");
            } else {
                BOOST_TEST(!r.ok());
                BOOST_TEST(r.error.empty());
                BOOST_TEST(str(body, {"kind"}) == "Status");
                BOOST_TEST(str(body, {"reason"}) == s.reason);
                BOOST_TEST(str(body, {"message"}) == s.message);
                BOOST_TEST(str(body, {"code"}) == std::to_string(s.status));
            }
        }
    }
    auto got = c.request("GET", kConfigMaps + "/client-a");
    BOOST_TEST(str(parse(got.body), {"data", "k"}) == "w");
    auto list = c.request("GET", kConfigMaps + "?limit=500");
    BOOST_TEST_REQUIRE(list.status == 200u);
    std::set<std::string> names;
    auto listed = parse(list.body);
    BOOST_TEST_REQUIRE(listed.is_object());
    for (auto const& item : listed.at("items").as_array()) names.insert(str(item, {"metadata", "name"}));
    BOOST_TEST(names.count("client-a") == 1u);
}

BOOST_AUTO_TEST_CASE(api_server_authentication_and_tls_verification) {
    Certs certs;
    struct Case {
        const char* name;
        std::function<void(RestConfig&)> change;
        unsigned status;
        std::string error;  // a part of it
    };
    const Case cases[] = {
        {"wrong token", [](RestConfig& c) { c.token = "wrong"; }, 401, ""},
        {"no token", [](RestConfig& c) { c.token.clear(); }, 401, ""},
        {"another CA", [&](RestConfig& c) { c.caPem = certs.other.ca; }, 0,
         "tls: failed to verify certificate: unable to get local issuer certificate"},
        {"system trust store", [](RestConfig& c) { c.caPem.clear(); }, 0, "tls: failed to verify certificate: "},
        {"insecure", [](RestConfig& c) { c.caPem.clear(), c.insecureSkipTlsVerify = true; }, 200, ""},
        {"wrong host name", [](RestConfig& c) { c.tlsServerName = "not-the-server.example"; }, 0,
         "tls: failed to verify certificate: hostname mismatch"},
        {"a DNS name of the certificate", [](RestConfig& c) { c.tlsServerName = "kubernetes.default.svc"; }, 200, ""},
        {"localhost by name", [](RestConfig& c) { c.tlsServerName = "localhost"; }, 200, ""},
    };
    for (auto const& k : cases) {
        BOOST_TEST_CONTEXT(k.name) {
            auto config = ApiServer::get().config();
            k.change(config);
            Client c(config);
            auto r = c.request("GET", kConfigMaps, {}, retries(0));
            BOOST_TEST(r.status == k.status, r.error);
            if (k.error.empty()) {
                BOOST_TEST(r.error.empty());
            } else {
                BOOST_TEST(contains(r.error, k.error), r.error);
                BOOST_TEST(r.error.find("GET " + config.server + kConfigMaps + ": ") == 0u, r.error);
            }
            if (k.status == 401) BOOST_TEST(str(parse(r.body), {"reason"}) == "Unauthorized");
        }
    }
}

BOOST_AUTO_TEST_CASE(api_server_watch_streams_until_stopped) {
    Client c(ApiServer::get().config());
    auto list = c.request("GET", kConfigMaps);
    BOOST_TEST_REQUIRE(list.status == 200u);
    auto rv = str(parse(list.body), {"metadata", "resourceVersion"});
    BOOST_TEST_REQUIRE(!rv.empty());
    std::atomic<bool> stop{false};
    std::mutex mu;
    std::vector<std::string> lines;
    HttpResult result;
    std::atomic<bool> returned{false};
    std::thread watcher([&] {
        result = c.stream(kConfigMaps + "?watch=1&resourceVersion=" + rv, [&](std::string_view line) {
            std::lock_guard lock(mu);
            lines.emplace_back(line);
            return true;
        }, stop);
        returned = true;
    });
    // The watch starts at `rv`: the create is seen whether it comes before or after the watch connects.
    auto created = c.request("POST", kConfigMaps, R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"watched"}})");
    BOOST_TEST(created.status == 201u, created.body);
    bool seen = waitFor([&] {
        std::lock_guard lock(mu);
        return !lines.empty();
    });
    BOOST_TEST(seen);
    BOOST_TEST(!returned);
    stop = true;  // the event that ends the stream (the server would keep it open for its own timeout)
    BOOST_TEST_REQUIRE(waitFor([&] { return returned.load(); }), "the watch did not end when stopped");
    watcher.join();
    BOOST_TEST(result.status == 200u, result.error);
    BOOST_TEST(result.error.empty());
    BOOST_TEST_REQUIRE(!lines.empty());
    auto event = parse(lines.front());
    BOOST_TEST(str(event, {"type"}) == "ADDED");
    BOOST_TEST(str(event, {"object", "metadata", "name"}) == "watched");
}

BOOST_AUTO_TEST_CASE(api_server_observer_and_concurrency) {
    Client c(ApiServer::get().config());
    std::mutex mu;
    std::multiset<std::string> observed;
    c.setObserver([&](std::string_view method, std::string_view path) {
        std::lock_guard lock(mu);
        observed.insert(std::string(method) + " " + std::string(path));
    });
    std::vector<std::thread> threads;
    std::atomic<int> ok{0};
    for (int t = 0; t < 4; ++t)
        threads.emplace_back([&] {
            for (int i = 0; i < 10; ++i) ok += c.request("GET", "/api/v1/namespaces/default").status == 200;
        });
    for (auto& t : threads) t.join();
    BOOST_TEST(ok == 40);
    BOOST_TEST(observed.count("GET /api/v1/namespaces/default") == 40u);
    BOOST_TEST(observed.size() == 40u);
}

BOOST_AUTO_TEST_CASE(token_bucket_with_a_fake_clock) {
    using D = Clock::duration;
    auto t0 = Clock::time_point{} + 1h;
    struct Case {
        const char* name;
        double qps;
        int burst;
        std::vector<std::chrono::milliseconds> at;    // when each reserve happens, from t0
        std::vector<std::chrono::milliseconds> wait;  // what it must wait
    };
    const Case cases[] = {
        {"qps 5 burst 1", 5, 1, {0ms, 0ms, 0ms, 0ms}, {0ms, 200ms, 400ms, 600ms}},
        {"burst then rate", 10, 3, {0ms, 0ms, 0ms, 0ms, 0ms}, {0ms, 0ms, 0ms, 100ms, 200ms}},
        {"refills while idle, up to burst", 5, 2, {0ms, 0ms, 1000ms, 1000ms, 1000ms}, {0ms, 0ms, 0ms, 0ms, 200ms}},
        {"partial refill", 5, 1, {0ms, 100ms}, {0ms, 100ms}},
        {"disabled", 0, 1, {0ms, 0ms, 0ms}, {0ms, 0ms, 0ms}},
        {"burst below one acts as one", 5, 0, {0ms, 0ms}, {0ms, 200ms}},
    };
    for (auto const& c : cases) {
        BOOST_TEST_CONTEXT(c.name) {
            TokenBucket b(c.qps, c.burst, t0);
            for (std::size_t i = 0; i < c.at.size(); ++i) {
                auto got = std::chrono::duration_cast<std::chrono::milliseconds>(b.reserve(t0 + c.at[i]) + D(500));
                BOOST_TEST(got.count() == c.wait[i].count(), "reserve " << i);
            }
        }
    }
}

// Real requests on the client's fake clock (core/kube/waits.hpp): the first takes the burst's
// token, each later one waits exactly 1/qps for its own.
BOOST_AUTO_TEST_CASE(rate_limit_slows_real_requests) {
    auto config = ApiServer::get().config();
    config.qps = 5;
    config.burst = 1;
    FakeWaits waits;
    Client c(config, &waits);
    for (int i = 0; i < 6; ++i) BOOST_TEST(c.request("GET", "/version").status == 200u);
    BOOST_TEST(millis(waits.waits()) == std::vector<long>(5, 200), boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(retries_on_429_and_5xx) {
    Certs certs;
    struct Case {
        const char* name;
        std::vector<unsigned> answers;  // statuses before a final 200
        const char* method;
        int maxRetries;
        unsigned status;
        int attempts;
        std::vector<long> waitsMs;  // what the client waited before each retry (fake clock)
    };
    const Case cases[] = {
        {"429 with Retry-After: 1 once", {429}, "GET", 5, 200, 2, {1000}},
        {"503 twice (backoff 100 ms, 200 ms)", {503, 503}, "GET", 5, 200, 3, {100, 200}},
        {"503 twice, one retry allowed", {503, 503}, "GET", 1, 503, 2, {100}},
        {"POST retried on 500", {500}, "POST", 5, 200, 2, {100}},
        {"no retries", {503}, "PUT", 0, 503, 1, {}},
        {"501 is final", {501}, "GET", 5, 501, 1, {}},
        {"404 is final", {404}, "GET", 5, 404, 1, {}},
    };
    for (auto const& c : cases) {
        BOOST_TEST_CONTEXT(c.name) {
            TestServer server(certs.pki, [&](const Seen&, int i, const Send& send) {
                if (static_cast<std::size_t>(i) < c.answers.size()) {
                    unsigned s = c.answers[i];
                    send(response(s, "Oops", R"({"kind":"Status","code":)" + std::to_string(s) + "}", s == 429 ? "Retry-After: 1\r\n" : ""));
                } else {
                    send(response(200, "OK", "{}"));
                }
                return true;
            });
            FakeWaits waits;
            Client client(certs.config(server), &waits);
            auto r = client.request(c.method, "/x", c.method == std::string("POST") ? "{}" : "", retries(c.maxRetries));
            BOOST_TEST(r.status == c.status, r.error);
            BOOST_TEST(server.requests() == c.attempts);
            BOOST_TEST(millis(waits.waits()) == c.waitsMs, boost::test_tools::per_element());
            if (c.status != 200) BOOST_TEST(contains(r.body, std::to_string(c.status)));
        }
    }
}

BOOST_AUTO_TEST_CASE(broken_servers_give_error_values) {
    Certs certs;
    Gate gate;
    struct Case {
        const char* name;
        bool tls;
        std::function<bool(const Send&)> answer;
        const char* method;
        int maxRetries;
        int attempts;
        std::string error;  // a part of it
    };
    const Case cases[] = {
        {"closes mid-body (TLS)", true, [](const Send& s) { return s("HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n{\"par"), false; },
         "GET", 2, 3, ": read response: "},
        {"closes mid-body (plain)", false, [](const Send& s) { return s("HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n{\"par"), false; },
         "GET", 0, 1, ": read response: partial message"},
        {"closes mid-chunk", false,
         [](const Send& s) { return s("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n10\r\nabc"), false; }, "GET", 0, 1,
         ": read response: partial message"},
        {"garbage", true, [](const Send& s) { return s("SSH-2.0-OpenSSH\r\n\r\n"), false; }, "GET", 0, 1, ": read response: "},
        {"closes without answering, POST not retried", true, [](const Send&) { return false; }, "POST", 5, 1,
         ": read response: "},
        {"closes without answering, DELETE retried", false, [](const Send&) { return false; }, "DELETE", 1, 2,
         ": read response: end of stream"},
        {"never answers", true, [&](const Send&) { return gate.wait(), false; }, "GET", 0, 1, ": read response: timed out"},
    };
    for (auto const& c : cases) {
        BOOST_TEST_CONTEXT(c.name) {
            gate.open = false;
            TestServer server(certs.pki, [&](const Seen&, int, const Send& send) { return c.answer(send); },
                              TestServerOptions{c.tls});
            auto config = certs.config(server);
            config.timeout = 300ms;
            Client client(config);
            auto r = client.request(c.method, "/x", {}, retries(c.maxRetries));
            gate.open = true;
            BOOST_TEST(r.status == 0u);
            // "never answers" ends on the client's 300 ms timeout ("timed out"), not on the gate's
            // hang guard (which would read "end of stream").
            BOOST_TEST(contains(r.error, c.error), r.error);
            BOOST_TEST(r.error.find(std::string(c.method) + " " + server.url() + "/x: ") == 0u, r.error);
            BOOST_TEST(server.requests() == c.attempts);
        }
    }
}

BOOST_AUTO_TEST_CASE(connection_refused_is_an_error_value) {
    unsigned short port;
    {
        boost::asio::io_context io;
        boost::asio::ip::tcp::acceptor a(io, {boost::asio::ip::make_address("127.0.0.1"), 0});
        port = a.local_endpoint().port();
    }
    RestConfig config;
    config.server = "https://127.0.0.1:" + std::to_string(port) + "/prefix/";
    Client c(config);
    auto r = c.request("POST", "/x", "{}", retries(1));
    BOOST_TEST(r.status == 0u);
    BOOST_TEST(r.error == "POST https://127.0.0.1:" + std::to_string(port) + "/prefix/x: dial tcp 127.0.0.1:" +
                              std::to_string(port) + ": Connection refused");
    RestConfig bad;
    bad.server = "ftp://h";
    auto b = Client(bad).request("GET", "/x");
    BOOST_TEST(b.error == "GET ftp://h/x: invalid URL \"ftp://h\": unsupported scheme \"ftp\"");
}

BOOST_AUTO_TEST_CASE(keep_alive_reuses_connections) {
    Certs certs;
    struct Case {
        const char* name;
        bool tls;
        std::string extra;
        int connections;
    };
    const Case cases[] = {
        {"TLS keep-alive", true, "", 1},
        {"plain keep-alive", false, "", 1},
        {"Connection: close", true, "Connection: close\r\n", 3},
    };
    for (auto const& c : cases) {
        BOOST_TEST_CONTEXT(c.name) {
            TestServer server(certs.pki, [&](const Seen&, int, const Send& send) {
                send(response(200, "OK", "{}", c.extra));
                return c.extra.empty();
            }, TestServerOptions{c.tls});
            Client client(certs.config(server));
            for (int i = 0; i < 3; ++i) BOOST_TEST(client.request("GET", "/x").status == 200u);
            BOOST_TEST(server.connections() == c.connections);
        }
    }
}

BOOST_AUTO_TEST_CASE(a_closed_idle_connection_is_replaced) {
    Certs certs;
    // Every answer closes the connection afterwards without saying so.
    TestServer server(certs.pki, [](const Seen&, int, const Send& send) { return send(response(200, "OK", "{}")), false; });
    Client client(certs.config(server));
    int answered = 0;
    for (const char* method : {"GET", "POST", "GET"}) {
        BOOST_TEST(client.request(method, "/x", {}, retries(0)).status == 200u);
        ++answered;
        // The event the next request must see: the server has closed this connection.
        BOOST_TEST_REQUIRE(waitFor([&] { return server.closed() >= answered; }),
                           "the server never closed connection " << answered);
    }
    BOOST_TEST(server.requests() == 3);
    BOOST_TEST(server.connections() == 3);
}

BOOST_AUTO_TEST_CASE(request_headers_and_token_rotation) {
    Certs certs;
    TestServer server(certs.pki, [](const Seen&, int, const Send& send) {
        send(response(200, "OK", "{}", "X-Custom-Header: Yes\r\n"));
        return true;
    });
    auto config = certs.config(server);
    config.server += "/prefix/";
    config.userAgent = "kube-test/1.0";
    config.tokenFile = certs.tmp.file("token");
    {
        Client missing(config);
        auto r = missing.request("GET", "/x");
        BOOST_TEST(r.status == 0u);
        BOOST_TEST(r.error == "GET " + server.url() + "/prefix/x: reading token file " + config.tokenFile + ": No such file or directory");
        BOOST_TEST(server.requests() == 0);
    }
    certs.tmp.write("token", "first\n");
    Client client(config);
    auto r = client.request("POST", "/api/v1/x?dryRun=All", R"({"a":1})", {"application/merge-patch+json", 5});
    BOOST_TEST(r.status == 200u, r.error);
    BOOST_TEST(r.header("x-custom-header") == "Yes");
    BOOST_TEST(r.header("X-CUSTOM-HEADER") == "Yes");
    BOOST_TEST(client.request("GET", "/y").status == 200u);
    certs.tmp.write("token", "second-token");
    BOOST_TEST(client.request("GET", "/z").status == 200u);
    fs::remove(config.tokenFile);
    BOOST_TEST(client.request("GET", "/w").status == 200u);  // the last token read stays in use
    auto seen = server.seen();
    BOOST_TEST_REQUIRE(seen.size() == 4u);
    BOOST_TEST(seen[0].method == "POST");
    BOOST_TEST(seen[0].target == "/prefix/api/v1/x?dryRun=All");
    BOOST_TEST(seen[0].host == "127.0.0.1:" + std::to_string(server.port()));
    BOOST_TEST(seen[0].userAgent == "kube-test/1.0");
    BOOST_TEST(seen[0].accept == "application/json");
    BOOST_TEST(seen[0].contentType == "application/merge-patch+json");
    BOOST_TEST(seen[0].body == R"({"a":1})");
    BOOST_TEST(seen[1].contentType == "");
    const char* tokens[] = {"Bearer first", "Bearer first", "Bearer second-token", "Bearer second-token"};
    for (std::size_t i = 0; i < seen.size(); ++i) BOOST_TEST(seen[i].authorization == tokens[i], "request " << i);
}

BOOST_AUTO_TEST_CASE(client_certificate_and_host_verification) {
    Certs certs;
    auto ok = [](const Seen&, int, const Send& send) { return send(response(200, "OK", "{}")), true; };
    {
        TestServer server(certs.pki, ok, TestServerOptions{true, "127.0.0.1", true});
        auto config = certs.config(server);
        config.clientCertPem = certs.other.cert;
        config.clientKeyPem = certs.other.key;
        BOOST_TEST(Client(config).request("GET", "/x").status == 200u);
        auto der = server.clientCertDer();
        BOOST_TEST_REQUIRE(!der.empty());
        BIO* bio = BIO_new_mem_buf(certs.other.cert.data(), static_cast<int>(certs.other.cert.size()));
        X509* want = PEM_read_bio_X509(bio, nullptr, nullptr, nullptr);
        unsigned char* wantDer = nullptr;
        int n = i2d_X509(want, &wantDer);
        BOOST_TEST(der == std::string(reinterpret_cast<char*>(wantDer), static_cast<std::size_t>(n)));
        OPENSSL_free(wantDer);
        X509_free(want);
        BIO_free(bio);
    }
    // The certificate names 127.0.0.1 and localhost, not 127.0.0.2.
    TestServer server(certs.pki, ok, TestServerOptions{true, "127.0.0.2"});
    auto config = certs.config(server);
    auto r = Client(config).request("GET", "/x", {}, retries(0));
    BOOST_TEST(r.status == 0u);
    BOOST_TEST(contains(r.error, ": tls: failed to verify certificate: IP address mismatch"), r.error);
    config.tlsServerName = "localhost";
    BOOST_TEST(Client(config).request("GET", "/x").status == 200u);
    BOOST_TEST(server.requests() == 1);
}

BOOST_AUTO_TEST_CASE(streams_deliver_lines) {
    Certs certs;
    Gate gate;
    auto chunk = [](const std::string& s) {
        std::ostringstream o;
        o << std::hex << s.size() << "\r\n" << s << "\r\n";
        return o.str();
    };
    const std::string chunkedHead = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n";
    struct Case {
        const char* name;
        bool tls;
        std::function<bool(const Send&)> answer;
        int stopAfter;  // onLine returns false after this many lines (0: never)
        bool stopFlagAfterFirstLine;
        unsigned status;
        std::vector<std::string> lines;
        std::string body;
        std::string error;
    };
    const Case cases[] = {
        {"chunked, lines split across chunks", true,
         [&](const Send& s) {
             s(chunkedHead + chunk("{\"a\":"));
             std::this_thread::sleep_for(50ms);
             s(chunk("1}\n{\"b\"") + chunk(":2}\r\n\n"));
             s("0\r\n\r\n");
             return true;
         },
         0, false, 200, {R"({"a":1})", R"({"b":2})", ""}, "", ""},
        {"close-delimited, last line unterminated", false,
         [&](const Send& s) { return s("HTTP/1.1 200 OK\r\nConnection: close\r\n\r\nx\ny\nz"), false; }, 0, false, 200,
         {"x", "y", "z"}, "", ""},
        {"content-length", true, [&](const Send& s) { return s(response(200, "OK", "p\nq\n")), true; }, 0, false, 200,
         {"p", "q"}, "", ""},
        {"callback ends the stream", true,
         [&](const Send& s) { return s(chunkedHead + chunk("1\n2\n3\n")), gate.wait(), false; }, 2, false, 200, {"1", "2"}, "", ""},
        {"stop flag while idle", true, [&](const Send& s) { return s(chunkedHead + chunk("only\n")), gate.wait(), false; }, 0,
         true, 200, {"only"}, "", ""},
        {"error status: body, no lines", true,
         [&](const Send& s) { return s(response(403, "Forbidden", R"({"kind":"Status","code":403})")), true; }, 0, false, 403,
         {}, R"({"kind":"Status","code":403})", ""},
        {"connection lost mid-stream", false,
         [&](const Send& s) { return s(chunkedHead + chunk("one\ntw")), false; }, 0, false, 200, {"one"}, "",
         ": read response body: partial message"},
    };
    for (auto const& c : cases) {
        BOOST_TEST_CONTEXT(c.name) {
            gate.open = false;
            TestServer server(certs.pki, [&](const Seen&, int, const Send& send) { return c.answer(send); },
                              TestServerOptions{c.tls});
            auto config = certs.config(server);
            config.timeout = 1000ms;  // bounds the headers only: the stream outlives it
            Client client(config);
            std::vector<std::string> lines;
            std::atomic<bool> stop{false};
            std::atomic<int> delivered{0};
            std::thread stopper;
            if (c.stopFlagAfterFirstLine)
                stopper = std::thread([&] {
                    waitFor([&] { return delivered.load() > 0; });
                    // Idle past the request timeout (a lower bound: load only makes it longer),
                    // which must not end a 2xx body; then the stop flag, which must.
                    std::this_thread::sleep_for(config.timeout + 500ms);
                    stop = true;
                });
            auto r = client.stream("/watch", [&](std::string_view line) {
                lines.emplace_back(line);
                ++delivered;
                return c.stopAfter == 0 || static_cast<int>(lines.size()) < c.stopAfter;
            }, stop);
            if (stopper.joinable()) stopper.join();
            gate.open = true;
            BOOST_TEST(r.status == c.status, r.error);
            BOOST_TEST(lines == c.lines, boost::test_tools::per_element());
            BOOST_TEST(r.body == c.body);
            if (c.error.empty())
                BOOST_TEST(r.error.empty(), r.error);
            else
                BOOST_TEST(contains(r.error, c.error), r.error);
        }
    }
}

BOOST_AUTO_TEST_CASE(stream_stop_before_an_answer) {
    Certs certs;
    Gate gate;
    TestServer server(certs.pki, [&](const Seen&, int, const Send&) { return gate.wait(), false; });
    auto config = certs.config(server);
    config.timeout = 0ms;  // no deadline: only the stop flag ends the wait
    Client client(config);
    std::atomic<bool> stop{false};
    std::thread stopper([&] {
        waitFor([&] { return server.requests() > 0; });  // the client now waits for the answer
        stop = true;
    });
    auto r = client.stream("/watch", [](std::string_view) { return true; }, stop);
    stopper.join();
    gate.open = true;
    BOOST_TEST(r.status == 0u);
    // Ended by the stop flag ("stopped"), not by the gate's hang guard closing the connection.
    BOOST_TEST(contains(r.error, ": read response: stopped"), r.error);
}
