// P5 of issue 14: the TrainJob validating webhook (AdmissionReview v1 over TLS, served by
// `trainer-operator run` on the embedded store) against Debian's nginx serving the webhook's own
// response bytes as a static answer over TLS, on the same machine, with the same client and
// concurrency, in the same run.
//   webhook_bench [--concurrency C] [--seconds S] [--runs R] [--operator BIN] [--plugin-dir DIR]
//                 [--nginx PATH]
// Both servers use one certificate (`trainer-operator certs`); nginx runs `worker_processes auto`
// with access logs off. The client is this program: C threads, each one keep-alive TLS connection
// (OpenSSL, blocking, TCP_NODELAY) sending 64 requests in turn (AdmissionReviews of 64 TrainJobs,
// each connection starting at its own); handshakes happen before the clock starts. Measured,
// alternating between the servers, medians of R runs (default 5):
//   throughput  requests/s over S seconds (default 3), every answer checked (200; the webhook's
//               says allowed);
//   latency     the webhook at 80% of the throughput its run has just measured, open loop: each
//               thread sends on a fixed schedule and a request's latency counts from when it was
//               due to be sent (a slow answer delays the next ones and that delay is counted); p99
//               over S seconds. nginx at the same rate is the reference.
//   bound       the webhook's server sent the same requests at a path with no route (404 on its
//               I/O threads): throughput and CPU of its transport alone, beside nginx's (no target).
#include "bench_objects.hpp"

#include <openssl/err.h>
#include <openssl/ssl.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <thread>

using namespace trainer;
using namespace trainer::bench;

namespace {

int freePort() {
    int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof a;
    if (::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 || ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len))
        fail("cannot find a free port");
    ::close(fd);
    return ntohs(a.sin_port);
}

// One keep-alive TLS connection; request/response in lock step.
class Connection {
public:
    Connection(SSL_CTX* ctx, int port) {
        fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
        int one = 1;
        ::setsockopt(fd_, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        sockaddr_in a{};
        a.sin_family = AF_INET;
        a.sin_port = htons(static_cast<uint16_t>(port));
        a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        if (::connect(fd_, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) return;
        ssl_ = SSL_new(ctx);
        SSL_set_fd(ssl_, fd_);
        if (SSL_connect(ssl_) != 1) {
            SSL_free(ssl_);
            ssl_ = nullptr;
        }
    }
    ~Connection() {
        if (ssl_) SSL_free(ssl_);
        if (fd_ >= 0) ::close(fd_);
    }
    bool ok() const { return ssl_ != nullptr; }
    // Sends `request`, reads one response; its status and body.
    bool roundTrip(const std::string& request, int& status, std::string& body) {
        for (size_t off = 0; off < request.size();) {
            int w = SSL_write(ssl_, request.data() + off, static_cast<int>(request.size() - off));
            if (w <= 0) return false;
            off += static_cast<size_t>(w);
        }
        size_t headerEnd;
        while ((headerEnd = buf_.find("\r\n\r\n")) == std::string::npos)
            if (!fill()) return false;
        std::string head = buf_.substr(0, headerEnd);
        status = head.size() > 12 ? std::atoi(head.c_str() + 9) : 0;
        size_t length = contentLength(head);
        if (length == std::string::npos) return false;
        while (buf_.size() < headerEnd + 4 + length)
            if (!fill()) return false;
        body.assign(buf_, headerEnd + 4, length);
        buf_.erase(0, headerEnd + 4 + length);
        return true;
    }

private:
    bool fill() {
        char chunk[16384];
        int n = SSL_read(ssl_, chunk, sizeof chunk);
        if (n <= 0) return false;
        buf_.append(chunk, static_cast<size_t>(n));
        return true;
    }
    static size_t contentLength(std::string head) {
        for (auto& c : head) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        auto at = head.find("\r\ncontent-length:");
        return at == std::string::npos ? std::string::npos : std::strtoul(head.c_str() + at + 17, nullptr, 10);
    }
    int fd_ = -1;
    SSL* ssl_ = nullptr;
    std::string buf_;
};

// The requests a target is sent, in turn: AdmissionReviews of distinct TrainJobs, as a real
// webhook sees (the SDK reuses a plugin's parse of an Info member only when its text repeats:
// sdk/include/trainer/info_members.hpp).
struct Target {
    std::string name;
    int port;
    std::vector<std::string> requests;
    bool webhook;  // answers must say allowed
    int status = 200;  // the status every answer must have
    const std::string& request(long i) const { return requests[static_cast<std::size_t>(i) % requests.size()]; }
};

bool answerOk(const Target& t, int status, const std::string& body) {
    return status == t.status && (!t.webhook || body.find("\"allowed\":true") != std::string::npos);
}

std::vector<std::unique_ptr<Connection>> connect(SSL_CTX* ctx, const Target& t, int c) {
    std::vector<std::unique_ptr<Connection>> conns;
    for (int i = 0; i < c; ++i) {
        conns.push_back(std::make_unique<Connection>(ctx, t.port));
        if (!conns.back()->ok()) fail("cannot connect over TLS to " + t.name);
    }
    return conns;
}

// CPU seconds (user + system) of `pid` and its child processes (nginx's workers), from /proc.
double treeCpuSeconds(pid_t pid) {
    auto stat = [](const std::string& path, long& ppid) -> double {
        std::ifstream file(path);  // a process may be gone by now: no fail() here
        std::string text((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
        auto close = text.rfind(')');  // the command name may hold spaces
        if (close == std::string::npos) return -1;
        std::istringstream in(text.substr(close + 2));
        std::string field;
        std::vector<std::string> f;
        while (in >> field) f.push_back(field);
        if (f.size() < 13) return -1;
        ppid = std::stol(f[1]);  // fields 4 (ppid), 14 (utime) and 15 (stime) of proc(5)
        return static_cast<double>(std::stoll(f[11]) + std::stoll(f[12])) / static_cast<double>(::sysconf(_SC_CLK_TCK));
    };
    long ppid = 0;
    double total = stat("/proc/" + std::to_string(pid) + "/stat", ppid);
    if (total < 0) fail("cannot read /proc/" + std::to_string(pid) + "/stat");
    for (auto const& e : std::filesystem::directory_iterator("/proc")) {
        const std::string name = e.path().filename().string();
        if (name.find_first_not_of("0123456789") != std::string::npos) continue;
        double s = stat(e.path().string() + "/stat", ppid);
        if (s >= 0 && ppid == pid) total += s;
    }
    return total;
}

// Closed loop for `seconds`: requests per second; `serverCpu` gets the server's CPU seconds per request.
double throughput(SSL_CTX* ctx, const Target& t, int c, double seconds, pid_t server, double& serverCpu) {
    const double cpu = treeCpuSeconds(server);
    auto conns = connect(ctx, t, c);
    std::atomic<long> done{0};
    std::atomic<bool> bad{false};
    auto start = Clock::now();
    const auto end = start + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
    std::vector<std::thread> threads;
    for (std::size_t k = 0; k < conns.size(); ++k)
        threads.emplace_back([&, k, c = conns[k].get()] {
            int status;
            std::string body;
            long n = 0;
            const long first = static_cast<long>(k) * 7;  // connections out of step
            while (Clock::now() < end) {
                if (!c->roundTrip(t.request(first + n), status, body) || !answerOk(t, status, body)) {
                    bad = true;
                    std::fprintf(stderr, "%s answered %d: %.300s\n", t.name.c_str(), status, body.c_str());
                    break;
                }
                ++n;
            }
            done += n;
        });
    for (auto& th : threads) th.join();
    const double rate = done / secondsSince(start);
    serverCpu = (treeCpuSeconds(server) - cpu) / static_cast<double>(std::max(1L, done.load()));
    if (bad) fail(t.name + " gave a bad answer");
    return rate;
}

// Open loop at `rate` requests/s for `seconds`: the p99 latency in milliseconds.
double p99At(SSL_CTX* ctx, const Target& t, int c, double rate, double seconds) {
    auto conns = connect(ctx, t, c);
    std::vector<std::vector<double>> lat(c);
    std::atomic<bool> bad{false};
    const auto start = Clock::now() + std::chrono::milliseconds(10);
    const long perThread = static_cast<long>(rate * seconds / c);
    std::vector<std::thread> threads;
    for (int k = 0; k < c; ++k)
        threads.emplace_back([&, k] {
            int status;
            std::string body;
            for (long j = 0; j < perThread && !bad; ++j) {
                auto due = start + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>((k + j * c) / rate));
                std::this_thread::sleep_until(due);
                if (!conns[k]->roundTrip(t.request(k * 7 + j), status, body) || !answerOk(t, status, body)) bad = true;
                lat[k].push_back(std::chrono::duration<double, std::milli>(Clock::now() - due).count());
            }
        });
    for (auto& th : threads) th.join();
    if (bad) fail(t.name + " gave a bad answer");
    std::vector<double> all;
    for (auto& l : lat) all.insert(all.end(), l.begin(), l.end());
    std::sort(all.begin(), all.end());
    return all.empty() ? 0 : all[std::min(all.size() - 1, static_cast<size_t>(0.99 * all.size()))];
}

std::string httpPost(const std::string& path, const std::string& body) {
    return "POST " + path + " HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nAccept: application/json\r\n"
           "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body;
}

std::string admissionReview(const Runtime& rt, long index) {
    json::object tj = trainJob(rt, index);
    core::applyDefaults(tj);
    json::object gvk{{"group", "trainer.kubeflow.org"}, {"version", "v1alpha1"}, {"kind", "TrainJob"}};
    json::object gvr{{"group", "trainer.kubeflow.org"}, {"version", "v1alpha1"}, {"resource", "trainjobs"}};
    return json::serialize(json::object{
        {"apiVersion", "admission.k8s.io/v1"},
        {"kind", "AdmissionReview"},
        {"request", {{"uid", "705ab4f5-6393-11e8-b7cc-42010a800002"}, {"kind", gvk}, {"resource", gvr},
                     {"requestKind", gvk}, {"requestResource", gvr}, {"name", tj["metadata"].at("name")},
                     {"namespace", "default"}, {"operation", "CREATE"},
                     {"userInfo", {{"username", "admin"}, {"groups", json::array{"system:masters"}}}},
                     {"object", tj}, {"oldObject", nullptr}, {"dryRun", false},
                     {"options", {{"apiVersion", "meta.k8s.io/v1"}, {"kind", "CreateOptions"}}}}}});
}

// nginx's configuration: the same certificate, `body` as a static answer to every request.
std::string nginxConf(const std::string& dir, const std::string& certs, int port, const std::string& body) {
    std::string escaped;
    for (char ch : body) escaped += (ch == '\'' || ch == '\\') ? std::string("\\") + ch : std::string(1, ch);
    return "worker_processes auto;\npid " + dir + "/nginx.pid;\nerror_log " + dir + "/nginx-error.log;\n"
           "events { worker_connections 1024; }\n"
           "http {\n  access_log off;\n  keepalive_requests 100000000;\n  keepalive_timeout 300s;\n"
           "  client_body_temp_path " + dir + "/nginx-body;\n"
           "  server {\n    listen 127.0.0.1:" + std::to_string(port) + " ssl;\n"
           "    ssl_certificate " + certs + "/tls.crt;\n    ssl_certificate_key " + certs + "/tls.key;\n"
           "    location / {\n      default_type application/json;\n      return 200 '" + escaped + "';\n    }\n  }\n}\n";
}

// Waits until `t` answers one request correctly (the server started).
std::string firstAnswer(SSL_CTX* ctx, const Target& t, pid_t pid) {
    for (auto start = Clock::now(); secondsSince(start) < 60; std::this_thread::sleep_for(std::chrono::milliseconds(50))) {
        int status = 0;
        if (::waitpid(pid, &status, WNOHANG) == pid) fail(t.name + " exited during start-up");
        Connection c(ctx, t.port);
        std::string body;
        if (c.ok() && c.roundTrip(t.request(0), status, body)) {
            if (!answerOk(t, status, body)) fail(t.name + " answered " + std::to_string(status) + ": " + body);
            return body;
        }
    }
    fail(t.name + " did not answer within 60 s");
}

void stop(pid_t pid) {
    ::kill(pid, SIGTERM);
    int status = 0;
    ::waitpid(pid, &status, 0);
}

}  // namespace

int main(int argc, char** argv) {
    Flags flags(argc, argv);
    const int c = static_cast<int>(flags.number("concurrency", 8));
    const double seconds = static_cast<double>(flags.number("seconds", 3));
    const int runs = static_cast<int>(flags.number("runs", 5));
    const std::string op = flags.get("operator", std::string(TRAINER_BINARY_DIR) + "/bin/trainer-operator");
    const std::string plugins = flags.get("plugin-dir", TRAINER_PLUGIN_BUILD_DIR);
    const std::string nginx = flags.get("nginx", "/usr/sbin/nginx");
    if (::access(nginx.c_str(), X_OK) != 0) fail(nginx + " is missing (apt-get install nginx; scripts/bench.sh does)");
    if (c < 1 || runs < 1 || seconds <= 0) fail("--concurrency, --runs and --seconds must be positive");

    const std::string dir = tempDir("webhook_bench"), certs = dir + "/certs";
    if (runChild({op, "certs", "--service-name", "localhost", "--namespace", "bench", "--out-dir", certs}, "/dev/null",
                 dir + "/certs.log").exitCode != 0)
        fail("trainer-operator certs failed: " + readFile(dir + "/certs.log"));
    const Runtime& rt = runtimeById("torch");
    seed(*openStore(dir + "/store.db"), rt, 0, 0, /*withRuntime=*/true);
    writeFile(dir + "/config.yaml", "apiVersion: config.trainer.kubeflow.org/v1alpha1\nkind: Configuration\n"
                                    "leaderElection:\n  leaderElect: false\n");
    Target webhook{"the webhook", freePort(), {}, true};
    for (long i = 0; i < 64; ++i)
        webhook.requests.push_back(httpPost("/validate-trainer-kubeflow-org-v1alpha1-trainjob", admissionReview(rt, i)));
    pid_t op_pid = spawnServer({op, "run", "--store", dir + "/store.db", "--plugin-dir", plugins, "--config", dir + "/config.yaml",
                                "--local-executor=false", "--webhook-cert-dir", certs, "--webhook-port",
                                std::to_string(webhook.port), "--api-bind-address", "0", "--health-probe-bind-address", "0",
                                "--metrics-bind-address", "0"},
                               dir + "/operator.log", dir + "/operator.log");

    SSL_CTX* ctx = SSL_CTX_new(TLS_client_method());
    SSL_CTX_set_verify(ctx, SSL_VERIFY_NONE, nullptr);  // both servers alike; loopback
    const std::string answer = firstAnswer(ctx, webhook, op_pid);
    Target static_{"nginx", freePort(), webhook.requests, false};
    std::filesystem::create_directories(dir + "/nginx-body");
    writeFile(dir + "/nginx.conf", nginxConf(dir, certs, static_.port, answer));
    pid_t nginx_pid =
        spawnServer({nginx, "-p", dir, "-c", dir + "/nginx.conf", "-g", "daemon off;"}, dir + "/nginx.log", dir + "/nginx.log");
    if (firstAnswer(ctx, static_, nginx_pid) != answer) fail("nginx does not answer the webhook's bytes");

    // The webhook's own server sent the same requests at a path with no route: its HTTP, TLS and
    // TCP alone, answered 404 on the I/O thread (no admission).
    Target transport{"the webhook server (no route)", webhook.port, {}, false, 404};
    for (long i = 0; i < 64; ++i) transport.requests.push_back(httpPost("/bench-no-route", admissionReview(rt, i)));

    // Each run's latency phase offers 80 % of the throughput that run has just measured, seconds
    // earlier: a shared machine's share of CPU moves from minute to minute, and 80 % of a rate
    // measured a minute before can exceed what the machine gives now (then a run measures a queue).
    std::vector<double> hookRate, nginxRate, hookP99, nginxP99, hookCpu, nginxCpu, bareRate, bareCpu, loads;
    for (int i = 0; i < runs; ++i) {
        double cpu = 0;
        nginxRate.push_back(throughput(ctx, static_, c, seconds, nginx_pid, cpu));
        nginxCpu.push_back(cpu * 1e6);
        bareRate.push_back(throughput(ctx, transport, c, seconds, op_pid, cpu));
        bareCpu.push_back(cpu * 1e6);
        hookRate.push_back(throughput(ctx, webhook, c, seconds, op_pid, cpu));
        hookCpu.push_back(cpu * 1e6);
        loads.push_back(0.8 * hookRate.back());
        hookP99.push_back(p99At(ctx, webhook, c, loads.back(), seconds));
        nginxP99.push_back(p99At(ctx, static_, c, loads.back(), seconds));
    }
    const double h = median(hookRate), n = median(nginxRate), load = median(loads);
    stop(op_pid);
    stop(nginx_pid);
    SSL_CTX_free(ctx);
    const double hp = median(hookP99), np = median(nginxP99);
    const double hc = median(hookCpu), nc = median(nginxCpu), b = median(bareRate), bc = median(bareCpu);
    std::fprintf(stderr, "P5: request %zu bytes, answer %zu bytes; webhook %s/s (%s us CPU each), nginx %s/s (%s us); "
                         "p99 at %s/s: %s ms vs %s ms\n",
                 webhook.requests[0].size(), answer.size(), fixed(h, 0).c_str(), fixed(hc, 1).c_str(), fixed(n, 0).c_str(),
                 fixed(nc, 1).c_str(), fixed(load, 0).c_str(), fixed(hp).c_str(), fixed(np).c_str());
    // Each run's p99: one stall of the machine (tens of ms) decides a run's, so the spread tells
    // a slow server from a noisy minute.
    auto each = [](const std::vector<double>& v) {
        std::string out;
        for (double x : v) out += (out.empty() ? "" : ", ") + fixed(x);
        return out;
    };
    std::fprintf(stderr, "P5: p99 per run: webhook %s ms; nginx %s ms\n", each(hookP99).c_str(), each(nginxP99).c_str());
    const std::string conc = " (concurrency " + std::to_string(c) + ")";
    row("P5 webhook AdmissionReviews/s over TLS" + conc, fixed(h, 0) + "/s", fixed(n, 0) + "/s (nginx static)",
        fixed(h / n) + "x", ">= 0.50x", yesNo(h / n >= 0.5));
    // Less noisy than requests/s on a shared machine: what a request costs the server, not how
    // many the machine's share of CPU allowed.
    row("P5 server CPU per AdmissionReview (operator; nginx: master and workers)", fixed(hc, 1) + " us",
        fixed(nc, 1) + " us (nginx static)", fixed(hc / nc) + "x", "(no target)", "-");
    // P5's bound (rows without a target): what the server's transport alone allows against nginx.
    row("P5 bound: the webhook's server answering 404 to the same requests (HTTP, TLS, TCP; no admission)" + conc,
        fixed(b, 0) + "/s", fixed(n, 0) + "/s (nginx static)", fixed(b / n) + "x", "(no target)", "-");
    row("P5 bound: server CPU per request answered 404", fixed(bc, 1) + " us", fixed(nc, 1) + " us (nginx static)",
        fixed(bc / nc) + "x", "(no target)", "-");
    row("P5 webhook p99 latency at 80% load (median " + fixed(load, 0) + "/s)", fixed(hp) + " ms", fixed(np) + " ms (nginx)",
        fixed(hp / np) + "x", "<= 5 ms", yesNo(hp <= 5.0));
    if (flags.has("keep")) std::fprintf(stderr, "kept %s\n", dir.c_str());
    else std::filesystem::remove_all(dir);
    return 0;
}
