// The identity pieces in real pods on the local kubelet (root, like test/core/executor/kubelet):
// a projected serviceAccountToken volume a pod verifies itself with PyJWT and sees refreshed,
// the FailedMount wait without an issuer, and the operator's service names reaching the host.
#define BOOST_TEST_MODULE core_executor_identity_pods
#include "../kubelet/kubelet_fixture.hpp"
#include "identity_fixture.hpp"

#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>

using namespace kubelet_test;

namespace {

const std::string kAudience = auth::tokenAudience("team", "job");

struct IdentityFixture : KubeletFixture {
    identity_test::IssuerDir keys;

    void startWith(std::shared_ptr<const auth::ServiceAccountTokenIssuer> issuer, std::vector<std::string> names = {}) {
        executor::KubeletOptions o;
        o.pollInterval = 20ms;
        o.stateDir = stateDir();
        o.executable = binary();
        o.tokenIssuer = std::move(issuer);
        o.nodeHostNames = std::move(names);
        kubelet = std::make_unique<executor::Kubelet>(store, clock, log::Logger("identity-test"), o);
        auto err = kubelet->start();
        BOOST_REQUIRE_MESSAGE(err.empty(), "Kubelet::start: " + err);
    }
};

// A pod spec running `script` with /usr/bin/python3, `env` set, and a projected volume "tok" with
// `sources` mounted read-only at `mountPath`.
std::string pythonPod(const std::string& script, json::object env, json::array sources, const std::string& mountPath) {
    json::array envList;
    for (auto const& kv : env) envList.push_back({{"name", kv.key()}, {"value", kv.value()}});
    json::object container{{"name", "c"}, {"image", "python"},
                           {"command", json::array{"/usr/bin/python3", "-c", script}}, {"env", std::move(envList)}};
    json::array volumes;
    if (!sources.empty()) {
        container["volumeMounts"] = json::array{{{"name", "tok"}, {"mountPath", mountPath}, {"readOnly", true}}};
        volumes.push_back({{"name", "tok"}, {"projected", {{"sources", std::move(sources)}}}});
    }
    json::object spec{{"restartPolicy", "Never"}, {"serviceAccountName", "trainer"},
                      {"containers", json::array{std::move(container)}}, {"volumes", std::move(volumes)}};
    return json::serialize(spec);
}

json::array tokenSource() {
    return json::array{{{"serviceAccountToken", {{"audience", kAudience}, {"expirationSeconds", 3600}, {"path", "token"}}}}};
}

// Verifies the token with PyJWT (expiry against the real time is off: the kubelet runs on a
// fake clock), prints it, waits for a different token and verifies that one too.
const char* kVerifyAndWaitForRefresh = R"PY(
import os, time, jwt
path = os.environ['MP'] + '/token'
def check(tok):
    c = jwt.decode(tok, os.environ['PUB'], algorithms=['ES256'], audience=os.environ['AUD'],
                   issuer='https://kubernetes.default.svc.cluster.local',
                   options={'verify_exp': False, 'verify_nbf': False, 'verify_iat': False})
    return '%s %s %s %d' % (c['sub'], c['kubernetes.io']['pod']['name'], c['kubernetes.io']['pod']['uid'], c['iat'])
first = open(path).read()
print('first', check(first), flush=True)
deadline = time.time() + 120
while time.time() < deadline:
    now = open(path).read()
    if now != first:
        print('refreshed', check(now), flush=True)
        break
    time.sleep(0.1)
)PY";

// Accepts one connection on 0.0.0.0:<port> within `bound` and sends `greeting`.
struct HostListener {
    int fd = -1;
    int port = 0;
    std::thread thread;
    HostListener(std::string greeting) {
        fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        sockaddr_in a{};
        a.sin_family = AF_INET;
        a.sin_addr.s_addr = htonl(INADDR_ANY);
        BOOST_REQUIRE(::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0);
        BOOST_REQUIRE(::listen(fd, 4) == 0);
        socklen_t len = sizeof a;
        BOOST_REQUIRE(::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len) == 0);
        port = ntohs(a.sin_port);
        thread = std::thread([this, greeting] {
            pollfd p{fd, POLLIN, 0};
            if (::poll(&p, 1, 60000) != 1) return;
            int c = ::accept4(fd, nullptr, nullptr, SOCK_CLOEXEC);
            if (c < 0) return;
            (void)!::write(c, greeting.data(), greeting.size());
            ::close(c);
        });
    }
    ~HostListener() {
        ::shutdown(fd, SHUT_RDWR);
        thread.join();
        ::close(fd);
    }
};

}  // namespace

BOOST_FIXTURE_TEST_SUITE(identity_pods, IdentityFixture)

BOOST_AUTO_TEST_CASE(pod_verifies_its_token_and_sees_it_refreshed) {
    const std::string mountPath = "/run/" + marker("token");
    startWith(keys.issuer);
    createPod("tokens", pythonPod(kVerifyAndWaitForRefresh,
                                  {{"MP", mountPath}, {"PUB", keys.issuer->publicKeyPem()}, {"AUD", kAudience}},
                                  tokenSource(), mountPath));
    auto p = waitRunning("tokens");
    const std::string uid = str(p, {"metadata"}, "uid");
    const int64_t t0 = std::chrono::duration_cast<std::chrono::seconds>(clock.now().time_since_epoch()).count();
    const std::string first = "first system:serviceaccount:team:trainer tokens " + uid + " " + std::to_string(t0) + "\n";
    BOOST_REQUIRE_MESSAGE(eventually([&] { return log(p) == first; }), "log: " + log(p));
    // The token on the host side verifies here with the audience of the TrainJob.
    const fs::path file = stateDir() / "run" / uid / "volumes" / "tok" / "token";
    auto v = keys.issuer->verify(identity_test::readText(file), kAudience, clock.now());
    BOOST_TEST(v.ok(), v.error);

    clock.advance(2881s);  // past 80% of 3600 s: the worker's next check (<= 10 s) refreshes it
    p = waitPhase("tokens", "Succeeded");
    BOOST_TEST(log(p) == first + "refreshed system:serviceaccount:team:trainer tokens " + uid + " " +
                             std::to_string(t0 + 2881) + "\n");
    kubelet->stop();
    std::error_code ec;
    fs::remove_all(mountPath, ec);
}

BOOST_AUTO_TEST_CASE(without_an_issuer_the_pod_waits_with_a_failed_mount) {
    const std::string mountPath = "/run/" + marker("noissuer");
    startWith(nullptr);
    createPod("no-issuer", pythonPod("print('ran')", {}, tokenSource(), mountPath));
    auto p = waitPod("no-issuer", [](const json::object& p) {
        auto status = containerStatus(p);
        auto* w = at(status, {"state", "waiting"});
        return w && str(*w, {}, "message").find("without a token issuer") != std::string::npos;
    }, "a waiting container naming the missing issuer");
    BOOST_TEST(phase(p) == "Pending");
    auto status = containerStatus(p);
    auto* w = at(status, {"state", "waiting"});
    BOOST_REQUIRE(w);
    BOOST_TEST(str(*w, {}, "message") ==
               "MountVolume.SetUp failed for volume \"tok\" : spec.volumes[0].projected.sources[0].serviceAccountToken: "
               "the local executor cannot mint service account tokens: it was started without a token issuer");
    BOOST_TEST(log(p).empty());
    kubelet->stop();
    std::error_code ec;
    fs::remove_all(mountPath, ec);
}

BOOST_AUTO_TEST_CASE(pod_reaches_a_host_listener_by_an_operator_service_name) {
    HostListener listener("hello-from-host\n");
    startWith(nullptr, {"trainer-webhook.kubeflow-system.svc", "trainer-webhook.kubeflow-system.svc.cluster.local"});
    const std::string script =
        "import socket\n"
        "s = socket.create_connection(('trainer-webhook.kubeflow-system.svc', " + std::to_string(listener.port) + "), 10)\n"
        "print(s.recv(64).decode().strip())\n"
        "print(socket.gethostbyname('trainer-webhook.kubeflow-system.svc.cluster.local'))\n";
    createPod("dial", pythonPod(script, {}, {}, ""));
    auto p = waitPhase("dial", "Succeeded");
    const std::string hostIp = str(p, {"status"}, "hostIP");
    BOOST_REQUIRE(!hostIp.empty());
    BOOST_TEST(log(p) == "hello-from-host\n" + hostIp + "\n");
}

BOOST_AUTO_TEST_SUITE_END()
