// The Configuration's tls block on a real TLS server, checked with real openssl and curl clients.
#include <boost/test/unit_test.hpp>

#include "core/server/certs.hpp"
#include "core/server/http.hpp"
#include "core/server/tls_settings.hpp"
#include "core/server/webhook.hpp"
#include "test_util.hpp"

using namespace trainer::core;
using namespace trainer::core::server;

namespace {

struct TlsServer {
    explicit TlsServer(TlsSettings settings) : dir(trainer::test::tempDir("tls-settings")), watcher(dir.string()) {
        BOOST_TEST_REQUIRE(generateCertificates(dir.string(), CertOptions{"svc", "ns", 30, KeyType::EcdsaP256}) == "");
        watcher.setTlsSettings(std::move(settings));
        BOOST_TEST_REQUIRE(watcher.load() == "");
        ServerOptions o;
        o.bindAddress = "127.0.0.1:0";
        o.tls = watcher.provider();
        Route ok{"GET", "/", [](const Request&) { return Response{200, "text/plain", "ok", {}, nullptr}; }};
        server = std::make_unique<HttpServer>(runner.io, o, std::vector<Route>{ok});
        BOOST_TEST_REQUIRE(server->start() == "");
    }
    ~TlsServer() { server->stop(); }
    // openssl s_client's summary line for one handshake with `flags`.
    std::string handshake(const std::string& flags) {
        return trainer::test::run("openssl s_client -connect 127.0.0.1:" + std::to_string(server->port()) + " " + flags +
                                  " </dev/null 2>&1 | grep -E '^(New|    Protocol|    Cipher|ALPN|No ALPN)' ")
            .output;
    }
    std::string url() const { return "https://127.0.0.1:" + std::to_string(server->port()) + "/"; }

    trainer::test::IoRunner runner;
    std::filesystem::path dir;
    CertWatcher watcher;
    std::unique_ptr<HttpServer> server;
};

TlsSettings parsed(const std::string& minVersion, std::vector<std::string> suites, std::vector<std::string> protos = {}) {
    Diagnostics d;
    auto s = parseTlsSettings(minVersion, suites, protos, d);
    BOOST_TEST_REQUIRE(d.ok());
    return s;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(tls_settings)

BOOST_AUTO_TEST_CASE(min_version_13_refuses_a_tls12_client) {
    TlsServer s(parsed("1.3", {}));
    auto cacert = "--cacert " + (s.dir / "ca.crt").string() + " ";
    BOOST_TEST(trainer::test::curl(cacert + "--tls-max 1.2 " + s.url()).status == 0);
    auto r = trainer::test::curl(cacert + "--tlsv1.3 " + s.url());
    BOOST_TEST(r.status == 200);
    BOOST_TEST(s.handshake("-tls1_3").find("TLSv1.3") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(default_is_tls12_and_http11_alpn) {
    TlsServer s(TlsSettings{});
    BOOST_TEST(trainer::test::curl("--cacert " + (s.dir / "ca.crt").string() + " --tls-max 1.2 " + s.url()).status == 200);
    BOOST_TEST(trainer::test::run("openssl s_client -connect 127.0.0.1:" + std::to_string(s.server->port()) +
                                  " -tls1_1 </dev/null >/dev/null 2>&1")
                   .exitCode != 0);
    auto out = s.handshake("-alpn h2,http/1.1");
    BOOST_TEST(out.find("ALPN protocol: http/1.1") != std::string::npos, out);
    out = s.handshake("-alpn h2");
    BOOST_TEST(out.find("No ALPN negotiated") != std::string::npos, out);
}

BOOST_AUTO_TEST_CASE(cipher_suites_restrict_tls12) {
    TlsServer s(parsed("", {"TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384"}));
    auto ok = s.handshake("-tls1_2");
    BOOST_TEST(ok.find("ECDHE-ECDSA-AES256-GCM-SHA384") != std::string::npos, ok);
    auto refused = s.handshake("-tls1_2 -cipher ECDHE-ECDSA-AES128-GCM-SHA256");
    BOOST_TEST(refused.find("ECDHE-ECDSA-AES128-GCM-SHA256") == std::string::npos, refused);
    BOOST_TEST(trainer::test::run("openssl s_client -connect 127.0.0.1:" + std::to_string(s.server->port()) +
                                  " -tls1_2 -cipher ECDHE-ECDSA-AES128-GCM-SHA256 </dev/null >/dev/null 2>&1")
                   .exitCode != 0);
}

BOOST_AUTO_TEST_CASE(unknown_names_are_errors_with_paths) {
    Diagnostics d;
    parseTlsSettings("1.4", {"TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256", "BOGUS"}, {}, d);
    BOOST_TEST_REQUIRE(d.errors.size() == 2u);
    BOOST_TEST(d.errors[0].path == "tls.minVersion");
    BOOST_TEST(d.errors[1].path == "tls.cipherSuites[1]");
}

BOOST_AUTO_TEST_SUITE_END()
