#include "core/server/tls_settings.hpp"

#include <openssl/ssl.h>

#include <array>
#include <memory>
#include <string_view>

namespace trainer::core::server {

namespace {

constexpr std::array<std::pair<std::string_view, int>, 4> kVersions{{
    {"1.0", TLS1_VERSION}, {"1.1", TLS1_1_VERSION}, {"1.2", TLS1_2_VERSION}, {"1.3", TLS1_3_VERSION}}};

// Go's TLS 1.3 suites: valid names, never configurable (crypto/tls ignores them in CipherSuites).
constexpr std::array<std::string_view, 3> kTls13Suites{
    "TLS_AES_128_GCM_SHA256", "TLS_AES_256_GCM_SHA384", "TLS_CHACHA20_POLY1305_SHA256"};

// The OpenSSL name of the TLS 1.0-1.2 suite whose IANA (standard) name is `iana`, or "".
std::string openSslName(std::string_view iana) {
    std::unique_ptr<SSL_CTX, decltype(&SSL_CTX_free)> ctx(SSL_CTX_new(TLS_method()), &SSL_CTX_free);
    if (!ctx) return {};
    SSL_CTX_set_security_level(ctx.get(), 0);
    if (SSL_CTX_set_cipher_list(ctx.get(), "ALL:COMPLEMENTOFALL") != 1) return {};
    STACK_OF(SSL_CIPHER)* all = SSL_CTX_get_ciphers(ctx.get());
    for (int i = 0; i < sk_SSL_CIPHER_num(all); ++i) {
        const SSL_CIPHER* c = sk_SSL_CIPHER_value(all, i);
        const char* standard = SSL_CIPHER_standard_name(c);
        if (standard && iana == standard) return SSL_CIPHER_get_name(c);
    }
    return {};
}

int selectAlpn(SSL*, const unsigned char** out, unsigned char* outlen, const unsigned char* in, unsigned int inlen,
               void* arg) {
    auto const* allowed = static_cast<const std::vector<std::string>*>(arg);
    for (unsigned i = 0; i < inlen;) {
        unsigned len = in[i];
        std::string_view offered(reinterpret_cast<const char*>(in + i + 1), len);
        if (i + 1 + len > inlen) break;
        if (offered == "http/1.1") {
            for (auto const& p : *allowed)
                if (p == offered) {
                    *out = in + i + 1;
                    *outlen = static_cast<unsigned char>(len);
                    return SSL_TLSEXT_ERR_OK;
                }
        }
        i += 1 + len;
    }
    return SSL_TLSEXT_ERR_NOACK;
}

}  // namespace

TlsSettings parseTlsSettings(const std::string& minVersion, const std::vector<std::string>& cipherSuites,
                             const std::vector<std::string>& nextProtos, Diagnostics& diag) {
    TlsSettings out;
    if (!minVersion.empty()) {
        bool known = false;
        for (auto const& [name, v] : kVersions)
            if (name == minVersion) out.minVersion = v, known = true;
        if (!known)
            diag.add("tls.minVersion", "Unsupported value: \"" + minVersion +
                                           "\": supported values: \"1.0\", \"1.1\", \"1.2\", \"1.3\"",
                     ErrorType::NotSupported);
    }
    for (size_t i = 0; i < cipherSuites.size(); ++i) {
        auto const& name = cipherSuites[i];
        bool tls13 = false;
        for (auto s : kTls13Suites) tls13 = tls13 || s == name;
        if (tls13) continue;
        std::string openssl = openSslName(name);
        if (openssl.empty()) {
            diag.add("tls.cipherSuites[" + std::to_string(i) + "]",
                     "Unsupported value: \"" + name + "\": not a TLS cipher suite this build of OpenSSL knows",
                     ErrorType::NotSupported);
            continue;
        }
        out.cipherList += (out.cipherList.empty() ? "" : ":") + openssl;
    }
    out.nextProtos = nextProtos;
    return out;
}

std::string applyTlsSettings(boost::asio::ssl::context& ctx, const TlsSettings& settings) {
    static const std::vector<std::string> kHttp11{"http/1.1"};
    SSL_CTX* native = ctx.native_handle();
    if (SSL_CTX_set_min_proto_version(native, settings.minVersion) != 1) return "cannot set the minimum TLS version";
    if (settings.minVersion < TLS1_2_VERSION) SSL_CTX_clear_options(native, SSL_OP_NO_TLSv1 | SSL_OP_NO_TLSv1_1);
    if (!settings.cipherList.empty() && SSL_CTX_set_cipher_list(native, settings.cipherList.c_str()) != 1)
        return "cannot use the cipher suites " + settings.cipherList;
    const auto* protos = settings.nextProtos.empty() ? &kHttp11 : &settings.nextProtos;
    SSL_CTX_set_alpn_select_cb(native, &selectAlpn, const_cast<std::vector<std::string>*>(protos));
    return {};
}

}  // namespace trainer::core::server
