// Loading a kubeconfig the way client-go's clientcmd does (k8s.io/client-go/tools/clientcmd:
// loader.go, client_config.go, validation.go), for the fields this operator uses. One file is
// read: --kubeconfig, else the first existing file of $KUBECONFIG (client-go merges them all),
// else ~/.kube/config.
#include "core/kube/rest_config.hpp"

#include "core/json/io.hpp"
#include "core/kube/base64.hpp"
#include "core/kube/server_url.hpp"
#include "core/kube/tls_material.hpp"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace trainer::core::kube {

namespace fs = std::filesystem;
namespace json = boost::json;

namespace {

// The whole file, or false with `error` = "<path>: <strerror>".
bool readFile(const std::string& path, std::string& out, std::string& error) {
    std::error_code ec;
    if (fs::is_directory(path, ec)) return error = path + ": is a directory", false;
    std::ifstream in(path, std::ios::binary);
    if (!in) return error = path + ": " + std::strerror(errno), false;
    std::stringstream ss;
    ss << in.rdbuf();
    out = ss.str();
    return true;
}

// Fails with "<file>: <field>: <message>" (the field left out when empty).
struct Loader {
    std::string file;
    fs::path dir;
    std::string error;

    bool fail(const std::string& field, const std::string& message) {
        error = file + ": " + (field.empty() ? "" : field + ": ") + message;
        return false;
    }

    // A relative path is taken against the kubeconfig's directory (clientcmd ResolvePaths).
    std::string resolve(const std::string& p) const { return fs::path(p).is_absolute() ? p : (dir / p).string(); }

    bool readReferenced(const std::string& field, const std::string& path, std::string& out) {
        std::string why;
        return readFile(resolve(path), out, why) || fail(field, why);
    }
};

// Typed field access: absent or null is the empty value; another type is an error.
bool getString(Loader& l, const json::object& o, const std::string& at, std::string_view key, std::string& out) {
    auto* v = o.if_contains(key);
    if (!v || v->is_null()) return true;
    if (!v->is_string()) return l.fail(at + "." + std::string(key), "expected a string");
    out = std::string(v->get_string());
    return true;
}

bool getBool(Loader& l, const json::object& o, const std::string& at, std::string_view key, bool& out) {
    auto* v = o.if_contains(key);
    if (!v || v->is_null()) return true;
    if (!v->is_bool()) return l.fail(at + "." + std::string(key), "expected a boolean");
    out = v->get_bool();
    return true;
}

// A named entry of a top-level list (clusters, users, contexts) and its body mapping.
struct Entry {
    const json::object* body = nullptr;
    std::string path;  // "clusters[0].cluster"
};

// Finds `name` in the list `list` whose entries are {name, <bodyKey>: {...}}. Duplicate names are
// an error, as clientcmd's conversion from the v1 lists reports them.
bool findEntry(Loader& l, const json::object& root, std::string_view list, std::string_view bodyKey,
               const std::string& name, Entry& found) {
    static const json::object empty;
    auto* v = root.if_contains(list);
    if (!v || v->is_null()) return true;
    if (!v->is_array()) return l.fail(std::string(list), "expected a list");
    auto const& arr = v->get_array();
    for (std::size_t i = 0; i < arr.size(); ++i) {
        std::string at = std::string(list) + "[" + std::to_string(i) + "]";
        if (!arr[i].is_object()) return l.fail(at, "expected a mapping");
        auto const& e = arr[i].get_object();
        std::string entryName;
        if (!getString(l, e, at, "name", entryName)) return false;
        if (entryName != name) continue;
        if (found.body) return l.fail(at + ".name", "duplicate name \"" + name + "\" in list");
        auto* b = e.if_contains(bodyKey);
        if (b && !b->is_null() && !b->is_object()) return l.fail(at + "." + std::string(bodyKey), "expected a mapping");
        found.body = b && b->is_object() ? &b->get_object() : &empty;
        found.path = at + "." + std::string(bodyKey);
    }
    return true;
}

// A PEM field given inline (base64 `<key>-data`) or as a file (`<key>`); at most one of them.
bool pemField(Loader& l, const Entry& e, const std::string& key, std::string& out, std::string& usedField) {
    std::string path, data;
    if (!getString(l, *e.body, e.path, key, path) || !getString(l, *e.body, e.path, key + "-data", data)) return false;
    if (!path.empty() && !data.empty())
        return l.fail(e.path, key + "-data and " + key + " are both specified; only one is allowed");
    if (!data.empty()) {
        usedField = e.path + "." + key + "-data";
        std::string why;
        return decodeBase64(data, out, why) || l.fail(usedField, why);
    }
    if (!path.empty()) {
        usedField = e.path + "." + key;
        return l.readReferenced(usedField, path, out);
    }
    return true;
}

bool loadCluster(Loader& l, const Entry& c, const std::string& name, bool allowInsecure, RestConfig& rc) {
    auto const& o = *c.body;
    std::string server, proxy;
    if (!getString(l, o, c.path, "server", server) || !getString(l, o, c.path, "proxy-url", proxy) ||
        !getString(l, o, c.path, "tls-server-name", rc.tlsServerName) ||
        !getBool(l, o, c.path, "insecure-skip-tls-verify", rc.insecureSkipTlsVerify))
        return false;
    if (server.empty()) return l.fail(c.path + ".server", "no server found for cluster \"" + name + "\"");
    std::string why;
    if (!parseServerUrl(server, why)) return l.fail(c.path + ".server", why);
    rc.server = server;
    if (!proxy.empty()) return l.fail(c.path + ".proxy-url", "proxies are not supported");
    std::string caField;
    if (!pemField(l, c, "certificate-authority", rc.caPem, caField)) return false;
    if (rc.insecureSkipTlsVerify) {
        if (!rc.caPem.empty())
            return l.fail(c.path, "specifying a root certificates file with the insecure flag is not allowed");
        if (!allowInsecure)
            return l.fail(c.path + ".insecure-skip-tls-verify",
                          "refusing to connect without verifying the server's certificate (insecure connections are not allowed)");
    }
    if (!rc.caPem.empty()) {
        if (auto bad = checkCertificates(rc.caPem); !bad.empty()) return l.fail(caField, bad);
    }
    return true;
}

// Authentication this client does not implement is refused rather than silently dropped.
bool refuseUnsupportedAuth(Loader& l, const Entry& u) {
    static const std::pair<const char*, const char*> unsupported[] = {
        {"exec", "exec credential plugins are not supported"},
        {"auth-provider", "auth providers are not supported"},
        {"username", "basic authentication is not supported"},
        {"password", "basic authentication is not supported"},
        {"as", "impersonation is not supported"},
        {"as-uid", "impersonation is not supported"},
        {"as-groups", "impersonation is not supported"},
    };
    for (auto const& [key, why] : unsupported) {
        auto* v = u.body->if_contains(key);
        if (v && !v->is_null()) return l.fail(u.path + "." + key, why);
    }
    return true;
}

bool loadUser(Loader& l, const Entry& u, RestConfig& rc) {
    if (!refuseUnsupportedAuth(l, u)) return false;
    std::string tokenFile, certField, keyField;
    if (!getString(l, *u.body, u.path, "token", rc.token) || !getString(l, *u.body, u.path, "tokenFile", tokenFile) ||
        !pemField(l, u, "client-certificate", rc.clientCertPem, certField) ||
        !pemField(l, u, "client-key", rc.clientKeyPem, keyField))
        return false;
    if (!tokenFile.empty()) {
        rc.tokenFile = l.resolve(tokenFile);
        std::string ignored;
        if (!l.readReferenced(u.path + ".tokenFile", tokenFile, ignored)) return false;
    }
    if (rc.clientCertPem.empty() != rc.clientKeyPem.empty())
        return l.fail(u.path, rc.clientCertPem.empty() ? "client-key is given without client-certificate"
                                                       : "client-certificate is given without client-key");
    if (!rc.clientCertPem.empty()) {
        if (auto bad = checkKeyPair(rc.clientCertPem, rc.clientKeyPem); !bad.empty()) return l.fail(u.path, bad);
    }
    return true;
}

// The context to use: --context, else current-context; where that name came from, for messages.
bool pickContext(Loader& l, const json::object& root, const std::string& wanted, std::string& name, std::string& from) {
    if (!wanted.empty()) {
        name = wanted;
        from = "--context";
        return true;
    }
    if (!getString(l, root, "", "current-context", name)) return false;
    from = "current-context";
    if (name.empty()) return l.fail("current-context", "not set (and no --context given)");
    return true;
}

bool loadConfig(Loader& l, const json::object& root, const KubeconfigOptions& options, RestConfig& rc) {
    std::string contextName, from;
    if (!pickContext(l, root, options.context, contextName, from)) return false;
    Entry ctx;
    if (!findEntry(l, root, "contexts", "context", contextName, ctx)) return false;
    if (!ctx.body) return l.fail(from, "context \"" + contextName + "\" not found");
    std::string clusterName, userName;
    if (!getString(l, *ctx.body, ctx.path, "cluster", clusterName) || !getString(l, *ctx.body, ctx.path, "user", userName) ||
        !getString(l, *ctx.body, ctx.path, "namespace", rc.ns))
        return false;
    if (rc.ns.empty()) rc.ns = "default";
    if (clusterName.empty()) return l.fail(ctx.path + ".cluster", "no cluster named in context \"" + contextName + "\"");
    Entry cluster;
    if (!findEntry(l, root, "clusters", "cluster", clusterName, cluster)) return false;
    if (!cluster.body) return l.fail(ctx.path + ".cluster", "cluster \"" + clusterName + "\" not found");
    if (!loadCluster(l, cluster, clusterName, options.allowInsecure, rc)) return false;
    if (!userName.empty()) {
        Entry user;
        if (!findEntry(l, root, "users", "user", userName, user)) return false;
        if (!user.body) return l.fail(ctx.path + ".user", "user \"" + userName + "\" not found");
        if (!loadUser(l, user, rc)) return false;
    }
    rc.origin = "kubeconfig " + l.file + ", context " + contextName;
    return true;
}

// --kubeconfig, else the first existing file of $KUBECONFIG, else $HOME/.kube/config.
bool choosePath(const KubeconfigOptions& options, std::string& path, std::string& error) {
    if (!options.path.empty()) return path = options.path, true;
    const char* env = std::getenv("KUBECONFIG");
    if (env && *env) {
        std::string list = env;
        for (std::size_t b = 0; b <= list.size();) {
            auto e = list.find(':', b);
            if (e == std::string::npos) e = list.size();
            std::string p = list.substr(b, e - b);
            std::error_code ec;
            if (!p.empty() && fs::exists(p, ec)) return path = p, true;
            b = e + 1;
        }
        return error = "$KUBECONFIG (" + list + "): none of the listed files exists", false;
    }
    const char* home = std::getenv("HOME");
    if (!home || !*home) return error = "no kubeconfig: --kubeconfig not given, $KUBECONFIG and $HOME not set", false;
    path = (fs::path(home) / ".kube" / "config").string();
    return true;
}

}  // namespace

RestConfigResult loadKubeconfig(const KubeconfigOptions& options) {
    RestConfigResult r;
    Loader l;
    if (!choosePath(options, l.file, r.error)) return r;
    std::error_code ec;
    l.dir = fs::absolute(fs::path(l.file), ec).parent_path();
    std::string text;
    if (!readFile(l.file, text, r.error)) return r;
    std::vector<json::value> docs;
    std::string why;
    if (!parseYaml(text, docs, why)) return r.error = l.file + ": " + why, r;
    if (docs.size() > 1) return r.error = l.file + ": expected one YAML document, found " + std::to_string(docs.size()), r;
    static const json::object emptyRoot;
    if (!docs.empty() && !docs[0].is_object()) return r.error = l.file + ": expected a mapping (a kubeconfig)", r;
    RestConfig rc;
    if (!loadConfig(l, docs.empty() ? emptyRoot : docs[0].get_object(), options, rc)) return r.error = l.error, r;
    r.config = std::move(rc);
    return r;
}

}  // namespace trainer::core::kube

namespace trainer::core::kube {

// client-go's rest.InClusterConfig: the service host and port from the environment, the token
// as a file (re-read on rotation), ca.crt when present (else the system's trust store, as
// client-go only logs a CA it cannot load; a present but unparsable one is an error here), and
// the namespace file (else "default").
RestConfigResult inClusterConfig(const std::string& root) {
    RestConfigResult r;
    const char* host = std::getenv("KUBERNETES_SERVICE_HOST");
    const char* port = std::getenv("KUBERNETES_SERVICE_PORT");
    if (!host || !*host || !port || !*port) {
        r.error = "unable to load in-cluster configuration, KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT must be defined";
        return r;
    }
    RestConfig rc;
    std::string h = host;
    rc.server = "https://" + (h.find(':') != std::string::npos ? "[" + h + "]" : h) + ":" + port;
    std::string why;
    if (!parseServerUrl(rc.server, why)) return r.error = "in-cluster configuration: " + why, r;
    fs::path dir(root);
    std::string ignored;
    rc.tokenFile = (dir / "token").string();
    if (!readFile(rc.tokenFile, ignored, why)) return r.error = "in-cluster configuration: " + why, r;
    std::string ca = (dir / "ca.crt").string();
    std::error_code ec;
    if (fs::exists(ca, ec)) {
        if (!readFile(ca, rc.caPem, why)) return r.error = "in-cluster configuration: " + why, r;
        if (auto bad = checkCertificates(rc.caPem); !bad.empty()) return r.error = ca + ": " + bad, r;
    }
    std::string ns;
    if (readFile((dir / "namespace").string(), ns, why)) {
        auto b = ns.find_first_not_of(" \t\r\n");
        auto e = ns.find_last_not_of(" \t\r\n");
        if (b != std::string::npos) rc.ns = ns.substr(b, e - b + 1);
    }
    rc.origin = "in-cluster configuration (" + root + ")";
    r.config = std::move(rc);
    return r;
}

}  // namespace trainer::core::kube
