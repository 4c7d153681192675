// What the embedded Kubernetes API costs over reading the store directly, in one process on
// loopback: the API server over a SQLite store, served over TLS the way
// core/cli/embedded_api.cpp serves it, and a keep-alive Boost.Beast HTTPS client. The store runs
// with synchronous=NORMAL (`run` uses FULL): the writes here are load, not what is measured, and
// a shared disk's fsync stalls would otherwise swamp the figures (store_bench measures them).
//   api_bench [N objects to list] [M watch events] [repetitions]
// Prints its own table, then one ROW line per measurement for scripts/bench.sh (bench_support.hpp).
// Measures (medians of the repetitions; connect and TLS handshake are outside every timing):
//   list   N ConfigMaps: store.list vs GET .../configmaps, body read and JSON-parsed;
//   get    one ConfigMap at a time: store.get vs GET .../configmaps/<name>, parsed; and the same for
//          a TrainJob (a kind a CRD serves, .../trainjobs/<name>);
//   watch  M creates made on the store by another thread, timed from the first create until the
//          reader has seen the M-th: a poller of store.changesSince(rv, 500) (waiting, after an
//          empty poll, as long as the server's watch stream does) vs a ?watch=true stream whose
//          lines are parsed; "backlog" is the same with the M changes already made.
#include "bench_support.hpp"

#include "core/apiserver/api_server.hpp"
#include "core/apiserver/bootstrap.hpp"
#include "core/server/http.hpp"
#include "core/server/webhook.hpp"
#include "core/store/sqlite_store.hpp"

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>
#include <vector>

using namespace trainer::core;
namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
namespace ssl = asio::ssl;
using Clock = std::chrono::steady_clock;

namespace {

constexpr const char* kWatchNamespace = "watch-bench";
constexpr int kGetRequests = 500;
// What the server's watch stream waits after an empty poll (server::ResponseStream::idle()).
constexpr std::chrono::milliseconds kPollIdle{50};
// Longest wait for a reply or for the feed before the benchmark gives up.
constexpr std::chrono::seconds kTimeout{30};

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

double seconds(Clock::time_point a, Clock::time_point b) { return std::chrono::duration<double>(b - a).count(); }

json::object configMap(const std::string& ns, const std::string& name) {
    return json::object{{"apiVersion", "v1"},
                        {"kind", "ConfigMap"},
                        {"metadata", {{"name", name}, {"namespace", ns}}},
                        {"data", {{"payload", std::string(300, 'x')}}}};
}

// The API server on a temp store, served over HTTPS on 127.0.0.1:<free port> by two io threads.
class Server {
public:
    ~Server() {
        if (http_) http_->stop();
        guard_.reset();
        io_.stop();
        for (auto& t : threads_) t.join();
        http_.reset();
        store_.reset();
        std::error_code ec;
        std::filesystem::remove_all(dir_, ec);
    }

    // Returns an error message, empty on success.
    std::string start() {
        dir_ = std::filesystem::temp_directory_path() / ("api_bench_" + std::to_string(::getpid()));
        std::filesystem::create_directories(dir_);
        SqliteStoreOptions so;
        so.durable = false;
        auto opened = SqliteStore::open((dir_ / "store.db").string(), so);
        if (!opened.store) return opened.error;
        store_ = std::move(opened.store);
        if (auto err = apiserver::ensureCredentials((dir_ / "certs").string(), creds_); !err.empty()) return err;
        apiserver::ApiServerOptions ao;
        ao.token = creds_.token;
        api_ = std::make_unique<apiserver::ApiServer>(*store_, resources_, nullptr, ao);
        if (auto err = api_->initialize(); !err.empty()) return err;
        certs_ = std::make_unique<server::CertWatcher>(creds_.certDir);
        if (auto err = certs_->load(); !err.empty()) return err;
        server::ServerOptions ho;
        ho.name = "apiserver";
        ho.bindAddress = "127.0.0.1:0";
        ho.tls = certs_->provider();
        ho.bodyLimit = ao.bodyLimit;
        ho.headerTimeout = std::chrono::seconds(60);
        ho.errors = api_->errorResponder();
        http_ = std::make_unique<server::HttpServer>(io_, ho, api_->routes());
        if (auto err = http_->start(); !err.empty()) return err;
        for (int i = 0; i < 2; ++i) threads_.emplace_back([this] { io_.run(); });
        return {};
    }

    SqliteStore& store() { return *store_; }
    const apiserver::Credentials& credentials() const { return creds_; }
    unsigned short port() const { return http_->port(); }

private:
    std::filesystem::path dir_;
    std::unique_ptr<SqliteStore> store_;
    apiserver::Credentials creds_;
    apiserver::ResourceRegistry resources_;
    std::unique_ptr<apiserver::ApiServer> api_;
    std::unique_ptr<server::CertWatcher> certs_;
    asio::io_context io_;
    asio::executor_work_guard<asio::io_context::executor_type> guard_ = asio::make_work_guard(io_);
    std::unique_ptr<server::HttpServer> http_;
    std::vector<std::thread> threads_;
};

struct Reply {
    std::string error;  // empty on success
    unsigned status = 0;
    std::string body;
};

// One keep-alive HTTPS connection with synchronous calls, verifying the server against the CA.
class Client {
public:
    Client(const apiserver::Credentials& creds) : token_(creds.token) {
        tls_.set_verify_mode(ssl::verify_peer);
        beast::error_code ec;
        tls_.add_certificate_authority(asio::buffer(creds.caPem), ec);
        stream_ = std::make_unique<ssl::stream<asio::ip::tcp::socket>>(io_, tls_);
    }

    // Connects and completes the TLS handshake; returns an error message, empty on success.
    std::string connect(unsigned short port) {
        beast::error_code ec;
        stream_->next_layer().connect({asio::ip::make_address("127.0.0.1"), port}, ec);
        if (ec) return "connect: " + ec.message();
        timeval tv{static_cast<time_t>(kTimeout.count()), 0};  // a stalled server fails a read
        ::setsockopt(stream_->next_layer().native_handle(), SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
        stream_->set_verify_callback(ssl::host_name_verification("127.0.0.1"));
        stream_->handshake(ssl::stream_base::client, ec);
        return ec ? "TLS handshake: " + ec.message() : "";
    }

    Reply get(const std::string& target) {
        Reply r;
        if (r.error = send(target); !r.error.empty()) return r;
        http::response_parser<http::string_body> parser;
        parser.body_limit(std::numeric_limits<std::uint64_t>::max());
        beast::error_code ec;
        http::read(*stream_, buffer_, parser, ec);
        if (ec) r.error = "read: " + ec.message();
        r.status = parser.get().result_int();
        r.body = std::move(parser.get().body());
        return r;
    }

    // Sends a watch request and reads the response header; events() then reads its lines.
    std::string openWatch(const std::string& target) {
        if (auto err = send(target); !err.empty()) return err;
        watch_.emplace();
        watch_->body_limit(std::numeric_limits<std::uint64_t>::max());
        chunkCallback_ = [this](std::uint64_t, std::string_view data, beast::error_code&) {
            pending_.append(data);
            return data.size();
        };
        watch_->on_chunk_body(chunkCallback_);
        pending_.clear();
        beast::error_code ec;
        http::read_header(*stream_, buffer_, *watch_, ec);
        if (ec) return "read header: " + ec.message();
        if (watch_->get().result_int() != 200) return "watch answered " + std::to_string(watch_->get().result_int());
        return {};
    }

    // Reads and parses watch events until `want` ADDED events arrived; returns an error message.
    std::string awaitAdded(int want) {
        for (int seen = 0; seen < want;) {
            if (watch_->is_done()) return "the watch ended after " + std::to_string(seen) + " events";
            beast::error_code ec;
            http::read_some(*stream_, buffer_, *watch_, ec);
            if (ec) return "watch read: " + ec.message();
            std::size_t start = 0;
            for (auto nl = pending_.find('\n'); nl != std::string::npos; nl = pending_.find('\n', start)) {
                auto v = json::parse(std::string_view(pending_).substr(start, nl - start), ec);
                start = nl + 1;
                auto* type = !ec && v.is_object() ? v.as_object().if_contains("type") : nullptr;
                if (!type || !type->is_string()) return "unparsable watch event";
                if (type->as_string() == "ADDED") ++seen;
            }
            pending_.erase(0, start);
        }
        return {};
    }

    void close() {
        beast::error_code ec;
        stream_->next_layer().close(ec);
    }

private:
    std::string send(const std::string& target) {
        http::request<http::empty_body> req{http::verb::get, target, 11};
        req.set(http::field::host, "127.0.0.1");
        req.set(http::field::authorization, "Bearer " + token_);
        req.set(http::field::accept, "application/json");
        req.keep_alive(true);
        beast::error_code ec;
        http::write(*stream_, req, ec);
        return ec ? "write: " + ec.message() : "";
    }

    std::string token_;
    asio::io_context io_;
    ssl::context tls_{ssl::context::tls_client};
    std::unique_ptr<ssl::stream<asio::ip::tcp::socket>> stream_;
    beast::flat_buffer buffer_;
    std::optional<http::response_parser<http::string_body>> watch_;
    std::function<std::size_t(std::uint64_t, std::string_view, beast::error_code&)> chunkCallback_;
    std::string pending_;
};

// One comparison: seconds per repetition of the direct and the HTTPS way, `units` each.
struct Row {
    std::string name;
    const char* unit;
    int units = 0;
    std::vector<double> direct, https;
};

void printRuns(const Row& row, const char* way, const std::vector<double>& runs) {
    auto [lo, hi] = std::minmax_element(runs.begin(), runs.end());
    double m = median(runs);
    std::printf("%-26s %-7s median %9.2f ms (min %.2f, max %.2f, %zu runs)  %10.0f %s/s\n", row.name.c_str(), way,
                m * 1e3, *lo * 1e3, *hi * 1e3, runs.size(), row.units / m, row.unit);
}

// LIST: store.list vs GET of the collection, parsed and counted.
std::string benchList(Server& s, Client& c, int n, Row& row) {
    for (auto& runs : {&row.direct, &row.https}) {
        auto t0 = Clock::now();
        size_t count = 0;
        if (runs == &row.direct) {
            count = s.store().list("v1", "ConfigMap", std::string("default")).value.size();
        } else {
            auto r = c.get("/api/v1/namespaces/default/configmaps");
            if (!r.error.empty() || r.status != 200) return "list: " + r.error + " status " + std::to_string(r.status);
            beast::error_code ec;
            auto v = json::parse(r.body, ec);
            auto* items = !ec && v.is_object() ? v.as_object().if_contains("items") : nullptr;
            count = items && items->is_array() ? items->as_array().size() : 0;
        }
        runs->push_back(seconds(t0, Clock::now()));
        if (count != static_cast<size_t>(n)) return "list returned " + std::to_string(count) + " objects, not " + std::to_string(n);
    }
    return {};
}

// One kind's objects for the GET rows: its key in the store and its path in the API, the i-th named
// <prefix><i>.
struct Kind {
    std::string apiVersion, kind, collection, prefix;
    ObjectKey key(int i) const { return ObjectKey{apiVersion, kind, "default", prefix + std::to_string(i)}; }
    std::string path(int i) const { return collection + "/" + prefix + std::to_string(i); }
};
const Kind kConfigMaps{"v1", "ConfigMap", "/api/v1/namespaces/default/configmaps", "cm-"};
// A kind a CustomResourceDefinition serves: its resource carries the CRD's whole schema.
const Kind kTrainJobs{"trainer.kubeflow.org/v1alpha1", "TrainJob", "/apis/trainer.kubeflow.org/v1alpha1/namespaces/default/trainjobs",
                      "tj-"};

// GET one object kGetRequests times (cycling through the n names) vs store.get.
std::string benchGet(Server& s, Client& c, const Kind& kind, int n, Row& row) {
    auto t0 = Clock::now();
    for (int i = 0; i < kGetRequests; ++i)
        if (!s.store().get(kind.key(i % n)).found()) return "store.get failed";
    auto t1 = Clock::now();
    for (int i = 0; i < kGetRequests; ++i) {
        auto r = c.get(kind.path(i % n));
        beast::error_code ec;
        auto v = json::parse(r.body, ec);
        if (!r.error.empty() || r.status != 200 || ec || !v.is_object()) return "get: " + r.error + " status " + std::to_string(r.status);
    }
    auto t2 = Clock::now();
    row.direct.push_back(seconds(t0, t1));
    row.https.push_back(seconds(t1, t2));
    return {};
}

// A TrainJob as a user would write it (no admission here: reads are what is measured).
json::object trainJob(const std::string& name) {
    return json::object{{"apiVersion", "trainer.kubeflow.org/v1alpha1"},
                        {"kind", "TrainJob"},
                        {"metadata", {{"name", name}, {"namespace", "default"}}},
                        {"spec", {{"runtimeRef", {{"name", "torch-distributed"}}},
                                  {"trainer", {{"numNodes", 2}, {"command", json::array{"torchrun", "train.py"}}}}}}};
}

// Creates `m` ConfigMaps named <prefix><i>; records when the first create started.
std::string createMany(Store& store, const std::string& prefix, int m, Clock::time_point& first) {
    first = Clock::now();
    for (int i = 0; i < m; ++i)
        if (auto r = store.create(configMap(kWatchNamespace, prefix + std::to_string(i))); !r.ok()) return r.message;
    return {};
}

// Polls the change feed from `rv` until `m` changes were seen; returns when the last arrived,
// or nullopt after kTimeout.
std::optional<Clock::time_point> pollFeed(const Store& store, int64_t rv, int m) {
    auto deadline = Clock::now() + kTimeout;
    for (int seen = 0; seen < m;) {
        auto changes = store.changesSince(rv, 500).value;
        for (auto const& c : changes) rv = c.revision;
        seen += static_cast<int>(changes.size());
        if (!changes.empty()) continue;
        if (Clock::now() > deadline) return std::nullopt;
        std::this_thread::sleep_for(kPollIdle);
    }
    return Clock::now();
}

// Opens a watch on its own connection (set up before any timing) from the store's revision.
std::string openWatch(Server& s, Client& c) {
    if (auto err = c.connect(s.port()); !err.empty()) return err;
    return c.openWatch(std::string("/api/v1/namespaces/") + kWatchNamespace +
                       "/configmaps?watch=true&resourceVersion=" + std::to_string(s.store().revision().value));
}

// WATCH while a writer thread makes m creates: direct feed poller, then the HTTPS watch.
std::string benchWatchLive(Server& s, int m, int rep, Row& row) {
    std::string werr;
    Clock::time_point first;
    int64_t rv = s.store().revision().value;
    std::thread writer([&] { werr = createMany(s.store(), "live-d" + std::to_string(rep) + "-", m, first); });
    auto polled = pollFeed(s.store(), rv, m);
    writer.join();
    if (!werr.empty()) return werr;
    if (!polled) return "the change feed did not show the creates";
    row.direct.push_back(seconds(first, *polled));

    Client c(s.credentials());
    if (auto err = openWatch(s, c); !err.empty()) return err;
    writer = std::thread([&] { werr = createMany(s.store(), "live-h" + std::to_string(rep) + "-", m, first); });
    auto err = c.awaitAdded(m);
    auto last = Clock::now();
    writer.join();
    c.close();
    if (!err.empty() || !werr.empty()) return err + werr;
    row.https.push_back(seconds(first, last));
    return {};
}

// WATCH of m changes already in the feed: from the request until the m-th change was seen.
std::string benchWatchBacklog(Server& s, int m, int rep, Row& row) {
    int64_t rv = s.store().revision().value;
    Clock::time_point first;
    if (auto err = createMany(s.store(), "backlog" + std::to_string(rep) + "-", m, first); !err.empty()) return err;
    auto t0 = Clock::now();
    auto polled = pollFeed(s.store(), rv, m);
    if (!polled) return "the change feed did not show the creates";
    row.direct.push_back(seconds(t0, *polled));

    Client c(s.credentials());
    if (auto err = c.connect(s.port()); !err.empty()) return err;
    t0 = Clock::now();
    auto err = c.openWatch(std::string("/api/v1/namespaces/") + kWatchNamespace +
                           "/configmaps?watch=true&resourceVersion=" + std::to_string(rv));
    if (err.empty()) err = c.awaitAdded(m);
    auto last = Clock::now();
    c.close();
    if (!err.empty()) return err;
    row.https.push_back(seconds(t0, last));
    return {};
}

std::string rate(const Row& r, double secs) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.0f %s/s", r.units / secs, r.unit);
    return buf;
}

void printTable(const std::vector<Row>& rows) {
    std::printf("\n%-26s %20s %20s %13s\n", "measurement", "direct", "https", "https/direct");
    for (auto const& r : rows) {
        double d = median(r.direct), h = median(r.https);
        std::printf("%-26s %20s %20s %12.2fx\n", r.name.c_str(), rate(r, d).c_str(), rate(r, h).c_str(), h / d);
    }
    std::printf("(ratio: median time of the HTTPS way over the direct way; same work, same machine)\n");
    // scripts/bench.sh's table: the figures the issue asks for beside the targets, without one.
    for (auto const& r : rows) {
        double d = median(r.direct), h = median(r.https);
        trainer::bench::row("API " + r.name + ": over HTTPS vs the store", rate(r, h), rate(r, d) + " (store directly)",
                            trainer::bench::fixed(h / d) + "x", "(no target)", "-");
    }
}

int fail(const std::string& what, const std::string& err) {
    std::fprintf(stderr, "api_bench: %s: %s\n", what.c_str(), err.c_str());
    return 1;
}

}  // namespace

int main(int argc, char** argv) {
    int n = argc > 1 ? std::atoi(argv[1]) : 2000;
    int m = argc > 2 ? std::atoi(argv[2]) : 2000;
    int reps = argc > 3 ? std::atoi(argv[3]) : 5;
    if (n < 1 || m < 1 || reps < 1) return fail("usage", "api_bench [N objects] [M watch events] [repetitions]");

    Server s;
    if (auto err = s.start(); !err.empty()) return fail("start", err);
    auto t0 = Clock::now();
    for (int i = 0; i < n; ++i)
        if (auto r = s.store().create(configMap("default", "cm-" + std::to_string(i))); !r.ok()) return fail("create", r.message);
    constexpr int kTrainJobCount = 50;
    for (int i = 0; i < kTrainJobCount; ++i)
        if (auto r = s.store().create(trainJob(kTrainJobs.prefix + std::to_string(i))); !r.ok()) return fail("create TrainJob", r.message);
    if (auto r = s.store().create(json::object{{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", {{"name", kWatchNamespace}}}});
        !r.ok())
        return fail("create namespace", r.message);
    std::printf("setup: %d ConfigMaps (%zu bytes of data each) created in %.2f s; API on 127.0.0.1:%u\n", n,
                std::string(300, 'x').size(), seconds(t0, Clock::now()), s.port());

    Client c(s.credentials());
    if (auto err = c.connect(s.port()); !err.empty()) return fail("connect", err);
    std::vector<Row> rows{{"list N=" + std::to_string(n), "objects", n, {}, {}},
                          {"get one object", "requests", kGetRequests, {}, {}},
                          {"get one TrainJob", "requests", kGetRequests, {}, {}},
                          {"watch live M=" + std::to_string(m), "events", m, {}, {}},
                          {"watch backlog M=" + std::to_string(m), "events", m, {}, {}}};
    for (int rep = 0; rep < reps; ++rep) {
        if (auto err = benchList(s, c, n, rows[0]); !err.empty()) return fail("list", err);
        if (auto err = benchGet(s, c, kConfigMaps, n, rows[1]); !err.empty()) return fail("get", err);
        if (auto err = benchGet(s, c, kTrainJobs, kTrainJobCount, rows[2]); !err.empty()) return fail("get TrainJob", err);
        if (auto err = benchWatchLive(s, m, rep, rows[3]); !err.empty()) return fail("watch", err);
        if (auto err = benchWatchBacklog(s, m, rep, rows[4]); !err.empty()) return fail("watch backlog", err);
    }
    for (auto const& r : rows) {
        printRuns(r, "direct", r.direct);
        printRuns(r, "https", r.https);
    }
    printTable(rows);
    return 0;
}
