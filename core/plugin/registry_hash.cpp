// Hashing: sha256 of exactly the bytes of an open descriptor (the bytes that get loaded).
#include "core/plugin/registry_internal.hpp"

#include <openssl/evp.h>

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <memory>

namespace trainer::core::detail {

namespace {

std::string hex(const unsigned char* md, unsigned n) {
    static const char* digits = "0123456789abcdef";
    std::string out;
    for (unsigned i = 0; i < n; ++i) {
        out += digits[md[i] >> 4];
        out += digits[md[i] & 15];
    }
    return out;
}

// Feeds the file to ctx; false on a read error.
bool digestFd(int fd, EVP_MD_CTX* ctx) {
    char buf[65536];
    off_t offset = 0;
    for (;;) {
        ssize_t n = ::pread(fd, buf, sizeof buf, offset);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) return false;
        if (n == 0) return true;
        EVP_DigestUpdate(ctx, buf, static_cast<size_t>(n));
        offset += n;
    }
}

}  // namespace

std::string sha256Fd(int fd) {
    std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> ctx(EVP_MD_CTX_new(), &EVP_MD_CTX_free);
    if (!ctx || EVP_DigestInit_ex(ctx.get(), EVP_sha256(), nullptr) != 1) return {};
    if (!digestFd(fd, ctx.get())) return {};
    unsigned char md[EVP_MAX_MD_SIZE];
    unsigned int n = 0;
    if (EVP_DigestFinal_ex(ctx.get(), md, &n) != 1) return {};
    return hex(md, n);
}

bool isSha256Hex(std::string_view s) {
    if (s.size() != 64) return false;
    // Arithmetic and no early exit, over a fixed count: the compiler checks several characters an
    // instruction (start-up checks two of these per plugin file).
    unsigned bad = 0;
    for (size_t i = 0; i < 64; ++i) {
        const auto c = static_cast<unsigned char>(s[i]);
        bad |= static_cast<unsigned>(static_cast<unsigned char>(c - '0') > 9 && static_cast<unsigned char>(c - 'a') > 5);
    }
    return bad == 0;
}

std::string sha256Path(const std::string& path) {
    int fd = ::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) return "";
    std::string h = sha256Fd(fd);
    ::close(fd);
    return h;
}

std::optional<Refusal> pinMismatch(const std::map<std::string, std::string>& pins, const std::string& key,
                                   const std::string& actual) {
    auto it = pins.find(key);
    if (it == pins.end()) return std::nullopt;
    std::string expected;
    for (char c : it->second) expected += static_cast<char>(c >= 'A' && c <= 'F' ? c - 'A' + 'a' : c);
    if (expected == actual) return std::nullopt;
    return Refusal{"its sha256 is " + actual + ", not " + expected + " as pinned by plugins.sha256[" + key + "]",
                   "pin_mismatch"};
}

}  // namespace trainer::core::detail
