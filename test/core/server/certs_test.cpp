#include <boost/test/unit_test.hpp>

#include "core/server/certs.hpp"
#include "test_util.hpp"

#include <sys/stat.h>

using namespace trainer::core::server;
using trainer::test::run;

BOOST_AUTO_TEST_SUITE(certs)

BOOST_AUTO_TEST_CASE(generated_chain_verifies_with_all_sans) {
    struct Case {
        std::string name;
        KeyType type;
        std::string keyAlgorithm;  // as `openssl x509 -text` prints it
    };
    const std::vector<Case> cases{
        {"ecdsa", KeyType::EcdsaP256, "id-ecPublicKey"},
        {"rsa", KeyType::Rsa2048, "rsaEncryption"},
    };
    for (const auto& c : cases) {
        BOOST_TEST_CONTEXT(c.name) {
            auto dir = trainer::test::tempDir("certs-" + c.name);
            CertOptions opts;
            opts.service = "trainer-webhook";
            opts.ns = "kubeflow";
            opts.keyType = c.type;
            BOOST_TEST_REQUIRE(generateCertificates(dir.string(), opts) == "");

            struct stat st{};
            BOOST_TEST_REQUIRE(::stat((dir / "tls.key").c_str(), &st) == 0);
            BOOST_TEST((st.st_mode & 0777) == 0600u);
            BOOST_TEST(std::filesystem::exists(dir / "ca.crt"));
            BOOST_TEST(!std::filesystem::exists(dir / ".tls.crt.tmp"));

            auto verify = run("openssl verify -purpose sslserver -CAfile " + (dir / "ca.crt").string() + " " +
                              (dir / "tls.crt").string() + " 2>&1");
            BOOST_TEST(verify.exitCode == 0, verify.output);
            BOOST_TEST(verify.output.find(": OK") != std::string::npos);

            auto text = run("openssl x509 -noout -text -in " + (dir / "tls.crt").string()).output;
            const std::vector<std::string> sans{
                "DNS:trainer-webhook,",
                "DNS:trainer-webhook.kubeflow,",
                "DNS:trainer-webhook.kubeflow.svc,",
                "DNS:trainer-webhook.kubeflow.svc.cluster.local,",
                "DNS:localhost,",
                "IP Address:127.0.0.1",
                "TLS Web Server Authentication",
                c.keyAlgorithm,
            };
            for (const auto& s : sans) BOOST_TEST(text.find(s) != std::string::npos, "missing " << s);
            for (const auto& host : {"trainer-webhook.kubeflow.svc", "localhost"}) {
                auto check = run("openssl x509 -noout -checkhost " + std::string(host) + " -in " + (dir / "tls.crt").string());
                BOOST_TEST(check.output.find("does match") != std::string::npos, check.output);
            }
            auto ip = run("openssl x509 -noout -checkip 127.0.0.1 -in " + (dir / "tls.crt").string());
            BOOST_TEST(ip.output.find("does match") != std::string::npos);
            // The key matches the certificate.
            auto certPub = run("openssl x509 -noout -pubkey -in " + (dir / "tls.crt").string()).output;
            auto keyPub = run("openssl pkey -pubout -in " + (dir / "tls.key").string()).output;
            BOOST_TEST(!certPub.empty());
            BOOST_TEST(certPub == keyPub);
            // The CA is a CA.
            auto caText = run("openssl x509 -noout -text -in " + (dir / "ca.crt").string()).output;
            BOOST_TEST(caText.find("CA:TRUE") != std::string::npos);
        }
    }
}

BOOST_AUTO_TEST_CASE(serving_dns_names_and_bad_options) {
    CertOptions opts{"svc", "ns", 30, KeyType::EcdsaP256};
    std::vector<std::string> want{"svc", "svc.ns", "svc.ns.svc", "svc.ns.svc.cluster.local", "localhost"};
    BOOST_TEST(servingDnsNames(opts) == want, boost::test_tools::per_element());
    auto dir = trainer::test::tempDir("certs-bad");
    BOOST_TEST(generateCertificates(dir.string(), CertOptions{"", "ns", 30, KeyType::EcdsaP256}) != "");
    BOOST_TEST(generateCertificates(dir.string(), CertOptions{"svc", "ns", 0, KeyType::EcdsaP256}) != "");
    trainer::test::writeFile(dir / "file", "x");
    BOOST_TEST(generateCertificates((dir / "file" / "sub").string(), opts) != "");
}

BOOST_AUTO_TEST_SUITE_END()
