// Projected serviceAccountToken sources on disk: the token bound to the pod, its file written
// atomically with the volume's mode, the API server's validation, and a clear problem when the
// executor has no issuer.
#include "core/api/object_set.hpp"
#include "core/executor/volumes.hpp"
#include "identity_fixture.hpp"

#include <sys/stat.h>

using namespace identity_test;
using namespace std::chrono_literals;
using executor::PodVolumes;
using executor::TokenManager;

namespace {

const std::string kAudience = auth::tokenAudience("team", "job");

json::object pod(std::string_view extraSpec, std::string_view volumes) {
    json::object p = json::parse(R"({"apiVersion":"v1","kind":"Pod","metadata":{"namespace":"team",
        "name":"job-node-0-0-x1","uid":"pod-uid-1"}})").as_object();
    p["spec"] = json::parse(std::string("{") + std::string(extraSpec) + R"("containers":[{"name":"c"}],"volumes":)" +
                            std::string(volumes) + "}");
    return p;
}

std::string problemOf(const PodVolumes& v) { return v.problem ? v.problem->message : ""; }

unsigned modeOf(const fs::path& p) {
    struct stat st {};
    BOOST_REQUIRE(::stat(p.c_str(), &st) == 0);
    return st.st_mode & 07777;
}

struct VolumeFixture : IssuerDir {
    controller::FakeClock clock;
    TokenManager tokens{issuer, clock};
    ObjectSet cluster;
    fs::path podDir() const { return path / "pod"; }
    PodVolumes materialize(const json::object& p, TokenManager* t) {
        return executor::materializeVolumes(p, cluster, podDir(), {}, t);
    }
};

}  // namespace

BOOST_FIXTURE_TEST_SUITE(token_volume, VolumeFixture)

BOOST_AUTO_TEST_CASE(token_file_is_bound_to_the_pod_and_verifies) {
    cluster.put(json::parse(R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"namespace":"team",
        "name":"job-tls-config"},"data":{"ca.crt":"PEM"}})").as_object());
    auto p = pod(R"("serviceAccountName":"trainer",)", R"([{"name":"kubeflow-trainer-token","projected":{"sources":[
        {"serviceAccountToken":{"audience":")" + kAudience + R"(","expirationSeconds":3600,"path":"token"}},
        {"configMap":{"name":"job-tls-config","items":[{"key":"ca.crt","path":"ca.crt"}]}}]}}])");
    auto v = materialize(p, &tokens);
    BOOST_REQUIRE_MESSAGE(!v.problem, problemOf(v));
    const fs::path dir = podDir() / "volumes" / "kubeflow-trainer-token";
    BOOST_TEST(fs::is_symlink(dir / "token"));
    BOOST_TEST(readText(dir / "ca.crt") == "PEM");
    BOOST_TEST(modeOf(dir / "token") == 0644u);
    const std::string token = readText(dir / "token");
    auto verified = issuer->verify(token, kAudience, clock.now());
    BOOST_REQUIRE_MESSAGE(verified.ok(), verified.error);
    BOOST_TEST(verified.claims->ns == "team");
    BOOST_TEST(verified.claims->serviceAccount == "trainer");
    BOOST_TEST(verified.claims->podName == "job-node-0-0-x1");
    BOOST_TEST(verified.claims->podUid == "pod-uid-1");
    BOOST_TEST((verified.claims->expiresAt - verified.claims->issuedAt == 3600s));

    // Again before the refresh point: the same token, nothing rewritten.
    const auto data = fs::read_symlink(dir / "..data");
    clock.advance(2000s);
    BOOST_TEST(!materialize(p, &tokens).problem);
    BOOST_TEST(readText(dir / "token") == token);
    BOOST_TEST(fs::read_symlink(dir / "..data") == data);
    // After it: a new token in a new data directory.
    clock.advance(1000s);
    BOOST_TEST(!materialize(p, &tokens).problem);
    BOOST_TEST(readText(dir / "token") != token);
    BOOST_TEST(fs::read_symlink(dir / "..data") != data);
    BOOST_TEST(issuer->verify(readText(dir / "token"), kAudience, clock.now()).ok());
}

BOOST_AUTO_TEST_CASE(defaults_service_account_audience_expiry_and_take_the_volume_mode) {
    auto p = pod("", R"([{"name":"t","projected":{"defaultMode":256,"sources":[{"serviceAccountToken":{"path":"sa/token"}}]}}])");
    auto v = materialize(p, &tokens);
    BOOST_REQUIRE_MESSAGE(!v.problem, problemOf(v));
    const fs::path file = podDir() / "volumes" / "t" / "sa" / "token";
    BOOST_TEST(modeOf(file) == 0400u);
    auto claims = claimsOf(readText(file));
    BOOST_TEST(json::serialize(claims.at("aud")) == R"(["https://kubernetes.default.svc.cluster.local"])");
    BOOST_TEST(claims.at("sub").as_string() == "system:serviceaccount:team:default");
    BOOST_TEST(claims.at("exp").as_int64() - claims.at("iat").as_int64() == 3600);
}

BOOST_AUTO_TEST_CASE(without_an_issuer_the_volume_cannot_be_set_up) {
    auto p = pod("", R"([{"name":"tok","projected":{"sources":[{"serviceAccountToken":{"path":"token"}}]}}])");
    auto v = materialize(p, nullptr);
    BOOST_REQUIRE(v.problem);
    BOOST_TEST(v.problem->reason == "FailedMount");
    BOOST_TEST(v.problem->message ==
               "MountVolume.SetUp failed for volume \"tok\" : spec.volumes[0].projected.sources[0].serviceAccountToken: "
               "the local executor cannot mint service account tokens: it was started without a token issuer");
    BOOST_TEST(!fs::exists(podDir() / "volumes" / "tok" / "token"));
}

BOOST_AUTO_TEST_CASE(invalid_sources_name_the_field) {
    const std::string prefix = "MountVolume.SetUp failed for volume \"tok\" : spec.volumes[0].projected.sources[0].serviceAccountToken";
    const std::pair<std::string, std::string> cases[] = {
        {R"({"path":"token","expirationSeconds":599})",
         ".expirationSeconds: Invalid value: 599: may not specify a duration less than 10 minutes"},
        {R"({"path":"token","expirationSeconds":4294967297})",
         ".expirationSeconds: Invalid value: 4294967297: may not specify a duration larger than 2^32 seconds"},
        {R"({"audience":"a"})", ".path: Required value"},
        {R"({"path":"../token"})", ".path: Invalid value: \"../token\": invalid path: must not contain '..': ../token"},
        {R"({"path":"token","audience":7})", ".audience: Invalid value: 7: must be a string"},
    };
    for (auto const& [source, want] : cases) {
        auto v = materialize(pod("", R"([{"name":"tok","projected":{"sources":[{"serviceAccountToken":)" + source + "}]}}]"),
                             &tokens);
        BOOST_TEST(problemOf(v) == prefix + want, source);
    }
}

BOOST_AUTO_TEST_SUITE_END()
