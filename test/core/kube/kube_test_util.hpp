// What the kube client tests share: generated certificates, base64, environment overrides.
#pragma once

#include "../../support/process.hpp"

#include "core/server/certs.hpp"

#include <boost/test/unit_test.hpp>

#include <openssl/evp.h>

#include <cstdlib>
#include <map>
#include <optional>
#include <string>

namespace trainer::test::kube {

// A CA and a certificate/key it signed (server names localhost and 127.0.0.1), as PEM text and files.
struct Pki {
    std::string dir;
    std::string ca, cert, key;  // PEM
    std::string caFile() const { return dir + "/ca.crt"; }
    std::string certFile() const { return dir + "/tls.crt"; }
    std::string keyFile() const { return dir + "/tls.key"; }
};

inline Pki makePki(const std::string& dir) {
    Pki p;
    p.dir = dir;
    auto err = trainer::core::server::generateCertificates(dir, {});
    BOOST_REQUIRE_MESSAGE(err.empty(), err);
    p.ca = slurp(p.caFile());
    p.cert = slurp(p.certFile());
    p.key = slurp(p.keyFile());
    BOOST_REQUIRE(!p.ca.empty() && !p.cert.empty() && !p.key.empty());
    return p;
}

inline std::string base64(const std::string& data) {
    std::string out(4 * ((data.size() + 2) / 3) + 1, '\0');
    int n = EVP_EncodeBlock(reinterpret_cast<unsigned char*>(out.data()), reinterpret_cast<const unsigned char*>(data.data()),
                            static_cast<int>(data.size()));
    out.resize(static_cast<std::size_t>(n));
    return out;
}

// Sets (or, with nullopt, unsets) environment variables for its lifetime.
class EnvGuard {
public:
    explicit EnvGuard(const std::map<std::string, std::optional<std::string>>& vars) {
        for (auto const& [k, v] : vars) {
            const char* old = std::getenv(k.c_str());
            saved_[k] = old ? std::optional<std::string>(old) : std::nullopt;
            set(k, v);
        }
    }
    ~EnvGuard() {
        for (auto const& [k, v] : saved_) set(k, v);
    }
    EnvGuard(const EnvGuard&) = delete;
    EnvGuard& operator=(const EnvGuard&) = delete;

private:
    static void set(const std::string& k, const std::optional<std::string>& v) {
        if (v)
            ::setenv(k.c_str(), v->c_str(), 1);
        else
            ::unsetenv(k.c_str());
    }
    std::map<std::string, std::optional<std::string>> saved_;
};

// Replaces every "{NAME}" in `text` by its value.
inline std::string expand(std::string text, const std::map<std::string, std::string>& vars) {
    for (auto const& [k, v] : vars) {
        std::string key = "{" + k + "}";
        for (auto at = text.find(key); at != std::string::npos; at = text.find(key, at + v.size())) text.replace(at, key.size(), v);
    }
    return text;
}

}  // namespace trainer::test::kube
