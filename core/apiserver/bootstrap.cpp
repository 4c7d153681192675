#include "core/apiserver/bootstrap.hpp"

#include "core/server/atomic_file.hpp"
#include "core/server/certs.hpp"
#include "core/server/random_hex.hpp"

#include <openssl/evp.h>

#include <filesystem>
#include <fstream>
#include <sstream>

namespace trainer::core::apiserver {

namespace fs = std::filesystem;

namespace {

std::string readFile(const fs::path& p, bool& ok) {
    std::ifstream in(p, std::ios::binary);
    ok = static_cast<bool>(in);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

// Replaces `path` with `data`, mode 0600 from its creation (core/server/atomic_file.hpp).
std::string writePrivate(const fs::path& path, const std::string& data) {
    return server::writeFileAtomically(path, data, {0600}).error;
}


std::string base64(const std::string& data) {
    std::string out(4 * ((data.size() + 2) / 3) + 1, '\0');
    int n = EVP_EncodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                            reinterpret_cast<const unsigned char*>(data.data()), static_cast<int>(data.size()));
    out.resize(n > 0 ? static_cast<size_t>(n) : 0);
    return out;
}

std::string trim(std::string s) {
    while (!s.empty() && (s.back() == '\n' || s.back() == '\r' || s.back() == ' ')) s.pop_back();
    return s;
}

}  // namespace

std::string ensureCredentials(const std::string& certDir, Credentials& out) {
    if (auto err = server::ensurePrivateDirectory(certDir); !err.empty()) return err;
    const fs::path dir(certDir);
    bool have = fs::exists(dir / "ca.crt") && fs::exists(dir / "tls.crt") && fs::exists(dir / "tls.key");
    if (!have) {
        server::CertOptions opts;
        opts.service = "kubernetes";
        opts.ns = "default";
        if (auto err = server::generateCertificates(certDir, opts); !err.empty()) return err;
    }
    bool ok = false;
    out.certDir = certDir;
    out.caPem = readFile(dir / "ca.crt", ok);
    if (!ok || out.caPem.empty()) return (dir / "ca.crt").string() + ": cannot read the CA certificate";
    if (fs::exists(dir / "token")) {
        out.token = trim(readFile(dir / "token", ok));
        if (!ok || out.token.empty()) return (dir / "token").string() + ": cannot read the token (empty or unreadable)";
        return {};
    }
    out.token = server::randomHex(32);
    if (out.token.empty()) return "cannot generate a token: no randomness";
    return writePrivate(dir / "token", out.token + "\n");
}

std::string writeKubeconfig(const std::string& path, const std::string& url, const Credentials& creds) {
    std::string text;
    text += "apiVersion: v1\nkind: Config\n";
    text += "clusters:\n- name: trainer-operator\n  cluster:\n    server: " + url + "\n";
    text += "    certificate-authority-data: " + base64(creds.caPem) + "\n";
    text += "users:\n- name: admin\n  user:\n    token: " + creds.token + "\n";
    text += "contexts:\n- name: trainer-operator\n  context:\n    cluster: trainer-operator\n    user: admin\n"
            "    namespace: default\n";
    text += "current-context: trainer-operator\npreferences: {}\n";
    return writePrivate(path, text);
}

std::string serverUrl(const std::string& bindHost, unsigned short port) {
    std::string host = bindHost;
    if (host.empty() || host == "0.0.0.0" || host == "::") host = "127.0.0.1";
    if (host.find(':') != std::string::npos) host = "[" + host + "]";
    return "https://" + host + ":" + std::to_string(port);
}

}  // namespace trainer::core::apiserver
