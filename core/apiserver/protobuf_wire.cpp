#include "core/apiserver/protobuf_wire.hpp"

#include <limits>

namespace trainer::core::apiserver {

namespace {

constexpr std::string_view kUnexpectedEof = "unexpected EOF";
constexpr std::string_view kIntegerOverflow = "proto: integer overflow";
constexpr std::string_view kNegativeLength = "proto: negative length found during unmarshaling";

}  // namespace

std::string wrongWireTypeError(WireType got, std::string_view goFieldName) {
    return "proto: wrong wireType = " + std::to_string(static_cast<int>(got)) + " for field " +
           std::string(goFieldName);
}

bool WireReader::varint(std::uint64_t& value, std::string& error) {
    value = 0;
    for (unsigned shift = 0;; shift += 7) {
        if (shift >= 64) {
            error = kIntegerOverflow;
            return false;
        }
        if (pos_ >= data_.size()) {
            error = kUnexpectedEof;
            return false;
        }
        const auto b = static_cast<unsigned char>(data_[pos_++]);
        value |= static_cast<std::uint64_t>(b & 0x7F) << shift;
        if (b < 0x80) return true;
    }
}

bool WireReader::fixed(std::size_t width, std::uint64_t& value, std::string& error) {
    if (data_.size() - pos_ < width) {
        error = kUnexpectedEof;
        return false;
    }
    value = 0;
    for (std::size_t i = 0; i < width; ++i)
        value |= static_cast<std::uint64_t>(static_cast<unsigned char>(data_[pos_ + i])) << (8 * i);
    pos_ += width;
    return true;
}

bool WireReader::lengthDelimited(std::string_view& payload, std::string& error) {
    std::uint64_t length = 0;
    if (!varint(length, error)) return false;
    if (length > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) {
        error = kNegativeLength;  // what Go's int conversion of such a length reports
        return false;
    }
    if (length > data_.size() - pos_) {
        error = kUnexpectedEof;
        return false;
    }
    payload = data_.substr(pos_, static_cast<std::size_t>(length));
    pos_ += static_cast<std::size_t>(length);
    return true;
}

bool WireReader::next(std::string_view goName, WireField& field, std::string& error) {
    std::uint64_t tag = 0;
    if (!varint(tag, error)) return false;
    const auto number = static_cast<std::int32_t>(static_cast<std::uint32_t>(tag >> 3));
    const auto wireType = static_cast<int>(tag & 7);
    if (wireType == static_cast<int>(WireType::EndGroup)) {
        error = "proto: " + std::string(goName) + ": wiretype end group for non-group";
        return false;
    }
    if (number <= 0) {
        error = "proto: " + std::string(goName) + ": illegal tag " + std::to_string(number) + " (wire type " +
                std::to_string(tag) + ")";
        return false;
    }
    field = WireField{};
    field.number = static_cast<std::uint32_t>(number);
    field.wireType = static_cast<WireType>(wireType);
    switch (field.wireType) {
        case WireType::Varint: return varint(field.varint, error);
        case WireType::Fixed64: return fixed(8, field.varint, error);
        case WireType::LengthDelimited: return lengthDelimited(field.bytes, error);
        case WireType::Fixed32: return fixed(4, field.varint, error);
        case WireType::StartGroup: return true;
        default: break;
    }
    error = "proto: illegal wireType " + std::to_string(wireType);
    return false;
}

}  // namespace trainer::core::apiserver
