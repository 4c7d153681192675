// OpenSSL objects owned by std::unique_ptr (Deleter<X_free>) and OpenSSL's error queue as a
// message: what every file that calls libcrypto directly uses.
#pragma once

#include <openssl/err.h>

#include <memory>
#include <string>
#include <string_view>

namespace trainer::core::server {

template <auto Fn>
struct OpenSslDeleter {
    template <class T>
    void operator()(T* p) const { Fn(p); }
};

// `what`, then ": <the first queued OpenSSL error>" when there is one; clears the queue.
inline std::string sslError(std::string_view what) {
    unsigned long code = ERR_get_error();
    std::string out(what);
    if (code != 0) {
        char buf[256];
        ERR_error_string_n(code, buf, sizeof buf);
        out.append(": ").append(buf);
    }
    ERR_clear_error();
    return out;
}

}  // namespace trainer::core::server
