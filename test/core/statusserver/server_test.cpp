// The status server's protocol end to end: the real StatusServer over real HTTPS on 127.0.0.1:0
// (a CA and serving certificate from core/server/certs.hpp, served through CertWatcher), asked
// by real curl (--cacert). Each request must get what upstream's server answers
// (https://github.com/kubeflow/trainer/blob/master/pkg/statusserver/server.go, middleware.go):
// the status code, the metav1.Status body byte for byte, the content type; and a refused request
// must leave the TrainJob exactly as it was. What each request gets is listed in
// core/statusserver/README.md. Waits are bounded generously; nothing asserts on wall-clock time
// (the rate limiter runs on a FakeClock).
#define BOOST_TEST_MODULE test_core_statusserver_protocol
#include <boost/test/unit_test.hpp>

#include "core/api/kinds.hpp"
#include "core/server/certs.hpp"
#include "core/server/webhook.hpp"
#include "core/statusserver/status_server.hpp"
#include "test_support.hpp"

#include <boost/asio/connect.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/write.hpp>
#include <boost/json.hpp>

#include <array>
#include <atomic>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

namespace asio = boost::asio;
namespace ssl = asio::ssl;
namespace json = boost::json;
namespace core = trainer::core;
namespace ss = trainer::core::statusserver;
namespace srv = trainer::core::server;
using tcp = asio::ip::tcp;
using trainer::test::HttpResult;

const std::string kNs = "team-a";
const std::string kJob = "job1";
const std::string kToken = "token:team-a/job1";  // what FakeAuthorizer allows for team-a/job1

std::string statusPath(const std::string& ns, const std::string& name) {
    return "/apis/trainer.kubeflow.org/v1alpha1/namespaces/" + ns + "/trainjobs/" + name + "/status";
}
const std::string kPath = statusPath(kNs, kJob);

// A metav1.Status failure as upstream's badRequest writes it with json.Encoder (field order of
// the Go struct, kind/apiVersion empty and omitted, a trailing newline). `message` must hold no
// character Go would escape other than '"'.
std::string failure(unsigned code, const std::string& reason, const std::string& message,
                    const std::string& details = "") {
    std::string quoted;
    for (char c : message) {
        BOOST_REQUIRE(c != '\\' && c != '<' && c != '>' && c != '&' && static_cast<unsigned char>(c) >= 0x20);
        if (c == '"') quoted += '\\';
        quoted += c;
    }
    std::string out = R"({"metadata":{},"status":"Failure","message":")" + quoted + R"(","reason":")" + reason + "\"";
    if (!details.empty()) out += ",\"details\":" + details;
    return out + ",\"code\":" + std::to_string(code) + "}\n";
}

const std::string kForbidden = failure(403, "Forbidden", "Forbidden");
const std::string kInternal = failure(500, "InternalError", "Internal error");
const std::string kInvalidPayload = failure(422, "Invalid", "Invalid payload");
const std::string kNotFound = failure(404, "NotFound", "Not found");
const std::string kJobNotFound = failure(404, "NotFound", "Train job not found");
const std::string kTooLarge = failure(413, "RequestEntityTooLarge", "Payload too large");
// The API server's 422 for an object the CRD schema refuses, as upstream relays its message.
std::string invalid(const std::string& detail) {
    return failure(422, "Invalid", "TrainJob.trainer.kubeflow.org \"" + kJob + "\" is invalid: " + detail);
}

std::string shellQuote(const std::string& s) {
    std::string out = "'";
    for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return out + "'";
}

// One request with curl: `authorization` is the Authorization header value (nullopt: none sent;
// "" sends it empty); a nullopt body sends none.
struct Call {
    std::string method = "POST";
    std::string path = kPath;
    std::optional<std::string> body = std::string("{}");
    std::optional<std::string> authorization = "Bearer " + kToken;
    std::string extraArgs;  // more curl arguments
};

// A StatusServer over HTTPS on 127.0.0.1:0 with a seeded TrainJob team-a/job1; every store read
// and status write is counted (and can be intercepted through `onUpdateStatus` / `onGet`).
struct Harness {
    explicit Harness(const std::function<void(ss::StatusServerOptions&)>& tweak = {}, int threads = 2)
        : dir(trainer::test::tempDir("protocol-" + std::to_string(++instances))) {
        auto certDir = (dir / "certs").string();
        auto err = srv::generateCertificates(certDir, {});
        BOOST_REQUIRE_MESSAGE(err.empty(), err);
        caFile = certDir + "/ca.crt";
        certs = std::make_unique<srv::CertWatcher>(certDir);
        BOOST_REQUIRE(certs->load().empty());

        seeded = trainer::test::seedTrainJob(store.inner, kNs, kJob);
        BOOST_REQUIRE(!seeded.empty());
        store.onGet = [this](const core::ObjectKey& key) {
            ++gets;
            if (onGet) return onGet(key);
            return store.inner.get(key);
        };
        store.onUpdateStatus = [this](const json::object& obj) {
            ++statusWrites;
            if (onUpdateStatus) return onUpdateStatus(obj);
            return store.inner.updateStatus(obj);
        };

        ss::StatusServerOptions o;
        o.bindAddress = "127.0.0.1:0";
        o.tls = certs->provider();
        o.clock = &clock;
        o.qps = -1;  // unlimited unless a test sets a budget
        if (tweak) tweak(o);
        io = std::make_unique<trainer::test::IoRunner>(threads);
        server = std::make_unique<ss::StatusServer>(io->io, store, authorizer, o);
        auto started = server->start();
        BOOST_REQUIRE_MESSAGE(started.empty(), started);
        BOOST_REQUIRE(server->listening());
        BOOST_REQUIRE(server->port() != 0);
    }
    ~Harness() {
        server->stop();
        server.reset();
        io.reset();  // joins the io threads before the store and the authorizer go
        std::error_code ec;
        std::filesystem::remove_all(dir, ec);
    }

    std::string url(const std::string& path) const { return "https://127.0.0.1:" + std::to_string(server->port()) + path; }

    HttpResult send(const Call& c) {
        std::string args = "--cacert " + shellQuote(caFile) + " -X " + c.method;
        if (c.authorization) {
            // -H 'Authorization;' is curl's way to send the header with an empty value.
            args += c.authorization->empty() ? " -H 'Authorization;'" : " -H " + shellQuote("Authorization: " + *c.authorization);
        }
        if (c.body) {
            auto file = dir / ("body-" + std::to_string(++bodies));
            trainer::test::writeFile(file, *c.body);
            args += " -H 'Content-Type: application/json' --data-binary @" + shellQuote(file.string());
        }
        if (!c.extraArgs.empty()) args += " " + c.extraArgs;
        args += " " + shellQuote(url(c.path));
        auto r = trainer::test::curl(args);
        BOOST_TEST_REQUIRE(r.curlExit == 0, "curl " << c.method << " " << c.path << " failed: exit " << r.curlExit);
        return r;
    }
    HttpResult post(const std::string& body) {
        Call c;
        c.body = body;
        return send(c);
    }

    core::ObjectKey key(const std::string& name = kJob) const {
        return core::ObjectKey{std::string(core::kTrainerApiVersion), "TrainJob", kNs, name};
    }
    json::object trainJob() const {
        auto o = store.inner.get(key());
        BOOST_REQUIRE(o.found());
        return o.object;
    }
    // status.trainerStatus of the stored TrainJob (null when absent).
    json::value trainerStatus() const {
        auto job = trainJob();
        const auto* ts = job.at("status").as_object().if_contains("trainerStatus");
        return ts ? *ts : json::value();
    }

    // What a refused request must leave untouched: the store's revision and the whole TrainJob.
    struct Snapshot {
        int64_t revision;
        json::object job;
    };
    Snapshot snapshot() const { return {store.inner.revision().value, trainJob()}; }
    bool unchanged(const Snapshot& s) const { return store.inner.revision().value == s.revision && trainJob() == s.job; }

    static inline std::atomic<int> instances{0};
    std::filesystem::path dir;
    std::string caFile;
    trainer::test::InterceptStore store;
    trainer::test::FakeAuthorizer authorizer;
    core::controller::FakeClock clock;
    json::object seeded;
    std::atomic<int> gets{0};
    std::atomic<int> statusWrites{0};
    std::function<core::ReadResult(const core::ObjectKey&)> onGet;
    std::function<core::StoreResult(const json::object&)> onUpdateStatus;
    int bodies = 0;
    std::unique_ptr<srv::CertWatcher> certs;
    std::unique_ptr<trainer::test::IoRunner> io;
    std::unique_ptr<ss::StatusServer> server;
};

// Checks one answer: status, exact body, content type.
void expectAnswer(const HttpResult& r, int status, const std::string& body,
                  const std::string& contentType = "application/json") {
    BOOST_TEST(r.status == status);
    BOOST_TEST(r.body == body);
    BOOST_TEST(r.contentType == contentType);
}

const std::string kDocumentedPayload = R"({"trainerStatus": {"progressPercentage": 45, "estimatedRemainingSeconds": 795649,
    "metrics": [{"name": "loss", "value": "0.2347"}, {"name": "eval_loss", "value": "0.2451"}],
    "lastUpdatedTime": "2025-01-23T10:30:45Z"}})";

std::string metricsPayload(int n) {
    std::string metrics;
    for (int i = 0; i < n; ++i) metrics += (i ? "," : "") + std::string(R"({"name":"m)") + std::to_string(i) + R"(","value":"1"})";
    return R"({"trainerStatus":{"metrics":[)" + metrics + R"(],"lastUpdatedTime":"2025-01-23T10:30:45Z"}})";
}

core::StoreResult storeFailure(core::StoreStatus status, std::string message) {
    core::StoreResult r;
    r.status = status;
    r.message = std::move(message);
    return r;
}

// A raw TLS client (trusting the harness's CA) that can stall mid-request, and waits, bounded,
// for the server to drop it.
class RawClient {
public:
    // `tls` false: only the TCP connection (no handshake is ever sent).
    RawClient(unsigned short port, const std::string& caFile, bool tls) : ctx_(ssl::context::tls_client) {
        ctx_.load_verify_file(caFile);
        ctx_.set_verify_mode(ssl::verify_peer);
        stream_ = std::make_unique<ssl::stream<tcp::socket>>(io_, ctx_);
        stream_->next_layer().connect(tcp::endpoint(asio::ip::make_address("127.0.0.1"), port));
        if (tls) {
            stream_->set_verify_callback(ssl::host_name_verification("127.0.0.1"));
            stream_->handshake(ssl::stream_base::client);
        }
        tls_ = tls;
    }
    void send(const std::string& bytes) { asio::write(*stream_, asio::buffer(bytes)); }

    struct Ending {
        bool closedByServer = false;  // false: still open when the bound passed
        std::string received;         // application bytes before the close
    };
    Ending awaitClose(std::chrono::seconds bound) {
        Ending out;
        bool timedOut = false;
        std::array<char, 4096> buf{};
        asio::steady_timer timer(io_, bound);
        timer.async_wait([&](const boost::system::error_code& ec) {
            if (ec) return;
            timedOut = true;
            boost::system::error_code ignored;
            stream_->next_layer().close(ignored);
        });
        std::function<void()> readMore = [&] {
            auto done = [&](const boost::system::error_code& ec, std::size_t n) {
                out.received.append(buf.data(), n);
                if (ec) {
                    out.closedByServer = !timedOut;
                    timer.cancel();
                    return;
                }
                readMore();
            };
            if (tls_) stream_->async_read_some(asio::buffer(buf), done);
            else stream_->next_layer().async_read_some(asio::buffer(buf), done);
        };
        readMore();
        io_.restart();
        io_.run();
        return out;
    }

private:
    asio::io_context io_;
    ssl::context ctx_;
    std::unique_ptr<ssl::stream<tcp::socket>> stream_;
    bool tls_ = false;
};

std::string requestHead(const std::string& auth, std::size_t contentLength) {
    return "POST " + kPath + " HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer " + auth +
           "\r\nContent-Type: application/json\r\nContent-Length: " + std::to_string(contentLength) + "\r\n\r\n";
}

}  // namespace

BOOST_AUTO_TEST_SUITE(accepted)

// Upstream's documented payload: 200 with the parsed request echoed (json.Encoder), and
// status.trainerStatus written while the rest of the status stays.
BOOST_AUTO_TEST_CASE(valid_update_is_written_and_echoed) {
    Harness h;
    auto before = h.trainJob();
    auto r = h.post(kDocumentedPayload);
    expectAnswer(r, 200,
                 R"({"trainerStatus":{"progressPercentage":45,"estimatedRemainingSeconds":795649,"metrics":[{"name":"loss","value":"0.2347"},{"name":"eval_loss","value":"0.2451"}],"lastUpdatedTime":"2025-01-23T10:30:45Z"}})"
                 "\n");
    BOOST_TEST(h.authorizer.calls == 1);
    auto after = h.trainJob();
    const auto& status = after.at("status").as_object();
    BOOST_TEST(json::value(status.at("trainerStatus")) ==
               json::parse(R"({"progressPercentage":45,"estimatedRemainingSeconds":795649,"metrics":[{"name":"loss","value":"0.2347"},{"name":"eval_loss","value":"0.2451"}],"lastUpdatedTime":"2025-01-23T10:30:45Z"})"));
    const auto& old = before.at("status").as_object();
    BOOST_TEST(status.at("conditions") == old.at("conditions"));
    BOOST_TEST(status.at("jobsStatus") == old.at("jobsStatus"));
    BOOST_TEST(after.at("spec") == before.at("spec"));
    BOOST_TEST(after.at("metadata").at("resourceVersion") != before.at("metadata").at("resourceVersion"));
    BOOST_TEST(after.at("metadata").at("generation") == before.at("metadata").at("generation"));
}

// Upstream's integration test "Should overwrite existing status, not merge": a member the new
// request leaves out is gone.
BOOST_AUTO_TEST_CASE(a_new_update_replaces_the_old_one) {
    Harness h;
    BOOST_TEST_REQUIRE(h.post(R"({"trainerStatus":{"progressPercentage":30,"metrics":[{"name":"loss","value":"1"}],"lastUpdatedTime":"2025-01-23T10:30:45Z"}})").status == 200);
    auto r = h.post(R"({"trainerStatus":{"estimatedRemainingSeconds":60,"lastUpdatedTime":"2025-01-23T10:31:45Z"}})");
    expectAnswer(r, 200, R"({"trainerStatus":{"estimatedRemainingSeconds":60,"lastUpdatedTime":"2025-01-23T10:31:45Z"}})" "\n");
    BOOST_TEST(h.trainerStatus() == json::parse(R"({"estimatedRemainingSeconds":60,"lastUpdatedTime":"2025-01-23T10:31:45Z"})"));
}

// Upstream's "Should accept an empty update request but not overwrite existing status": no
// trainerStatus (absent, null, or a null body) is echoed with 200 and nothing is written, even
// for a TrainJob that does not exist (upstream never asks the API server then).
BOOST_AUTO_TEST_CASE(an_empty_update_writes_nothing) {
    Harness h;
    BOOST_TEST_REQUIRE(h.post(R"({"trainerStatus":{"progressPercentage":40,"lastUpdatedTime":"2025-01-23T10:30:45Z"}})").status == 200);
    auto s = h.snapshot();
    for (std::string body : {"{}", R"({"trainerStatus":null})", "null", R"({"unknown":{"trainerStatus":1}})"}) {
        BOOST_TEST_CONTEXT("body " << body) {
            expectAnswer(h.post(body), 200, "{}\n");
            BOOST_TEST(h.unchanged(s));
        }
    }
    Call missing;
    missing.path = statusPath(kNs, "gone");
    missing.authorization = "Bearer token:team-a/gone";
    expectAnswer(h.send(missing), 200, "{}\n");
    BOOST_TEST(h.unchanged(s));
    BOOST_TEST(h.statusWrites == 1);  // the first (real) update only
}

// encoding/json leniencies upstream inherits: unknown members are ignored, keys match
// case-insensitively, the first JSON value is all that is read, and metav1.Time keeps whole
// seconds in UTC.
BOOST_AUTO_TEST_CASE(go_decoding_leniencies) {
    Harness h;
    auto r = h.post(R"({"other":true,"TrainerStatus":{"PROGRESSPERCENTAGE":10,"unknown":[1,2],"lastUpdatedTime":"2025-01-23T12:30:45.123+02:00"}} trailing junk)");
    expectAnswer(r, 200, R"({"trainerStatus":{"progressPercentage":10,"lastUpdatedTime":"2025-01-23T10:30:45Z"}})" "\n");
    BOOST_TEST(h.trainerStatus() == json::parse(R"({"progressPercentage":10,"lastUpdatedTime":"2025-01-23T10:30:45Z"})"));
    // Go escapes <, > and & in the echo.
    r = h.post(R"({"trainerStatus":{"metrics":[{"name":"a<b","value":"x&y"}],"lastUpdatedTime":"2025-01-23T10:30:45Z"}})");
    expectAnswer(r, 200, R"({"trainerStatus":{"metrics":[{"name":"a\u003cb","value":"x\u0026y"}],"lastUpdatedTime":"2025-01-23T10:30:45Z"}})" "\n");
    BOOST_TEST(h.trainerStatus() == json::parse(R"({"metrics":[{"name":"a<b","value":"x&y"}],"lastUpdatedTime":"2025-01-23T10:30:45Z"})"));
}

// The Bearer scheme is matched case-insensitively and white space around it is tolerated
// (upstream's extractRawToken); the path is matched after %-unescaping, as Go's ServeMux does.
BOOST_AUTO_TEST_CASE(header_and_path_forms_upstream_accepts) {
    Harness h;
    const std::string body = R"({"trainerStatus":{"progressPercentage":1,"lastUpdatedTime":"2025-01-23T10:30:45Z"}})";
    for (std::string auth : {"bearer " + kToken, "BEARER   " + kToken + "  ", "Bearer\t" + kToken}) {
        Call c;
        c.body = body;
        c.authorization = auth;
        BOOST_TEST(h.send(c).status == 200, "Authorization: " << auth);
    }
    Call escaped;
    escaped.body = body;
    escaped.path = "/apis/trainer%2Ekubeflow.org/v1alpha1/namespaces/team-a/trainjobs/job%31/status";
    BOOST_TEST(h.send(escaped).status == 200);
    Call query;
    query.body = R"({"trainerStatus":{"progressPercentage":2,"lastUpdatedTime":"2025-01-23T10:30:45Z"}})";
    query.path = kPath + "?dryRun=All";  // the query plays no part
    BOOST_TEST(h.send(query).status == 200);
    BOOST_TEST(h.trainerStatus().at("progressPercentage") == 2);
}

// Exactly 256 metrics (the CRD's maxItems) and exactly 64 KiB of body are still accepted.
BOOST_AUTO_TEST_CASE(limits_are_inclusive) {
    Harness h;
    auto r = h.post(metricsPayload(256));
    BOOST_TEST(r.status == 200);
    BOOST_TEST(h.trainerStatus().at("metrics").as_array().size() == 256u);
    std::string body = R"({"trainerStatus":{"progressPercentage":64,"lastUpdatedTime":"2025-01-23T10:30:45Z"}})";
    body += std::string((std::size_t{1} << 16) - body.size(), ' ');
    BOOST_TEST_REQUIRE(body.size() == 65536u);
    expectAnswer(h.post(body), 200, R"({"trainerStatus":{"progressPercentage":64,"lastUpdatedTime":"2025-01-23T10:30:45Z"}})" "\n");
    BOOST_TEST(h.trainerStatus().at("progressPercentage") == 64);
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(refused)

// No usable bearer credential, a token the authorizer denies, a token for another TrainJob or
// namespace: 403 Forbidden, nothing written. Authentication comes before the body is read, so a
// bad body from an unauthenticated client is still 403.
BOOST_AUTO_TEST_CASE(forbidden) {
    Harness h;
    auto s = h.snapshot();
    struct Case {
        std::optional<std::string> authorization;
        bool reachesAuthorizer;
    };
    const std::vector<Case> cases{
        {std::nullopt, false},                       // no Authorization header
        {"", false},                                 // an empty one
        {"Bearer", false},                           // no credential
        {kToken, false},                             // no scheme
        {"Basic dXNlcjpwYXNz", false},               // another scheme
        {"Bearerx " + kToken, false},                // not the Bearer scheme
        {"Bearer " + kToken + " extra", false},      // more than one credential
        {"Bearer wrong-token", true},                // denied
        {"Bearer token:team-a/job2", true},          // a token for another TrainJob
        {"Bearer token:team-b/job1", true},          // one for another namespace
    };
    for (const auto& c : cases) {
        BOOST_TEST_CONTEXT("Authorization " << (c.authorization ? "\"" + *c.authorization + "\"" : "absent")) {
            int calls = h.authorizer.calls;
            Call call;
            call.body = kDocumentedPayload;
            call.authorization = c.authorization;
            expectAnswer(h.send(call), 403, kForbidden);
            BOOST_TEST(h.authorizer.calls == calls + (c.reachesAuthorizer ? 1 : 0));
            BOOST_TEST(h.unchanged(s));
        }
    }
    for (std::string body : {"invalid payload", R"({"trainerStatus":{"progressPercentage":101}})"}) {
        Call call;
        call.body = body;
        call.authorization = "Bearer wrong-token";
        expectAnswer(h.send(call), 403, kForbidden);
    }
    BOOST_TEST(h.gets == 0);
    BOOST_TEST(h.statusWrites == 0);
    BOOST_TEST(h.unchanged(s));
}

// The authorizer cannot decide (upstream: Authorize returned an error): 500, nothing written.
BOOST_AUTO_TEST_CASE(authorizer_error_is_internal) {
    Harness h;
    auto s = h.snapshot();
    Call c;
    c.body = kDocumentedPayload;
    c.authorization = "Bearer broken";
    expectAnswer(h.send(c), 500, kInternal);
    BOOST_TEST(h.authorizer.calls == 1);
    BOOST_TEST(h.statusWrites == 0);
    BOOST_TEST(h.unchanged(s));
}

// A TrainJob that does not exist: 404 "Train job not found", and the request creates nothing.
BOOST_AUTO_TEST_CASE(unknown_trainjob) {
    Harness h;
    auto s = h.snapshot();
    Call c;
    c.path = statusPath(kNs, "missing");
    c.authorization = "Bearer token:team-a/missing";
    c.body = kDocumentedPayload;
    expectAnswer(h.send(c), 404, kJobNotFound);
    BOOST_TEST(h.store.inner.get(h.key("missing")).notFound());
    c.path = statusPath("team-z", kJob);
    c.authorization = "Bearer token:team-z/job1";
    expectAnswer(h.send(c), 404, kJobNotFound);
    BOOST_TEST(h.unchanged(s));
}

// Only POST on the status path is served: any other path or method gets ServeMux's catch-all
// "/" route, 404 "Not found"; a malformed %-escape is refused by Go's server before any route,
// 400 in plain text. None of them reaches the authorizer or the store.
BOOST_AUTO_TEST_CASE(routing) {
    Harness h;
    auto s = h.snapshot();
    const std::vector<std::pair<std::string, std::string>> notFound{
        {"GET", kPath},
        {"PUT", kPath},
        {"PATCH", kPath},
        {"DELETE", kPath},
        {"OPTIONS", kPath},
        {"POST", "/"},
        {"GET", "/healthz"},
        {"POST", "/apis/trainer.kubeflow.org/v1alpha1/namespaces/team-a/trainjobs/job1"},
        {"POST", kPath + "/"},
        {"POST", kPath + "/extra"},
        {"POST", "/apis/trainer.kubeflow.org/v1/namespaces/team-a/trainjobs/job1/status"},
        {"POST", "/apis/trainer.kubeflow.org/v1alpha1/namespaces/team-a/jobs/job1/status"},
        {"POST", "/apis/trainer.kubeflow.org/v1alpha1/namespaces//trainjobs/job1/status"},
    };
    for (const auto& [method, path] : notFound) {
        BOOST_TEST_CONTEXT(method << " " << path) {
            Call c;
            c.method = method;
            c.path = path;
            c.body = kDocumentedPayload;
            expectAnswer(h.send(c), 404, kNotFound);
        }
    }
    for (std::string path : {"/apis/trainer.kubeflow.org/v1alpha1/namespaces/%zz/trainjobs/job1/status",
                             "/apis/trainer.kubeflow.org/v1alpha1/namespaces/team-a/trainjobs/job1/status%4"}) {
        BOOST_TEST_CONTEXT("POST " << path) {
            Call c;
            c.path = path;
            c.body = kDocumentedPayload;
            expectAnswer(h.send(c), 400, "400 Bad Request", "text/plain; charset=utf-8");
        }
    }
    BOOST_TEST(h.authorizer.calls == 0);
    BOOST_TEST(h.gets == 0);
    BOOST_TEST(h.unchanged(s));
}

// What the HTTP layer refuses before any route, in Go's net/http forms: a header over the limit
// (431) and a request that does not parse (400), both plain text.
BOOST_AUTO_TEST_CASE(malformed_requests) {
    Harness h;
    auto s = h.snapshot();
    Call big;
    big.body = kDocumentedPayload;
    big.extraArgs = "-H " + shellQuote("X-Padding: " + std::string(17 * 1024, 'a'));
    expectAnswer(h.send(big), 431, "431 Request Header Fields Too Large", "text/plain; charset=utf-8");
    RawClient garbage(h.server->port(), h.caFile, true);
    garbage.send("NOT AN HTTP REQUEST\r\n\r\n");
    auto end = garbage.awaitClose(std::chrono::seconds(60));
    BOOST_TEST(end.closedByServer);
    BOOST_TEST(end.received.rfind("HTTP/1.1 400 Bad Request\r\n", 0) == 0u, end.received);
    BOOST_TEST(end.received.find("Content-Type: text/plain; charset=utf-8\r\n") != std::string::npos, end.received);
    BOOST_TEST(end.received.size() >= 15u);
    BOOST_TEST(end.received.substr(end.received.size() - 15) == "400 Bad Request", end.received);
    BOOST_TEST(h.authorizer.calls == 0);
    BOOST_TEST(h.unchanged(s));
}

// What json.Decoder refuses (malformed JSON, an empty body, wrong types, int32 overflow, a time
// that is not RFC 3339): 422 "Invalid payload", nothing written, the store never asked.
BOOST_AUTO_TEST_CASE(undecodable_payloads) {
    Harness h;
    auto s = h.snapshot();
    const std::vector<std::string> bodies{
        "invalid payload",  // upstream's TestServerErrorResponses case
        "",
        "   ",
        "{",
        R"({"trainerStatus":{"progressPercentage":50,}})",
        "[]",
        R"("text")",
        R"({"trainerStatus":[]})",
        R"({"trainerStatus":"50%"})",
        R"({"trainerStatus":{"progressPercentage":"50","lastUpdatedTime":"2025-01-23T10:30:45Z"}})",
        R"({"trainerStatus":{"progressPercentage":50.5,"lastUpdatedTime":"2025-01-23T10:30:45Z"}})",
        R"({"trainerStatus":{"progressPercentage":true}})",
        R"({"trainerStatus":{"progressPercentage":2147483648}})",
        R"({"trainerStatus":{"estimatedRemainingSeconds":"soon"}})",
        R"({"trainerStatus":{"metrics":{"name":"loss","value":"1"}}})",
        R"({"trainerStatus":{"metrics":["loss"]}})",
        R"({"trainerStatus":{"metrics":[{"name":"loss","value":0.5}]}})",
        R"({"trainerStatus":{"metrics":[{"name":1,"value":"0.5"}]}})",
        R"({"trainerStatus":{"progressPercentage":5,"lastUpdatedTime":"yesterday"}})",
        R"({"trainerStatus":{"progressPercentage":5,"lastUpdatedTime":"2025-01-23T10:30:45"}})",
        R"({"trainerStatus":{"progressPercentage":5,"lastUpdatedTime":"2025-01-23 10:30:45Z"}})",
        R"({"trainerStatus":{"progressPercentage":5,"lastUpdatedTime":"2025-02-30T10:30:45Z"}})",
        R"({"trainerStatus":{"progressPercentage":5,"lastUpdatedTime":""}})",
        R"({"trainerStatus":{"progressPercentage":5,"lastUpdatedTime":1737628245}})",
    };
    for (const auto& body : bodies) {
        BOOST_TEST_CONTEXT("body " << body) {
            expectAnswer(h.post(body), 422, kInvalidPayload);
            BOOST_TEST(h.unchanged(s));
        }
    }
    BOOST_TEST(h.gets == 0);
    BOOST_TEST(h.statusWrites == 0);
}

// Decodable but refused by the TrainJob CRD (what the API server answers upstream's apply with,
// relayed as 422 Invalid with its message): progress outside 0..100, negative remaining time,
// more than 256 metrics, metric names and values outside 1..64 characters, no lastUpdatedTime.
BOOST_AUTO_TEST_CASE(schema_refusals) {
    Harness h;
    auto s = h.snapshot();
    const std::string t = R"("lastUpdatedTime":"2025-01-23T10:30:45Z")";
    const std::vector<std::pair<std::string, std::string>> cases{
        {R"({"trainerStatus":{"progressPercentage":-1,)" + t + "}}",
         "status.trainerStatus.progressPercentage: Invalid value: -1: status.trainerStatus.progressPercentage in body "
         "should be greater than or equal to 0"},
        {R"({"trainerStatus":{"progressPercentage":101,)" + t + "}}",
         "status.trainerStatus.progressPercentage: Invalid value: 101: status.trainerStatus.progressPercentage in body "
         "should be less than or equal to 100"},
        // upstream's integration test "Should reject a request with progressPercentage > 100"
        {R"({"trainerStatus":{"progressPercentage":150,)" + t + "}}",
         "status.trainerStatus.progressPercentage: Invalid value: 150: status.trainerStatus.progressPercentage in body "
         "should be less than or equal to 100"},
        {R"({"trainerStatus":{"estimatedRemainingSeconds":-1,)" + t + "}}",
         "status.trainerStatus.estimatedRemainingSeconds: Invalid value: -1: "
         "status.trainerStatus.estimatedRemainingSeconds in body should be greater than or equal to 0"},
        {metricsPayload(257), "status.trainerStatus.metrics: Too many: 257: must have at most 256 items"},
        {R"({"trainerStatus":{"metrics":[{"name":"","value":"1"}],)" + t + "}}",
         "status.trainerStatus.metrics[0].name: Invalid value: \"\": status.trainerStatus.metrics[0].name in body "
         "should be at least 1 chars long"},
        {R"({"trainerStatus":{"metrics":[{"name":"loss"}],)" + t + "}}",
         "status.trainerStatus.metrics[0].value: Invalid value: \"\": status.trainerStatus.metrics[0].value in body "
         "should be at least 1 chars long"},
        {R"({"trainerStatus":{"progressPercentage":50}})",
         "status.trainerStatus: Invalid value: \"object\": lastUpdatedTime is required when trainerStatus is present"},
        {R"({"trainerStatus":{}})",
         "status.trainerStatus: Invalid value: \"object\": lastUpdatedTime is required when trainerStatus is present"},
        {R"({"trainerStatus":{"progressPercentage":-1,"estimatedRemainingSeconds":-2,)" + t + "}}",
         "[status.trainerStatus.progressPercentage: Invalid value: -1: status.trainerStatus.progressPercentage in body "
         "should be greater than or equal to 0, status.trainerStatus.estimatedRemainingSeconds: Invalid value: -2: "
         "status.trainerStatus.estimatedRemainingSeconds in body should be greater than or equal to 0]"},
    };
    for (const auto& [body, detail] : cases) {
        BOOST_TEST_CONTEXT("body " << body.substr(0, 160)) {
            expectAnswer(h.post(body), 422, invalid(detail));
            BOOST_TEST(h.unchanged(s));
        }
    }
    // maxLength 64. The API server upstream builds against (k8s.io/apimachinery v0.36,
    // field.TooLong) says "Too long: may not be more than 64 bytes"; core/api/schema.cpp still
    // words it as Kubernetes <= 1.31 did ("may not be longer than 64"), so only the part both
    // share is checked here.
    auto tooLong = h.post(R"({"trainerStatus":{"metrics":[{"name":")" + std::string(65, 'n') + R"(","value":"1"}],)" + t + "}}");
    BOOST_TEST(tooLong.status == 422);
    BOOST_TEST(tooLong.contentType == "application/json");
    const std::string prefix = R"({"metadata":{},"status":"Failure","message":"TrainJob.trainer.kubeflow.org \"job1\" is invalid: status.trainerStatus.metrics[0].name: Too long: may not be )";
    BOOST_TEST(tooLong.body.rfind(prefix, 0) == 0u, tooLong.body);
    BOOST_TEST(tooLong.body.find(R"(","reason":"Invalid","code":422})" "\n") != std::string::npos);
    BOOST_TEST(h.unchanged(s));
    BOOST_TEST(h.statusWrites == 0);
}

// Bodies over upstream's maxBodySize (64 KiB): 413 before anything else is looked at (upstream's
// bodySizeLimitMiddleware wraps the mux), so also for a client without a token; upstream's own
// ~1 MB case included.
BOOST_AUTO_TEST_CASE(oversized_bodies) {
    Harness h;
    auto s = h.snapshot();
    std::string body = R"({"trainerStatus":{"progressPercentage":64,"lastUpdatedTime":"2025-01-23T10:30:45Z"}})";
    body += std::string((std::size_t{1} << 16) + 1 - body.size(), ' ');
    BOOST_TEST_REQUIRE(body.size() == 65537u);
    expectAnswer(h.post(body), 413, kTooLarge);
    std::string metrics;
    for (int i = 0; i < 40000; ++i) metrics += R"({"name":"m","value":"0.5"},)";
    const std::string huge = R"({"trainerStatus": {"metrics": [)" + metrics + "]}}";  // TestServerErrorResponses
    expectAnswer(h.post(huge), 413, kTooLarge);
    Call anonymous;
    anonymous.body = body;
    anonymous.authorization = std::nullopt;
    expectAnswer(h.send(anonymous), 413, kTooLarge);
    Call elsewhere;
    elsewhere.body = body;
    elsewhere.path = "/somewhere/else";
    expectAnswer(h.send(elsewhere), 413, kTooLarge);
    // Without a Content-Length (chunked), the limit holds as well. (Upstream's MaxBytesReader
    // fails the decode instead: README.md, "Differences from upstream".)
    Call chunked;
    chunked.body = body;
    chunked.extraArgs = "-H 'Transfer-Encoding: chunked'";
    expectAnswer(h.send(chunked), 413, kTooLarge);
    BOOST_TEST(h.authorizer.calls == 0);
    BOOST_TEST(h.statusWrites == 0);
    BOOST_TEST(h.unchanged(s));
    BOOST_TEST(h.post(R"({"trainerStatus":{"progressPercentage":3,"lastUpdatedTime":"2025-01-23T10:30:45Z"}})").status == 200);
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(rate_limit)

// The write budget (qps 0.5, burst 2) on the FakeClock: writes over it get 429 TooManyRequests
// with Retry-After (whole seconds until the next token) and write nothing; requests refused
// before the write (403, 422 payload, an empty update) take no token; time refills the bucket.
BOOST_AUTO_TEST_CASE(writes_over_the_budget_get_429) {
    Harness h([](ss::StatusServerOptions& o) {
        o.qps = 0.5;
        o.burst = 2;
    });
    auto update = [](int p) {
        return R"({"trainerStatus":{"progressPercentage":)" + std::to_string(p) + R"(,"lastUpdatedTime":"2025-01-23T10:30:45Z"}})";
    };
    BOOST_TEST_REQUIRE(h.post(update(1)).status == 200);
    BOOST_TEST_REQUIRE(h.post(update(2)).status == 200);
    auto s = h.snapshot();
    auto r = h.post(update(3));
    expectAnswer(r, 429,
                 failure(429, "TooManyRequests", "Too many requests, please try again later.", R"({"retryAfterSeconds":2})"));
    BOOST_TEST(r.retryAfter == "2");
    BOOST_TEST(h.unchanged(s));
    Call forbidden;
    forbidden.body = update(4);
    forbidden.authorization = "Bearer wrong-token";
    expectAnswer(h.send(forbidden), 403, kForbidden);
    expectAnswer(h.post("invalid payload"), 422, kInvalidPayload);
    expectAnswer(h.post("{}"), 200, "{}\n");
    h.clock.advance(std::chrono::seconds(1));  // half a token
    r = h.post(update(5));
    expectAnswer(r, 429,
                 failure(429, "TooManyRequests", "Too many requests, please try again later.", R"({"retryAfterSeconds":1})"));
    BOOST_TEST(r.retryAfter == "1");
    BOOST_TEST(h.unchanged(s));
    h.clock.advance(std::chrono::seconds(1));
    expectAnswer(h.post(update(6)), 200, R"({"trainerStatus":{"progressPercentage":6,"lastUpdatedTime":"2025-01-23T10:30:45Z"}})" "\n");
    BOOST_TEST(h.trainerStatus().at("progressPercentage") == 6);
    BOOST_TEST(h.post(update(7)).status == 429);
}

// Every write the server sends to the store counts, as every request upstream's rate-limited
// client sends counts, including one the schema then refuses.
BOOST_AUTO_TEST_CASE(refused_writes_count_too) {
    Harness h([](ss::StatusServerOptions& o) {
        o.qps = 1;
        o.burst = 1;
    });
    auto s = h.snapshot();
    BOOST_TEST(h.post(R"({"trainerStatus":{"progressPercentage":101,"lastUpdatedTime":"2025-01-23T10:30:45Z"}})").status == 422);
    auto r = h.post(R"({"trainerStatus":{"progressPercentage":1,"lastUpdatedTime":"2025-01-23T10:30:45Z"}})");
    BOOST_TEST(r.status == 429);
    BOOST_TEST(r.retryAfter == "1");
    BOOST_TEST(h.unchanged(s));
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(store_writes)

// The TrainJob changes between the read and the write (a Conflict): the server reads again and
// writes on top of the new object, keeping the concurrent change.
BOOST_AUTO_TEST_CASE(conflict_is_retried_on_the_new_object) {
    Harness h;
    std::atomic<int> conflicts{0};
    h.onUpdateStatus = [&](const json::object& obj) {
        if (conflicts++ == 0) {
            // Someone else writes the status first; `obj` now carries a stale resourceVersion.
            auto current = h.store.inner.get(h.key()).object;
            current["status"].as_object()["conditions"].as_array().push_back(
                json::object{{"type", "Complete"}, {"status", "False"}, {"reason", "Running"}, {"message", "still running"},
                             {"lastTransitionTime", "2024-05-01T12:05:00Z"}});
            BOOST_TEST_REQUIRE(h.store.inner.updateStatus(current).ok());
        }
        return h.store.inner.updateStatus(obj);
    };
    auto r = h.post(kDocumentedPayload);
    BOOST_TEST(r.status == 200);
    BOOST_TEST(conflicts == 2);
    auto job = h.trainJob();
    BOOST_TEST(job.at("status").at("conditions").as_array().size() == 2u);
    BOOST_TEST(job.at("status").at("trainerStatus").at("progressPercentage") == 45);
}

// A Conflict answered once by the store: retried, 200, written.
BOOST_AUTO_TEST_CASE(one_conflict_then_written) {
    Harness h;
    std::atomic<int> calls{0};
    h.onUpdateStatus = [&](const json::object& obj) {
        if (calls++ == 0) return storeFailure(core::StoreStatus::Conflict, "the object has been modified");
        return h.store.inner.updateStatus(obj);
    };
    expectAnswer(h.post(R"({"trainerStatus":{"progressPercentage":9,"lastUpdatedTime":"2025-01-23T10:30:45Z"}})"), 200,
                 R"({"trainerStatus":{"progressPercentage":9,"lastUpdatedTime":"2025-01-23T10:30:45Z"}})" "\n");
    BOOST_TEST(calls == 2);
    BOOST_TEST(h.trainerStatus().at("progressPercentage") == 9);
}

// Conflicts that never settle (maxWriteAttempts), a store error, and a store that cannot read
// the TrainJob: 500 Internal error, nothing written.
BOOST_AUTO_TEST_CASE(store_failures_are_internal) {
    Harness h([](ss::StatusServerOptions& o) { o.maxWriteAttempts = 3; });
    auto s = h.snapshot();
    std::atomic<int> calls{0};
    h.onUpdateStatus = [&](const json::object&) {
        ++calls;
        return storeFailure(core::StoreStatus::Conflict, "the object has been modified");
    };
    expectAnswer(h.post(kDocumentedPayload), 500, kInternal);
    BOOST_TEST(calls == 3);
    BOOST_TEST(h.unchanged(s));

    h.onUpdateStatus = [&](const json::object&) { return storeFailure(core::StoreStatus::Error, "database is locked"); };
    expectAnswer(h.post(kDocumentedPayload), 500, kInternal);
    BOOST_TEST(h.unchanged(s));

    // Unreadable: get() says nothing, and the probe write (which cannot succeed) says Error.
    h.onGet = [](const core::ObjectKey&) { return core::ReadResult::absent(); };
    expectAnswer(h.post(kDocumentedPayload), 500, kInternal);
    BOOST_TEST(h.unchanged(s));

    // A read that fails is a 500 at once (not a 404, and no probe).
    h.onUpdateStatus = nullptr;
    const int writesBefore = h.statusWrites;
    h.onGet = [](const core::ObjectKey&) { return core::ReadResult::error("store: sqlite step: database is locked"); };
    expectAnswer(h.post(kDocumentedPayload), 500, kInternal);
    BOOST_TEST(h.statusWrites == writesBefore);
    BOOST_TEST(h.unchanged(s));
}

// A handler that throws (here: the store) is answered as upstream's recoveryMiddleware answers a
// panic: 500 "Internal Server Error"; the server goes on serving.
BOOST_AUTO_TEST_CASE(a_throwing_handler_is_recovered) {
    Harness h;
    auto s = h.snapshot();
    h.onUpdateStatus = [](const json::object&) -> core::StoreResult { throw std::runtime_error("boom"); };
    expectAnswer(h.post(kDocumentedPayload), 500, failure(500, "InternalError", "Internal Server Error"));
    BOOST_TEST(h.unchanged(s));
    h.onUpdateStatus = nullptr;
    BOOST_TEST(h.post(kDocumentedPayload).status == 200);
}

// get() misses a TrainJob that exists (e.g. a lagging cache): the probe's Conflict shows it is
// there, and the next read finds it.
BOOST_AUTO_TEST_CASE(a_missed_read_is_retried) {
    Harness h;
    std::atomic<int> reads{0};
    h.onGet = [&](const core::ObjectKey& key) {
        if (reads++ == 0) return core::ReadResult::absent();
        return h.store.inner.get(key);
    };
    BOOST_TEST(h.post(kDocumentedPayload).status == 200);
    BOOST_TEST(reads == 2);
    BOOST_TEST(h.trainerStatus().at("progressPercentage") == 45);
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(connections)

// Clients that stall (no TLS handshake, half a header, a header and half a body) hold nothing
// up: with their timeouts far beyond curl's own 60 s bound and one io thread, a good request
// still gets its answer while they wait.
BOOST_AUTO_TEST_CASE(stalled_clients_do_not_block_others) {
    Harness h(
        [](ss::StatusServerOptions& o) {
            o.headerTimeout = std::chrono::minutes(5);
            o.bodyTimeout = std::chrono::minutes(5);
        },
        1);
    auto s = h.snapshot();
    RawClient noHandshake(h.server->port(), h.caFile, false);
    RawClient halfHeader(h.server->port(), h.caFile, true);
    halfHeader.send("POST " + kPath + " HTTP/1.1\r\nHost: 127.0.0.1\r\n");
    RawClient halfBody(h.server->port(), h.caFile, true);
    halfBody.send(requestHead(kToken, 1000) + R"({"trainerStatus":)");
    BOOST_TEST(h.unchanged(s));
    expectAnswer(h.post(kDocumentedPayload), 200,
                 R"({"trainerStatus":{"progressPercentage":45,"estimatedRemainingSeconds":795649,"metrics":[{"name":"loss","value":"0.2347"},{"name":"eval_loss","value":"0.2451"}],"lastUpdatedTime":"2025-01-23T10:30:45Z"}})"
                 "\n");
    BOOST_TEST(h.trainerStatus().at("progressPercentage") == 45);
}

// A slow client is dropped: the handshake and each header within headerTimeout, the body within
// bodyTimeout; it gets no answer and writes nothing, and the server goes on serving.
BOOST_AUTO_TEST_CASE(slow_clients_are_dropped) {
    Harness h([](ss::StatusServerOptions& o) {
        // Short, yet long enough for the raw client's own handshake on a loaded machine.
        o.headerTimeout = std::chrono::seconds(1);
        o.bodyTimeout = std::chrono::seconds(1);
    });
    auto s = h.snapshot();
    const auto bound = std::chrono::seconds(60);
    {
        RawClient c(h.server->port(), h.caFile, true);
        c.send(requestHead(kToken, 1000) + R"({"trainerStatus":)");
        auto end = c.awaitClose(bound);
        BOOST_TEST(end.closedByServer);
        BOOST_TEST(end.received.empty(), "got " << end.received);
    }
    {
        RawClient c(h.server->port(), h.caFile, true);
        c.send("POST " + kPath + " HTTP/1.1\r\nHost: 127.0.0.1\r\n");
        auto end = c.awaitClose(bound);
        BOOST_TEST(end.closedByServer);
        BOOST_TEST(end.received.empty(), "got " << end.received);
    }
    {
        RawClient c(h.server->port(), h.caFile, false);
        auto end = c.awaitClose(bound);
        BOOST_TEST(end.closedByServer);
        BOOST_TEST(end.received.empty(), "got " << end.received.size() << " bytes");
    }
    {
        // An idle keep-alive connection is closed too (after a complete exchange).
        RawClient c(h.server->port(), h.caFile, true);
        c.send(requestHead("wrong-token", 2) + "{}");
        auto end = c.awaitClose(bound);
        BOOST_TEST(end.closedByServer);
        BOOST_TEST(end.received.rfind("HTTP/1.1 403 Forbidden\r\n", 0) == 0, "got " << end.received);
        BOOST_TEST(end.received.find(kForbidden) != std::string::npos);
    }
    BOOST_TEST(h.authorizer.calls == 1);
    BOOST_TEST(h.statusWrites == 0);
    BOOST_TEST(h.unchanged(s));
    BOOST_TEST(h.post(kDocumentedPayload).status == 200);
}

// Requests follow one another on a kept-alive connection (HTTP/1.1's default); the server
// closes it after answering a request that asks for "Connection: close".
BOOST_AUTO_TEST_CASE(keep_alive) {
    Harness h;
    const std::string update = R"({"trainerStatus":{"progressPercentage":77,"lastUpdatedTime":"2025-01-23T10:30:45Z"}})";
    RawClient c(h.server->port(), h.caFile, true);
    auto second = requestHead("wrong-token", 2);
    second.insert(second.size() - 2, "Connection: close\r\n");
    c.send(requestHead(kToken, update.size()) + update + second + "{}");
    auto end = c.awaitClose(std::chrono::seconds(60));
    BOOST_TEST(end.closedByServer);
    auto first = end.received.find("HTTP/1.1 200 OK\r\n");
    auto forbidden = end.received.find("HTTP/1.1 403 Forbidden\r\n");
    BOOST_TEST(first == 0u, end.received);
    BOOST_TEST((forbidden != std::string::npos && forbidden > first), end.received);
    BOOST_TEST(end.received.find(update + "\n") != std::string::npos);
    BOOST_TEST(end.received.find(kForbidden) != std::string::npos);
    BOOST_TEST(h.trainerStatus().at("progressPercentage") == 77);
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(lifecycle)

BOOST_AUTO_TEST_CASE(start_needs_tls_and_a_valid_address) {
    trainer::test::InterceptStore store;
    trainer::test::FakeAuthorizer authorizer;
    {
        trainer::test::IoRunner io(1);
        ss::StatusServerOptions o;
        o.bindAddress = "127.0.0.1:0";
        ss::StatusServer server(io.io, store, authorizer, o);
        auto err = server.start();
        BOOST_TEST(err == "status server: a TLS certificate is required (it serves HTTPS only)");
        BOOST_TEST(!server.listening());
        BOOST_TEST(server.port() == 0);
    }
    {
        trainer::test::IoRunner io(1);
        ss::StatusServerOptions o;
        o.bindAddress = "127.0.0.1:notaport";
        o.tls = [] { return std::shared_ptr<ssl::context>(); };
        ss::StatusServer server(io.io, store, authorizer, o);
        auto err = server.start();
        BOOST_TEST(err.rfind("status server: ", 0) == 0, err);
        BOOST_TEST(!server.listening());
    }
    {
        trainer::test::IoRunner io(1);
        ss::StatusServerOptions o;
        o.bindAddress = "0";  // disabled
        o.tls = [] { return std::shared_ptr<ssl::context>(); };
        ss::StatusServer server(io.io, store, authorizer, o);
        BOOST_TEST(server.start().empty());
        BOOST_TEST(!server.listening());
    }
}

// After stop(), the port no longer answers.
BOOST_AUTO_TEST_CASE(stop_closes_the_port) {
    Harness h;
    auto url = h.url(kPath);
    BOOST_TEST_REQUIRE(h.post("{}").status == 200);
    h.server->stop();
    HttpResult r;
    // The listener closes asynchronously on the io threads: poll, bounded.
    for (int i = 0; i < 600; ++i) {
        r = trainer::test::curl("--cacert " + shellQuote(h.caFile) + " --max-time 5 -X POST -d '{}' " + shellQuote(url));
        if (r.status == 0) break;
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    BOOST_TEST(r.status == 0);
    BOOST_TEST(!h.server->listening());
}

BOOST_AUTO_TEST_SUITE_END()
