#include "core/apiserver/bootstrap.hpp"

#include "core/server/certs.hpp"

#include <openssl/evp.h>
#include <openssl/rand.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
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

// Writes `data` to `path` through a new temporary file (O_EXCL, O_NOFOLLOW, mode 0600) renamed over it.
std::string writePrivate(const fs::path& path, const std::string& data) {
    std::string tmp = path.string() + ".tmp." + std::to_string(::getpid());
    ::unlink(tmp.c_str());
    int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0) return tmp + ": " + std::strerror(errno);
    size_t done = 0;
    while (done < data.size()) {
        ssize_t n = ::write(fd, data.data() + done, data.size() - done);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) {
            std::string err = tmp + ": " + std::strerror(errno);
            ::close(fd);
            ::unlink(tmp.c_str());
            return err;
        }
        done += static_cast<size_t>(n);
    }
    if (::fsync(fd) != 0 || ::close(fd) != 0) {
        ::unlink(tmp.c_str());
        return tmp + ": " + std::strerror(errno);
    }
    if (::rename(tmp.c_str(), path.c_str()) != 0) {
        std::string err = path.string() + ": " + std::strerror(errno);
        ::unlink(tmp.c_str());
        return err;
    }
    return {};
}

std::string newToken() {
    unsigned char bytes[32];
    if (RAND_bytes(bytes, sizeof bytes) != 1) return {};
    static constexpr char hex[] = "0123456789abcdef";
    std::string out;
    for (unsigned char b : bytes) {
        out += hex[b >> 4];
        out += hex[b & 15];
    }
    return out;
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
    std::error_code ec;
    fs::create_directories(certDir, ec);
    if (ec) return certDir + ": " + ec.message();
    ::chmod(certDir.c_str(), 0700);
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
    out.token = newToken();
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
