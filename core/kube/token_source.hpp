// The bearer token a request carries: a fixed one, or one read from a file and read again
// whenever the file's modification time or size changes (projected service-account tokens rotate).
#pragma once

#include <ctime>
#include <mutex>
#include <string>

namespace trainer::core::kube {

class TokenSource {
public:
    // `file` non-empty: the token comes from it (surrounding whitespace trimmed); else `token`.
    TokenSource(std::string token, std::string file);

    // The current token ("" = send no Authorization header). False with `error` set when the file
    // cannot be read and no earlier read succeeded; after one did, a failed re-read keeps the old token.
    bool get(std::string& token, std::string& error);

private:
    std::mutex mu_;
    std::string token_;
    std::string file_;
    bool loaded_ = false;
    std::timespec mtime_{};
    long long size_ = -1;
};

}  // namespace trainer::core::kube
