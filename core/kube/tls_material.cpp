#include "core/kube/tls_material.hpp"

#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>

#include <memory>

namespace trainer::core::kube {

namespace {

struct BioFree {
    void operator()(BIO* b) const { BIO_free(b); }
};
struct X509Free {
    void operator()(X509* x) const { X509_free(x); }
};
struct KeyFree {
    void operator()(EVP_PKEY* k) const { EVP_PKEY_free(k); }
};
using Bio = std::unique_ptr<BIO, BioFree>;
using Cert = std::unique_ptr<X509, X509Free>;
using Key = std::unique_ptr<EVP_PKEY, KeyFree>;

Bio memoryBio(std::string_view data) { return Bio(BIO_new_mem_buf(data.data(), static_cast<int>(data.size()))); }

bool hasPemBlock(std::string_view pem) { return pem.find("-----BEGIN ") != std::string_view::npos; }

}  // namespace

std::string checkCertificates(std::string_view pem) {
    if (!hasPemBlock(pem)) return "unable to load root certificates: unable to parse bytes as PEM block";
    auto bio = memoryBio(pem);
    int count = 0;
    while (Cert cert{PEM_read_bio_X509(bio.get(), nullptr, nullptr, nullptr)}) ++count;
    unsigned long err = ERR_peek_last_error();
    ERR_clear_error();
    // Reading stops with "no start line" at the end of the data; anything else is a broken block.
    if (count == 0 || (err != 0 && ERR_GET_REASON(err) != PEM_R_NO_START_LINE))
        return "unable to load root certificates: unable to parse bytes as PEM block";
    return {};
}

std::string checkKeyPair(std::string_view certPem, std::string_view keyPem) {
    if (!hasPemBlock(certPem)) return "tls: failed to find any PEM data in certificate input";
    if (!hasPemBlock(keyPem)) return "tls: failed to find any PEM data in key input";
    auto cb = memoryBio(certPem);
    Cert cert{PEM_read_bio_X509(cb.get(), nullptr, nullptr, nullptr)};
    auto kb = memoryBio(keyPem);
    Key key{PEM_read_bio_PrivateKey(kb.get(), nullptr, nullptr, nullptr)};
    ERR_clear_error();
    if (!cert) return "tls: failed to parse certificate";
    if (!key) return "tls: failed to parse private key";
    bool match = X509_check_private_key(cert.get(), key.get()) == 1;
    ERR_clear_error();
    return match ? std::string() : "tls: private key does not match public key";
}

}  // namespace trainer::core::kube
