// One write(2) a flushed record (fd_line_stream.hpp).
#include "core/log/fd_line_stream.hpp"

#include <unistd.h>

#include <cerrno>

namespace trainer::core::log {

FdLineBuffer::int_type FdLineBuffer::overflow(int_type c) {
    if (!traits_type::eq_int_type(c, traits_type::eof())) pending_.push_back(traits_type::to_char_type(c));
    return traits_type::not_eof(c);
}

std::streamsize FdLineBuffer::xsputn(const char* s, std::streamsize n) {
    pending_.append(s, static_cast<size_t>(n));
    return n;
}

int FdLineBuffer::sync() {
    size_t done = 0;
    while (done < pending_.size()) {
        ssize_t n = ::write(fd_, pending_.data() + done, pending_.size() - done);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) {
            ++failed_;
            break;
        }
        done += static_cast<size_t>(n);
    }
    pending_.clear();
    return 0;
}

FdLineStream& stderrLines() {
    static auto* stream = new FdLineStream(STDERR_FILENO);  // never destroyed: logging may outlive statics
    return *stream;
}

}  // namespace trainer::core::log
