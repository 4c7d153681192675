// ELF checks on the open descriptor, before anything is mapped.
#include "core/plugin/registry_internal.hpp"

#include <unistd.h>

#include <cstring>

namespace trainer::core::detail {

std::string elfProblem(int fd) {
    unsigned char h[20] = {};
    ssize_t n = ::pread(fd, h, sizeof h, 0);
    if (n < 0) return "it cannot be read";
    if (n < 20 || std::memcmp(h, "\x7f" "ELF", 4) != 0) return "it is not an ELF shared object";
    uint16_t type = static_cast<uint16_t>(h[16] | (h[17] << 8));
    if (type != 3 /* ET_DYN */) return "it is an ELF file but not a shared object";
    return {};
}

}  // namespace trainer::core::detail
