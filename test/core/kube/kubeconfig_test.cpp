#define BOOST_TEST_MODULE test_core_kube
#include <boost/test/unit_test.hpp>

#include "kube_test_util.hpp"

#include "core/kube/base64.hpp"
#include "core/kube/rest_config.hpp"
#include "core/kube/server_url.hpp"

#include <filesystem>
#include <fstream>

namespace fs = std::filesystem;
using namespace trainer::core::kube;
using namespace trainer::test;
using namespace trainer::test::kube;

namespace {

// A temp dir with certificates (pki/, pki2/: another CA and key pair), a token file and the
// placeholders the kubeconfig texts below use.
struct Files {
    TempDir tmp;
    Pki pki = makePki(tmp.file("pki"));
    Pki other = makePki(tmp.file("pki2"));
    std::map<std::string, std::string> vars;
    Files() {
        tmp.write("tok", "  file-token\n");
        vars = {{"DIR", tmp.path.string()},        {"KC", tmp.file("kc")},
                {"CA", pki.ca},                    {"CERT", pki.cert},
                {"KEY", pki.key},                  {"CA_B64", base64(pki.ca)},
                {"CERT_B64", base64(pki.cert)},    {"KEY_B64", base64(pki.key)},
                {"OTHER_KEY_B64", base64(other.key)}};
    }
    std::string write(const std::string& name, const std::string& text) { return tmp.write(name, expand(text, vars)).string(); }
    std::string x(const std::string& text) const { return expand(text, vars); }
};

// One cluster "c" (CA data), one user "u" (token), one context "ctx" (namespace team-a), current.
const char* kBasic = R"(apiVersion: v1
kind: Config
clusters:
- name: c
  cluster:
    server: https://127.0.0.1:6443/prefix/
    certificate-authority-data: {CA_B64}
users:
- name: u
  user:
    token: tok-123
contexts:
- name: ctx
  context:
    cluster: c
    user: u
    namespace: team-a
current-context: ctx
)";

}  // namespace

BOOST_AUTO_TEST_CASE(kubeconfig_loads_clusters_users_and_contexts) {
    Files f;
    struct Case {
        const char* name;
        std::string yaml;
        std::string context;
        bool allowInsecure;
        RestConfig want;  // the fields compared; PEM placeholders expanded
    };
    auto cfg = [](std::string server, std::string ca, std::string token, std::string tokenFile, std::string cert,
                  std::string key, std::string ns, bool insecure = false, std::string sni = "") {
        RestConfig r;
        r.server = server, r.caPem = ca, r.token = token, r.tokenFile = tokenFile, r.clientCertPem = cert;
        r.clientKeyPem = key, r.ns = ns, r.insecureSkipTlsVerify = insecure, r.tlsServerName = sni;
        return r;
    };
    const std::string twoContexts = R"(clusters:
- name: a
  cluster: {server: "https://a.example:1", certificate-authority: pki/ca.crt}
- name: b
  cluster: {server: "https://b.example", certificate-authority: {DIR}/pki/ca.crt, tls-server-name: api.b}
users:
- name: ua
  user: {token: ta}
- name: ub
  user: {client-certificate: pki/tls.crt, client-key: pki/tls.key}
contexts:
- name: first
  context: {cluster: a, user: ua, namespace: ns-a}
- name: second
  context: {cluster: b, user: ub}
current-context: first
)";
    const Case cases[] = {
        {"token, CA data, namespace", kBasic, "", false,
         cfg("https://127.0.0.1:6443/prefix/", "{CA}", "tok-123", "", "", "", "team-a")},
        {"current context, CA file relative to the kubeconfig", twoContexts, "", false,
         cfg("https://a.example:1", "{CA}", "ta", "", "", "", "ns-a")},
        {"--context, client cert files, no namespace", twoContexts, "second", false,
         cfg("https://b.example", "{CA}", "", "", "{CERT}", "{KEY}", "default", false, "api.b")},
        {"tokenFile relative, client cert data", R"(clusters: [{name: c, cluster: {server: "https://h:2"}}]
users: [{name: u, user: {tokenFile: tok, client-certificate-data: {CERT_B64}, client-key-data: {KEY_B64}}}]
contexts: [{name: x, context: {cluster: c, user: u, namespace: ""}}]
current-context: x
)",
         "", false, cfg("https://h:2", "", "", "{DIR}/tok", "{CERT}", "{KEY}", "default")},
        {"no user, scheme-less server", R"(clusters: [{name: c, cluster: {server: "h:2"}}]
contexts: [{name: x, context: {cluster: c}}]
current-context: x
)",
         "", false, cfg("h:2", "", "", "", "", "", "default")},
        {"insecure allowed", R"(clusters: [{name: c, cluster: {server: "https://h:2", insecure-skip-tls-verify: true}}]
users: [{name: u, user: {token: t}}]
contexts: [{name: x, context: {cluster: c, user: u}}]
current-context: x
)",
         "", true, cfg("https://h:2", "", "t", "", "", "", "default", true)},
    };
    for (auto const& c : cases) {
        BOOST_TEST_CONTEXT(c.name) {
            auto path = f.write("kc", c.yaml);
            auto r = loadKubeconfig({path, c.context, c.allowInsecure});
            BOOST_TEST_REQUIRE(r.config.has_value(), r.error);
            BOOST_TEST(r.error.empty());
            auto const& got = *r.config;
            BOOST_TEST(got.server == c.want.server);
            BOOST_TEST(got.caPem == f.x(c.want.caPem));
            BOOST_TEST(got.token == c.want.token);
            BOOST_TEST(got.tokenFile == f.x(c.want.tokenFile));
            BOOST_TEST(got.clientCertPem == f.x(c.want.clientCertPem));
            BOOST_TEST(got.clientKeyPem == f.x(c.want.clientKeyPem));
            BOOST_TEST(got.ns == c.want.ns);
            BOOST_TEST(got.insecureSkipTlsVerify == c.want.insecureSkipTlsVerify);
            BOOST_TEST(got.tlsServerName == c.want.tlsServerName);
            BOOST_TEST(got.origin.find("kubeconfig " + path + ", context ") == 0u);
        }
    }
}

BOOST_AUTO_TEST_CASE(kubeconfig_errors_name_the_file_and_field) {
    Files f;
    // The header (clusters/users/contexts) most cases share; each case appends or replaces parts.
    auto one = [](std::string cluster, std::string user, std::string context = "{cluster: c, user: u}") {
        return "clusters: [{name: c, cluster: " + cluster + "}]\nusers: [{name: u, user: " + user +
               "}]\ncontexts: [{name: x, context: " + context + "}]\ncurrent-context: x\n";
    };
    const std::string server = "server: \"https://h:1\"";
    struct Case {
        const char* name;
        std::string yaml;
        std::string context;
        std::string error;
    };
    const Case cases[] = {
        {"cluster not found", R"(clusters: [{name: c, cluster: {server: "https://h"}}]
contexts:
- {name: a, context: {cluster: c}}
- {name: b, context: {cluster: nope}}
current-context: b
)",
         "", "{KC}: contexts[1].context.cluster: cluster \"nope\" not found"},
        {"user not found", one("{" + server + "}", "{}", "{cluster: c, user: ghost}"), "",
         "{KC}: contexts[0].context.user: user \"ghost\" not found"},
        {"--context not found", kBasic, "other", "{KC}: --context: context \"other\" not found"},
        {"current-context not found", "contexts: []\ncurrent-context: gone\n", "",
         "{KC}: current-context: context \"gone\" not found"},
        {"no current-context", "clusters: []\n", "", "{KC}: current-context: not set (and no --context given)"},
        {"empty file", "", "", "{KC}: current-context: not set (and no --context given)"},
        {"context without cluster", "contexts: [{name: x, context: {user: u}}]\ncurrent-context: x\n", "",
         "{KC}: contexts[0].context.cluster: no cluster named in context \"x\""},
        {"bad base64", one("{" + server + "}", "{client-certificate-data: 'YWJj!!!!', client-key-data: {KEY_B64}}"), "",
         "{KC}: users[0].user.client-certificate-data: illegal base64 data at input byte 4"},
        {"truncated base64", one("{" + server + ", certificate-authority-data: YWJjZA}", "{}"), "",
         "{KC}: clusters[0].cluster.certificate-authority-data: illegal base64 data at input byte 4"},
        {"CA data not PEM", one("{" + server + ", certificate-authority-data: aGVsbG8=}", "{}"), "",
         "{KC}: clusters[0].cluster.certificate-authority-data: unable to load root certificates: unable to parse bytes as PEM block"},
        {"CA file missing", one("{" + server + ", certificate-authority: missing.crt}", "{}"), "",
         "{KC}: clusters[0].cluster.certificate-authority: {DIR}/missing.crt: No such file or directory"},
        {"CA file and data", one("{" + server + ", certificate-authority: pki/ca.crt, certificate-authority-data: {CA_B64}}", "{}"),
         "", "{KC}: clusters[0].cluster: certificate-authority-data and certificate-authority are both specified; only one is allowed"},
        {"insecure refused", one("{" + server + ", insecure-skip-tls-verify: true}", "{}"), "",
         "{KC}: clusters[0].cluster.insecure-skip-tls-verify: refusing to connect without verifying the server's "
         "certificate (insecure connections are not allowed)"},
        {"insecure with a CA", one("{" + server + ", insecure-skip-tls-verify: true, certificate-authority-data: {CA_B64}}", "{}"),
         "", "{KC}: clusters[0].cluster: specifying a root certificates file with the insecure flag is not allowed"},
        {"insecure not a bool", one("{" + server + ", insecure-skip-tls-verify: 'yes'}", "{}"), "",
         "{KC}: clusters[0].cluster.insecure-skip-tls-verify: expected a boolean"},
        {"no server", one("{}", "{}"), "", "{KC}: clusters[0].cluster.server: no server found for cluster \"c\""},
        {"server not a string", one("{server: 12}", "{}"), "", "{KC}: clusters[0].cluster.server: expected a string"},
        {"server bad scheme", one("{server: 'ftp://h'}", "{}"), "",
         "{KC}: clusters[0].cluster.server: invalid URL \"ftp://h\": unsupported scheme \"ftp\""},
        {"server bad port", one("{server: 'https://h:99999'}", "{}"), "",
         "{KC}: clusters[0].cluster.server: invalid URL \"https://h:99999\": invalid port \":99999\""},
        {"proxy", one("{" + server + ", proxy-url: 'http://p:3128'}", "{}"), "",
         "{KC}: clusters[0].cluster.proxy-url: proxies are not supported"},
        {"tokenFile missing", one("{" + server + "}", "{tokenFile: nothere}"), "",
         "{KC}: users[0].user.tokenFile: {DIR}/nothere: No such file or directory"},
        {"token not a string", one("{" + server + "}", "{token: [a]}"), "", "{KC}: users[0].user.token: expected a string"},
        {"cert without key", one("{" + server + "}", "{client-certificate: pki/tls.crt}"), "",
         "{KC}: users[0].user: client-certificate is given without client-key"},
        {"key without cert", one("{" + server + "}", "{client-key-data: {KEY_B64}}"), "",
         "{KC}: users[0].user: client-key is given without client-certificate"},
        {"cert and key mismatch", one("{" + server + "}", "{client-certificate-data: {CERT_B64}, client-key-data: {OTHER_KEY_B64}}"),
         "", "{KC}: users[0].user: tls: private key does not match public key"},
        {"key not PEM", one("{" + server + "}", "{client-certificate-data: {CERT_B64}, client-key-data: aGVsbG8=}"), "",
         "{KC}: users[0].user: tls: failed to find any PEM data in key input"},
        {"exec", one("{" + server + "}", "{exec: {command: aws}}"), "",
         "{KC}: users[0].user.exec: exec credential plugins are not supported"},
        {"basic auth", one("{" + server + "}", "{username: a, password: b}"), "",
         "{KC}: users[0].user.username: basic authentication is not supported"},
        {"clusters not a list", "clusters: {a: 1}\ncontexts: [{name: x, context: {cluster: c}}]\ncurrent-context: x\n", "",
         "{KC}: clusters: expected a list"},
        {"entry not a mapping", "contexts: [3]\ncurrent-context: x\n", "", "{KC}: contexts[0]: expected a mapping"},
        {"body not a mapping", "contexts: [{name: x, context: 3}]\ncurrent-context: x\n", "",
         "{KC}: contexts[0].context: expected a mapping"},
        {"duplicate name", "contexts: [{name: x, context: {cluster: c}}, {name: x, context: {}}]\ncurrent-context: x\n", "",
         "{KC}: contexts[1].name: duplicate name \"x\" in list"},
        {"YAML syntax", "clusters:\n- name: c\n  cluster: {server: [\n", "",
         "{KC}: line 4, column 1: end of sequence flow not found"},
        {"not a mapping", "- a\n- b\n", "", "{KC}: expected a mapping (a kubeconfig)"},
        {"two documents", "a: 1\n---\nb: 2\n", "", "{KC}: expected one YAML document, found 2"},
    };
    for (auto const& c : cases) {
        BOOST_TEST_CONTEXT(c.name) {
            auto path = f.write("kc", c.yaml);
            auto r = loadKubeconfig({path, c.context, false});
            BOOST_TEST(!r.config.has_value());
            BOOST_TEST(r.error == f.x(c.error));
        }
    }
}

BOOST_AUTO_TEST_CASE(kubeconfig_file_is_chosen_like_client_go) {
    Files f;
    auto second = f.write("second", kBasic);
    std::string thirdText = f.x(kBasic);
    thirdText.replace(thirdText.find("tok-123"), 7, "tok-third");
    auto third = f.tmp.write("third", thirdText).string();
    fs::create_directories(f.tmp.path / "home" / ".kube");
    std::string homeText = thirdText;
    homeText.replace(homeText.find("tok-third"), 9, "tok-home");
    f.tmp.write("home/.kube/config", homeText);
    auto missing = f.tmp.file("missing");
    using Env = std::map<std::string, std::optional<std::string>>;
    struct Case {
        const char* name;
        std::string path;
        Env env;
        std::string token;  // expected; empty: expect `error`
        std::string error;
    };
    const std::string home = f.tmp.file("home");
    const Case cases[] = {
        {"--kubeconfig wins over $KUBECONFIG", second, Env{{"KUBECONFIG", third}}, "tok-123", ""},
        {"first existing file of $KUBECONFIG", "", Env{{"KUBECONFIG", missing + "::" + third + ":" + second}}, "tok-third", ""},
        {"$KUBECONFIG wins over HOME", "", Env{{"KUBECONFIG", second}, {"HOME", home}}, "tok-123", ""},
        {"$KUBECONFIG with no existing file", "", Env{{"KUBECONFIG", missing}, {"HOME", home}}, "",
         "$KUBECONFIG (" + missing + "): none of the listed files exists"},
        {"~/.kube/config", "", Env{{"KUBECONFIG", std::nullopt}, {"HOME", home}}, "tok-home", ""},
        {"~/.kube/config missing", "", Env{{"KUBECONFIG", ""}, {"HOME", f.tmp.file("nohome")}}, "",
         f.tmp.file("nohome") + "/.kube/config: No such file or directory"},
        {"--kubeconfig missing", missing, Env{}, "", missing + ": No such file or directory"},
        {"--kubeconfig a directory", f.tmp.file("pki"), Env{}, "", f.tmp.file("pki") + ": is a directory"},
    };
    for (auto const& c : cases) {
        BOOST_TEST_CONTEXT(c.name) {
            EnvGuard env(c.env);
            auto r = loadKubeconfig({c.path, "", false});
            if (c.token.empty()) {
                BOOST_TEST(!r.config.has_value());
                BOOST_TEST(r.error == c.error);
            } else {
                BOOST_TEST_REQUIRE(r.config.has_value(), r.error);
                BOOST_TEST(r.config->token == c.token);
            }
        }
    }
}

BOOST_AUTO_TEST_CASE(in_cluster_config_reads_the_service_account) {
    Files f;
    fs::create_directories(f.tmp.path / "sa");
    fs::create_directories(f.tmp.path / "sa-min");
    fs::create_directories(f.tmp.path / "sa-badca");
    f.tmp.write("sa/token", "sa-token\n");
    f.tmp.write("sa/ca.crt", f.pki.ca);
    f.tmp.write("sa/namespace", "kubeflow-system\n");
    f.tmp.write("sa-min/token", "t");
    f.tmp.write("sa-badca/token", "t");
    f.tmp.write("sa-badca/ca.crt", "not a certificate");
    using Env = std::map<std::string, std::optional<std::string>>;
    struct Case {
        const char* name;
        std::string root;
        Env env;
        std::string server, ca, ns, error;
    };
    const std::string sa = f.tmp.file("sa");
    const Case cases[] = {
        {"IPv4", sa, Env{{"KUBERNETES_SERVICE_HOST", "10.96.0.1"}, {"KUBERNETES_SERVICE_PORT", "443"}},
         "https://10.96.0.1:443", f.pki.ca, "kubeflow-system", ""},
        {"IPv6 bracketed", sa, Env{{"KUBERNETES_SERVICE_HOST", "fd00::1"}, {"KUBERNETES_SERVICE_PORT", "6443"}},
         "https://[fd00::1]:6443", f.pki.ca, "kubeflow-system", ""},
        {"no ca.crt or namespace", f.tmp.file("sa-min"),
         Env{{"KUBERNETES_SERVICE_HOST", "h"}, {"KUBERNETES_SERVICE_PORT", "1"}}, "https://h:1", "", "default", ""},
        {"not in a cluster", sa, Env{{"KUBERNETES_SERVICE_HOST", std::nullopt}, {"KUBERNETES_SERVICE_PORT", "443"}}, "", "", "",
         "unable to load in-cluster configuration, KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT must be defined"},
        {"no port", sa, Env{{"KUBERNETES_SERVICE_HOST", "h"}, {"KUBERNETES_SERVICE_PORT", ""}}, "", "", "",
         "unable to load in-cluster configuration, KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT must be defined"},
        {"no token", f.tmp.file("nothing"), Env{{"KUBERNETES_SERVICE_HOST", "h"}, {"KUBERNETES_SERVICE_PORT", "1"}}, "", "", "",
         "in-cluster configuration: " + f.tmp.file("nothing") + "/token: No such file or directory"},
        {"bad port", sa, Env{{"KUBERNETES_SERVICE_HOST", "h"}, {"KUBERNETES_SERVICE_PORT", "http"}}, "", "", "",
         "in-cluster configuration: invalid URL \"https://h:http\": invalid port \":http\""},
        {"bad ca.crt", f.tmp.file("sa-badca"), Env{{"KUBERNETES_SERVICE_HOST", "h"}, {"KUBERNETES_SERVICE_PORT", "1"}}, "", "", "",
         f.tmp.file("sa-badca") + "/ca.crt: unable to load root certificates: unable to parse bytes as PEM block"},
    };
    for (auto const& c : cases) {
        BOOST_TEST_CONTEXT(c.name) {
            EnvGuard env(c.env);
            auto r = inClusterConfig(c.root);
            if (!c.error.empty()) {
                BOOST_TEST(!r.config.has_value());
                BOOST_TEST(r.error == c.error);
                continue;
            }
            BOOST_TEST_REQUIRE(r.config.has_value(), r.error);
            BOOST_TEST(r.config->server == c.server);
            BOOST_TEST(r.config->caPem == c.ca);
            BOOST_TEST(r.config->ns == c.ns);
            BOOST_TEST(r.config->token.empty());
            BOOST_TEST(r.config->tokenFile == c.root + "/token");
        }
    }
}

BOOST_AUTO_TEST_CASE(base64_decodes_like_go_std_encoding) {
    struct Case {
        const char* in;
        const char* out;  // nullptr: error
        const char* error;
    };
    const Case cases[] = {
        {"", "", ""},
        {"YWJj", "abc", ""},
        {"YWI=", "ab", ""},
        {"YQ==", "a", ""},
        {"YW\nJj\r\n", "abc", ""},
        {"YWI", nullptr, "illegal base64 data at input byte 0"},
        {"YWJjZA", nullptr, "illegal base64 data at input byte 4"},
        {"YW!j", nullptr, "illegal base64 data at input byte 2"},
        {"Y===", nullptr, "illegal base64 data at input byte 1"},
        {"YQ=a", nullptr, "illegal base64 data at input byte 2"},
        {"YQ==YWJj", nullptr, "illegal base64 data at input byte 4"},
        {"YQ=", nullptr, "illegal base64 data at input byte 3"},
    };
    for (auto const& c : cases) {
        BOOST_TEST_CONTEXT(c.in) {
            std::string out, error;
            bool ok = decodeBase64(c.in, out, error);
            BOOST_TEST(ok == (c.out != nullptr));
            if (c.out) BOOST_TEST(out == c.out);
            BOOST_TEST(error == c.error);
        }
    }
}

BOOST_AUTO_TEST_CASE(server_urls_are_parsed) {
    struct Case {
        const char* in;
        bool tls;
        const char* host;
        const char* port;
        const char* hostHeader;
        const char* prefix;
        const char* error;
    };
    const Case cases[] = {
        {"https://127.0.0.1:6443", true, "127.0.0.1", "6443", "127.0.0.1:6443", "", ""},
        {"http://localhost", false, "localhost", "80", "localhost", "", ""},
        {"https://[::1]:8443/k8s/clusters/c1/", true, "::1", "8443", "[::1]:8443", "/k8s/clusters/c1", ""},
        {"api.example.com", true, "api.example.com", "443", "api.example.com", "", ""},
        {"HTTPS://h", true, "h", "443", "h", "", ""},
        {"https://", false, "", "", "", "", "invalid URL \"https://\": missing host"},
        {"https://u@h", false, "", "", "", "", "invalid URL \"https://u@h\": user information is not supported"},
        {"https://h:0", false, "", "", "", "", "invalid URL \"https://h:0\": invalid port \":0\""},
        {"https://[::1", false, "", "", "", "", "invalid URL \"https://[::1\": missing ']' in host"},
        {"https://h/?a=b", false, "", "", "", "", "invalid URL \"https://h/?a=b\": a query or fragment is not allowed"},
    };
    for (auto const& c : cases) {
        BOOST_TEST_CONTEXT(c.in) {
            std::string error;
            auto u = parseServerUrl(c.in, error);
            BOOST_TEST(error == c.error);
            BOOST_TEST(u.has_value() == (*c.error == '\0'));
            if (!u) continue;
            BOOST_TEST(u->tls == c.tls);
            BOOST_TEST(u->host == c.host);
            BOOST_TEST(u->port == c.port);
            BOOST_TEST(u->hostHeader == c.hostHeader);
            BOOST_TEST(u->pathPrefix == c.prefix);
        }
    }
}
