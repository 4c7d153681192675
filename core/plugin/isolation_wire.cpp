// Frame encoding and the deadline-bound frame reader of the plugin-host wire.
#include "core/plugin/isolation_wire.hpp"

#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace trainer::core::isolation {

namespace {

void putU32(std::string& out, uint32_t v) {
    for (int i = 0; i < 4; ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xffu));
}

uint32_t getU32(const char* p) {
    uint32_t v = 0;
    for (int i = 0; i < 4; ++i) v |= static_cast<uint32_t>(static_cast<unsigned char>(p[i])) << (8 * i);
    return v;
}

bool knownType(uint8_t t) {
    switch (static_cast<FrameType>(t)) {
    case FrameType::Create:
    case FrameType::Call:
    case FrameType::LookupReply:
    case FrameType::Described:
    case FrameType::Refused:
    case FrameType::Log:
    case FrameType::Diagnostic:
    case FrameType::Emit:
    case FrameType::Lookup:
    case FrameType::Done: return true;
    }
    return false;
}

}  // namespace

std::string encodeFrame(const Frame& f) {
    size_t body = 1;
    for (auto const& x : f.fields) body += 4 + x.size();
    std::string out;
    out.reserve(4 + body);
    putU32(out, static_cast<uint32_t>(body));
    out.push_back(static_cast<char>(f.type));
    for (auto const& x : f.fields) {
        putU32(out, static_cast<uint32_t>(x.size()));
        out += x;
    }
    return out;
}

const char* toString(WireStatus s) {
    switch (s) {
    case WireStatus::Ok: return "ok";
    case WireStatus::Closed: return "closed";
    case WireStatus::Timeout: return "timeout";
    case WireStatus::TooLarge: return "too large";
    case WireStatus::Malformed: return "malformed";
    case WireStatus::Error: return "error";
    }
    return "?";
}

// A whole frame at the front of buffer_: parsed and consumed; nullopt when more bytes are needed.
std::optional<WireStatus> FrameReader::parse(Frame& frame) {
    if (buffer_.size() < 4) return std::nullopt;
    const size_t len = getU32(buffer_.data());
    if (len > maxFrame_) {
        announced_ = len;
        return WireStatus::TooLarge;
    }
    if (len < 1) return WireStatus::Malformed;
    if (buffer_.size() < 4 + len) return std::nullopt;
    const char* p = buffer_.data() + 4;
    const char* end = p + len;
    if (!knownType(static_cast<uint8_t>(*p))) return WireStatus::Malformed;
    frame.type = static_cast<FrameType>(*p++);
    frame.fields.clear();
    while (p < end) {
        if (end - p < 4) return WireStatus::Malformed;
        const size_t n = getU32(p);
        p += 4;
        if (static_cast<size_t>(end - p) < n) return WireStatus::Malformed;
        frame.fields.emplace_back(p, n);
        p += n;
    }
    buffer_.erase(0, 4 + len);
    return WireStatus::Ok;
}

WireStatus FrameReader::read(Frame& frame, std::chrono::steady_clock::time_point deadline, bool (*tick)(void*),
                             void* tickArg, std::chrono::milliseconds tickEvery) {
    char chunk[65536];
    for (;;) {
        if (auto r = parse(frame)) return *r;
        auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
        if (left.count() <= 0) return WireStatus::Timeout;
        if (tick && left > tickEvery) left = tickEvery;
        pollfd pfd{fd_, POLLIN, 0};
        int n = ::poll(&pfd, 1, static_cast<int>(left.count()) + 1);
        if (n < 0 && errno != EINTR) return WireStatus::Error;
        if (tick && !tick(tickArg)) return WireStatus::Error;
        if (n <= 0) continue;
        ssize_t got = ::recv(fd_, chunk, sizeof chunk, MSG_DONTWAIT);
        if (got == 0) return WireStatus::Closed;
        if (got < 0) {
            if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) continue;
            return errno == ECONNRESET ? WireStatus::Closed : WireStatus::Error;
        }
        buffer_.append(chunk, static_cast<size_t>(got));
    }
}

WireStatus FrameReader::read(Frame& frame) {
    char chunk[65536];
    for (;;) {
        if (auto r = parse(frame)) return *r;
        ssize_t got = ::recv(fd_, chunk, sizeof chunk, 0);
        if (got == 0) return WireStatus::Closed;
        if (got < 0) {
            if (errno == EINTR) continue;
            return errno == ECONNRESET ? WireStatus::Closed : WireStatus::Error;
        }
        buffer_.append(chunk, static_cast<size_t>(got));
    }
}

bool writeAll(int fd, std::string_view bytes, std::optional<std::chrono::steady_clock::time_point> deadline) {
    while (!bytes.empty()) {
        ssize_t n = ::send(fd, bytes.data(), bytes.size(), MSG_NOSIGNAL | (deadline ? MSG_DONTWAIT : 0));
        if (n >= 0) {
            bytes.remove_prefix(static_cast<size_t>(n));
            continue;
        }
        if (errno == EINTR) continue;
        if (!deadline || (errno != EAGAIN && errno != EWOULDBLOCK)) return false;
        auto left = std::chrono::duration_cast<std::chrono::milliseconds>(*deadline - std::chrono::steady_clock::now());
        if (left.count() <= 0) return false;
        pollfd pfd{fd, POLLOUT, 0};
        if (::poll(&pfd, 1, static_cast<int>(left.count()) + 1) < 0 && errno != EINTR) return false;
    }
    return true;
}

}  // namespace trainer::core::isolation
