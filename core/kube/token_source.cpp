#include "core/kube/token_source.hpp"

#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

namespace trainer::core::kube {

namespace {

std::string trim(const std::string& s) {
    auto b = s.find_first_not_of(" \t\r\n");
    if (b == std::string::npos) return {};
    auto e = s.find_last_not_of(" \t\r\n");
    return s.substr(b, e - b + 1);
}

}  // namespace

TokenSource::TokenSource(std::string token, std::string file) : token_(std::move(token)), file_(std::move(file)) {}

bool TokenSource::get(std::string& token, std::string& error) {
    std::lock_guard lock(mu_);
    if (file_.empty()) {
        token = token_;
        return true;
    }
    struct stat st {};
    bool statOk = ::stat(file_.c_str(), &st) == 0;
    int statErrno = errno;
    bool changed = !statOk || !loaded_ || st.st_size != size_ || st.st_mtim.tv_sec != mtime_.tv_sec ||
                   st.st_mtim.tv_nsec != mtime_.tv_nsec;
    if (changed) {
        std::ifstream in(file_, std::ios::binary);
        if (statOk && in) {
            std::stringstream ss;
            ss << in.rdbuf();
            token_ = trim(ss.str());
            loaded_ = true;
            size_ = st.st_size;
            mtime_ = st.st_mtim;
        } else if (!loaded_) {
            error = "reading token file " + file_ + ": " + std::strerror(statOk ? errno : statErrno);
            return false;
        }
    }
    token = token_;
    return true;
}

}  // namespace trainer::core::kube
