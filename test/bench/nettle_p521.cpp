#include "nettle_p521.hpp"

#include "bench_support.hpp"

#include <nettle/ecc-curve.h>
#include <nettle/ecc.h>
#include <nettle/ecdsa.h>
#include <sys/random.h>

namespace trainer::bench {

namespace {

// Nettle's random callback: the kernel's generator, as OpenSSL's default one draws from.
void kernelRandom(void*, size_t length, uint8_t* out) {
    while (length > 0) {
        const ssize_t got = ::getrandom(out, length, 0);
        if (got <= 0) fail("getrandom failed");
        out += got;
        length -= static_cast<size_t>(got);
    }
}

}  // namespace

double nettleP521KeyPairSeconds(std::size_t count) {
    const ecc_curve* curve = nettle_get_secp_521r1();
    ecc_point pub;
    ecc_scalar key;
    ecc_point_init(&pub, curve);
    ecc_scalar_init(&key, curve);
    const double start = cpuSeconds();
    for (std::size_t i = 0; i < count; ++i) ecdsa_generate_keypair(&pub, &key, nullptr, kernelRandom);
    const double seconds = cpuSeconds() - start;
    ecc_scalar_clear(&key);
    ecc_point_clear(&pub);
    return seconds;
}

}  // namespace trainer::bench
