#include "core/server/certs.hpp"

#include "core/server/openssl_handles.hpp"

#include "core/server/atomic_file.hpp"

#include <openssl/bio.h>
#include <openssl/bn.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rsa.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include <filesystem>
#include <memory>
#include <utility>

namespace trainer::core::server {
namespace {

template <auto Fn>
using Deleter = OpenSslDeleter<Fn>;
using KeyPtr = std::unique_ptr<EVP_PKEY, Deleter<EVP_PKEY_free>>;
using CertPtr = std::unique_ptr<X509, Deleter<X509_free>>;
using BioPtr = std::unique_ptr<BIO, Deleter<BIO_free_all>>;
using BnPtr = std::unique_ptr<BIGNUM, Deleter<BN_free>>;
using ExtPtr = std::unique_ptr<X509_EXTENSION, Deleter<X509_EXTENSION_free>>;


KeyPtr generateKey(KeyType type) {
    return KeyPtr(type == KeyType::Rsa2048 ? EVP_RSA_gen(2048) : EVP_EC_gen("P-256"));
}

// Extensions in order (SKI before AKI so a self-signed CA can reference its own key id).
struct ExtensionSpec {
    int nid;
    std::string value;
};

// A certificate for `subjectKey` named `cn`, signed by `issuerKey` (issuer == null: self-signed).
CertPtr makeCertificate(EVP_PKEY* subjectKey, const std::string& cn, X509* issuer, EVP_PKEY* issuerKey, int days,
                        const std::vector<ExtensionSpec>& extensions, std::string& error) {
    CertPtr cert(X509_new());
    BnPtr serial(BN_new());
    if (!cert || !serial || !X509_set_version(cert.get(), 2) || !BN_rand(serial.get(), 127, BN_RAND_TOP_ANY, BN_RAND_BOTTOM_ANY) ||
        !BN_to_ASN1_INTEGER(serial.get(), X509_get_serialNumber(cert.get())) ||
        !X509_gmtime_adj(X509_getm_notBefore(cert.get()), -3600) ||
        !X509_gmtime_adj(X509_getm_notAfter(cert.get()), static_cast<long>(days) * 86400L) ||
        !X509_set_pubkey(cert.get(), subjectKey)) {
        error = sslError("creating certificate");
        return nullptr;
    }
    X509_NAME* name = X509_get_subject_name(cert.get());
    X509_NAME_add_entry_by_txt(name, "O", MBSTRING_UTF8, reinterpret_cast<const unsigned char*>("trainer-operator"), -1, -1, 0);
    X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_UTF8, reinterpret_cast<const unsigned char*>(cn.c_str()), -1, -1, 0);
    X509_set_issuer_name(cert.get(), issuer ? X509_get_subject_name(issuer) : name);
    for (const auto& spec : extensions) {
        X509V3_CTX ctx;
        X509V3_set_ctx(&ctx, issuer ? issuer : cert.get(), cert.get(), nullptr, nullptr, 0);
        ExtPtr ext(X509V3_EXT_conf_nid(nullptr, &ctx, spec.nid, spec.value.c_str()));
        if (!ext || !X509_add_ext(cert.get(), ext.get(), -1)) {
            error = sslError("adding extension " + std::string(OBJ_nid2sn(spec.nid)) + "=" + spec.value);
            return nullptr;
        }
    }
    if (!X509_sign(cert.get(), issuerKey, EVP_sha256())) {
        error = sslError("signing certificate");
        return nullptr;
    }
    return cert;
}

template <class Writer>
std::string toPem(Writer write) {
    BioPtr bio(BIO_new(BIO_s_mem()));
    if (!bio || !write(bio.get())) return {};
    char* data = nullptr;
    long len = BIO_get_mem_data(bio.get(), &data);
    return std::string(data, static_cast<std::size_t>(len));
}

}  // namespace

std::vector<std::string> servingDnsNames(const CertOptions& opts) {
    const std::string& s = opts.service;
    return {s, s + "." + opts.ns, s + "." + opts.ns + ".svc", s + "." + opts.ns + ".svc.cluster.local", "localhost"};
}

std::string generateCertificates(const std::string& dir, const CertOptions& opts) {
    if (opts.service.empty() || opts.ns.empty()) return "service name and namespace are required";
    if (opts.validDays <= 0) return "validity must be at least one day";
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    if (ec) return "create " + dir + ": " + ec.message();

    KeyPtr caKey = generateKey(opts.keyType);
    KeyPtr servingKey = generateKey(opts.keyType);
    if (!caKey || !servingKey) return sslError("generating key");

    std::string error;
    CertPtr ca = makeCertificate(caKey.get(), "trainer-operator-ca", nullptr, caKey.get(), opts.validDays,
                                 {{NID_basic_constraints, "critical,CA:TRUE"},
                                  {NID_key_usage, "critical,keyCertSign,cRLSign,digitalSignature"},
                                  {NID_subject_key_identifier, "hash"},
                                  {NID_authority_key_identifier, "keyid:always"}},
                                 error);
    if (!ca) return error;
    std::string san;
    for (const auto& dns : servingDnsNames(opts)) san += "DNS:" + dns + ",";
    san += "IP:127.0.0.1";
    std::string keyUsage = opts.keyType == KeyType::Rsa2048 ? "critical,digitalSignature,keyEncipherment"
                                                            : "critical,digitalSignature";
    CertPtr serving = makeCertificate(servingKey.get(), opts.service + "." + opts.ns + ".svc", ca.get(), caKey.get(),
                                      opts.validDays,
                                      {{NID_basic_constraints, "critical,CA:FALSE"},
                                       {NID_key_usage, keyUsage},
                                       {NID_ext_key_usage, "serverAuth"},
                                       {NID_subject_key_identifier, "hash"},
                                       {NID_authority_key_identifier, "keyid:always"},
                                       {NID_subject_alt_name, san}},
                                      error);
    if (!serving) return error;

    std::string caPem = toPem([&](BIO* b) { return PEM_write_bio_X509(b, ca.get()); });
    std::string certPem = toPem([&](BIO* b) { return PEM_write_bio_X509(b, serving.get()); });
    std::string keyPem = toPem([&](BIO* b) {
        return PEM_write_bio_PrivateKey(b, servingKey.get(), nullptr, nullptr, 0, nullptr, nullptr);
    });
    if (caPem.empty() || certPem.empty() || keyPem.empty()) return sslError("encoding PEM");

    // The key first: a watcher that sees the new tls.crt finds its key already in place.
    for (const auto& [name, content, mode] : {std::tuple{"tls.key", keyPem, 0600}, std::tuple{"ca.crt", caPem, 0644},
                                              std::tuple{"tls.crt", certPem, 0644}})
        if (auto r = writeFileAtomically(std::filesystem::path(dir) / name, content, {static_cast<mode_t>(mode)}); !r.ok())
            return r.error;
    return {};
}

}  // namespace trainer::core::server
