// The wire between the operator and a `trainer-operator plugin-host` child (process isolation,
// README "Plugin isolation"): frames on an AF_UNIX stream socket pair, each
// [u32 little-endian length of the rest][u8 type][fields], every field [u32 length][bytes].
// The ABI's documents cross unchanged (rule 5: JSON across the boundary); only the call and the
// host-API callbacks are framed. One call at a time per child.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace trainer::core::isolation {

// Frame types. Operator -> child: Create, Call, LookupReply. Child -> operator: Described,
// Refused, Log, Diagnostic, Emit, Lookup, Done.
enum class FrameType : uint8_t {
    Create = 'C',       // [config JSON]
    Call = 'H',         // [hook name][input]
    LookupReply = 'R',  // [status "0|1|2"][object JSON]
    Described = 'D',    // [descriptor JSON, isolation_descriptor.hpp]
    Refused = 'X',      // [why][code]: the child refused its own plugin (ABI checks)
    Log = 'G',          // [level][message]
    Diagnostic = 'Q',   // [severity][field path][message]
    Emit = 'E',         // [document]
    Lookup = 'L',       // [apiVersion][kind][namespace][name]
    Done = 'F',         // [trn_status]
};

struct Frame {
    FrameType type{};
    std::vector<std::string> fields;
};

// Serialises a frame (length prefix included).
std::string encodeFrame(const Frame& f);

// Why reading a frame failed; Ok when `frame` holds one.
enum class WireStatus { Ok, Closed, Timeout, TooLarge, Malformed, Error };
const char* toString(WireStatus s);

// Reads frames from a blocking or non-blocking stream descriptor with a byte limit per frame.
class FrameReader {
public:
    FrameReader(int fd, size_t maxFrame) : fd_(fd), maxFrame_(maxFrame) {}
    // Waits until `deadline` (steady clock) for one whole frame. `tick`, when set, is called
    // about every `tickEvery` while waiting (the caller's memory check); it returns false to
    // abandon the read (WireStatus::Error).
    WireStatus read(Frame& frame, std::chrono::steady_clock::time_point deadline,
                    bool (*tick)(void*) = nullptr, void* tickArg = nullptr,
                    std::chrono::milliseconds tickEvery = std::chrono::milliseconds(50));
    // Blocking read with no deadline (the child's side).
    WireStatus read(Frame& frame);
    // Bytes of the last frame that was refused (TooLarge) as its header announced.
    size_t announced() const { return announced_; }

private:
    std::optional<WireStatus> parse(Frame& frame);
    int fd_;
    size_t maxFrame_;
    size_t announced_ = 0;
    std::string buffer_;
};

// Writes all of `bytes` (MSG_NOSIGNAL: a gone peer is false, not SIGPIPE). With a deadline the
// write never blocks past it (a child that stops reading cannot hold the operator).
bool writeAll(int fd, std::string_view bytes,
              std::optional<std::chrono::steady_clock::time_point> deadline = std::nullopt);

}  // namespace trainer::core::isolation
