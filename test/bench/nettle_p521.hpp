// P1's bound for MPI, from the other P-521 implementation Debian ships: Nettle's (libhogweed).
// Upstream gives each MPI TrainJob a fresh ECDSA P-521 key (plugins/mpi/ssh_key.hpp makes it with
// OpenSSL); this times the same key generation in Nettle, so the bench shows whether the key's
// cost is OpenSSL's or the curve's.
#pragma once

#include <cstddef>

namespace trainer::bench {

// CPU seconds to generate `count` P-521 key pairs with Nettle (scalar and public point only: no
// encoding, so a lower bound of what the MPI plugin does per TrainJob). Exits on failure.
double nettleP521KeyPairSeconds(std::size_t count);

}  // namespace trainer::bench
