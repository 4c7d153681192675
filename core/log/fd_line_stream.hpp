// An output stream over a file descriptor that hands each flushed record to the kernel in one
// write(2) (issue 14 P4). The log's sink flushes after every line; std::clog, unbuffered over
// stdio's stderr, wrote a line's text and its newline as two writes, two system calls a line
// (six a TrainJob in the controller), and let another process's output land between them.
// Whatever is written before a flush is kept in memory; a flush writes it all, retrying short
// writes and EINTR. A failed write drops the bytes (a log line is not worth blocking for) and is
// counted, not thrown.
#pragma once

#include <ostream>
#include <streambuf>
#include <string>

namespace trainer::core::log {

class FdLineBuffer : public std::streambuf {
public:
    explicit FdLineBuffer(int fd) : fd_(fd) {}
    int failedWrites() const { return failed_; }

protected:
    int_type overflow(int_type c) override;
    std::streamsize xsputn(const char* s, std::streamsize n) override;
    int sync() override;

private:
    int fd_;
    std::string pending_;
    int failed_ = 0;
};

class FdLineStream : public std::ostream {
public:
    explicit FdLineStream(int fd) : std::ostream(nullptr), buffer_(fd) { rdbuf(&buffer_); }
    const FdLineBuffer& buffer() const { return buffer_; }

private:
    FdLineBuffer buffer_;
};

// Standard error's, for the process's lifetime.
FdLineStream& stderrLines();

}  // namespace trainer::core::log
